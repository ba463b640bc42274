"""Issue 37's rules for the planted cases, on fakes with known answers: the pooling of a
case's runs by sitting, the decision rule, "not evidence", "does not reproduce", the load
rule, the split's coverage and the append-only runs. No test here reads a live timing."""

from __future__ import annotations

import copy
import json
import math
import statistics

import pytest

from benchmarks.tune import ground_truth, truth_pool, truth_rules, truth_runs, truth_sets
from scripts.core import json_files, pooling

# A run's provenance as committed_run records it (data/tune_run_parts.schema.json).
MACHINE = {"id": "test-machine", "description": "a test machine", "os": "Linux", "arch": "x86_64",
           "logical_cores": 2}  # fmt: skip
SOFTWARE = {"python": "3.11.7", "tensorflow": "2.16.2", "keras": "3.10.0", "numpy": "1.26.4",
            "tensorflow_metal": None}  # fmt: skip


def fake_run(ratios: list[float], sitting: str = "day 2026-11-27", load: float = 0.3) -> dict:
    """A run whose process rounds have these speed-ups (as given 1.0 s per sample)."""
    date = sitting[4:] + "T04:00:00Z" if sitting.startswith("day ") else "2026-11-29T04:00:00Z"
    return {
        "tool": "test", "date": date, "machine": MACHINE, "software": SOFTWARE,
        "git": {"commit": None, "dirty": None},
        "budget_s": 60.0, "load_average_start": [load, 0, 0], "load_average_end": [load, 0, 0],
        "boot": sitting[5:] if sitting.startswith("boot ") else None, "sitting": sitting,
        "steps": 8, "runs_per_process": 3,
        "truth": {"rounds": [[1.0, 1.0 / r] for r in ratios]}, "tune": None,
    }  # fmt: skip


def test_a_sitting_is_its_rounds_mean_log_ratio_with_a_t_interval():
    logs = [0.10, 0.12, 0.08, 0.11, 0.09]
    (sitting,) = truth_pool.sittings_of([fake_run([math.exp(x) for x in logs])])
    assert sitting.point == pytest.approx(math.exp(0.10))
    half = 2.7764451 * statistics.stdev(logs) / math.sqrt(5)  # t(0.975, 4 df)
    low, high = sitting.interval()
    assert (low, high) == pytest.approx((math.exp(0.10 - half), math.exp(0.10 + half)), rel=1e-6)


def test_sittings_are_the_units_and_runs_of_one_sitting_pool_their_rounds():
    runs = [
        fake_run([math.exp(x) for x in (0.09, 0.11)], "day 2026-11-27"),
        fake_run([math.exp(x) for x in (0.08, 0.12, 0.10)], "day 2026-11-27"),
        fake_run([math.exp(x) for x in (0.29, 0.31, 0.30, 0.28, 0.32)], "boot 1a2b3c4d"),
    ]
    truth = truth_pool.pooled(runs, None)
    assert [s.rounds for s in truth.sittings] == [5, 5]
    assert truth.point == pytest.approx(math.exp(0.20))  # the mean of the two sittings' means
    # By hand: two sittings, so one degree of freedom; tau2 from their scatter.
    w = statistics.fmean(statistics.variance(s.log_ratios) / 5 for s in truth.sittings)
    tau2 = max(0.0, statistics.variance([0.10, 0.30]) - w)
    half = 12.7062047 * math.sqrt((tau2 + w) / 2)
    assert (truth.low, truth.high) == pytest.approx(
        (math.exp(0.2 - half), math.exp(0.2 + half)), rel=1e-6
    )
    prior = pooling.Spread(tau2=0.001, groups=3, df=10)
    narrower = truth_pool.pooled(runs, prior)  # the guide's spread as a prior: t at 4 + 1 df
    assert narrower.high < truth.high and narrower.basis == "own sittings"


@pytest.mark.parametrize(
    "rounds, sittings, enough",
    [((5, 5), 2, True), ((5, 4), 2, False), ((10,), 1, False), ((4, 3, 3), 3, True)],
)
def test_a_truth_is_evidence_from_ten_rounds_across_two_sittings(rounds, sittings, enough):
    names = ["day 2026-11-27", "boot aaaa0000", "boot bbbb1111"]
    runs = [fake_run([1.2 + 0.01 * i for i in range(n)], names[k]) for k, n in enumerate(rounds)]
    truth = truth_pool.pooled(runs, None)
    assert len(truth.sittings) == sittings and truth.enough is enough
    judgement = truth_rules.judge(truth_rules.GAIN, truth, {"point": 1.2, "low": 1.1, "high": 1.3})
    assert (judgement.status == truth_rules.NOT_EVIDENCE) is not enough


def apart_truth(first: float, second: float, scale: float = 0.01) -> truth_pool.PooledTruth:
    spread = [-scale, 0.0, scale, -scale / 2, scale / 2]
    runs = [
        fake_run([math.exp(math.log(first) + d) for d in spread], "day 2026-11-27"),
        fake_run([math.exp(math.log(second) + d) for d in spread], "boot 1a2b3c4d"),
    ]
    return truth_pool.pooled(runs, None)


def test_a_truth_whose_sittings_do_not_overlap_does_not_reproduce():
    flipped = apart_truth(1.25, 0.72)  # the review's CNN threads case, in shape
    assert not flipped.reproduces
    row = {"point": 1.0, "low": 0.9, "high": 1.1}
    assert truth_rules.judge(truth_rules.LOSS, flipped, row).status == truth_rules.NOT_REPRODUCED
    close = apart_truth(1.20, 1.205)
    assert close.reproduces


def test_agreement_needs_the_point_inside_and_the_same_decision():
    truth = apart_truth(1.50, 1.52)  # recommended: above 1 and above 1.05
    assert truth_rules.decision(truth.point, truth.low, truth.high) == truth_rules.RECOMMENDED
    inside = {"point": truth.point, "low": 1.2, "high": 1.8}
    assert truth_rules.judge(truth_rules.GAIN, truth, inside).status == truth_rules.AGREES
    wide = {"point": truth.point, "low": 0.9, "high": 2.4}  # inside, but no clear difference
    judged = truth_rules.judge(truth_rules.GAIN, truth, wide)
    assert judged.status == truth_rules.MISSES and "no clear difference" in judged.why
    outside = {"point": 2.5, "low": 2.2, "high": 2.8}  # recommended, point outside
    judged = truth_rules.judge(truth_rules.GAIN, truth, outside)
    assert judged.status == truth_rules.MISSES and "outside" in judged.why
    assert truth_rules.judge(truth_rules.GAIN, truth, None).status == truth_rules.MISSES


def test_a_gain_under_five_percent_is_no_clear_difference_at_the_guides_margin():
    assert truth_rules.decision(1.04, 1.02, 1.06) == truth_rules.NO_CLEAR
    assert truth_rules.decision(1.06, 1.02, 1.09) == truth_rules.RECOMMENDED
    assert truth_rules.decision(0.9, 0.85, 0.95) == truth_rules.SLOWER


def test_nothing_to_gain_counts_only_inside_the_no_difference_margin():
    decisive = apart_truth(1.00, 1.01)
    assert truth_rules.inside_margin(decisive.low, decisive.high)
    row = {"point": 1.0, "low": 0.95, "high": 1.06}
    assert truth_rules.judge(truth_rules.NONE, decisive, row).status == truth_rules.AGREES
    weak = apart_truth(1.00, 1.08, scale=0.1)  # sittings overlap; pooled reaches past 1.10
    assert weak.reproduces
    assert not truth_rules.inside_margin(weak.low, weak.high)
    judged = truth_rules.judge(truth_rules.NONE, weak, row)
    assert judged.status == truth_rules.NOT_EVIDENCE and not judged.counted
    assert truth_rules.inside_margin(1 / 1.10, 1.10) and not truth_rules.inside_margin(0.9, 1.0)


def test_the_pass_criterion_is_ninety_percent_of_counted_cases():
    agree = truth_rules.Judgement(truth_rules.AGREES, "")
    miss = truth_rules.Judgement(truth_rules.MISSES, "")
    aside = truth_rules.Judgement(truth_rules.NOT_EVIDENCE, "")
    assert truth_rules.passes([agree] * 9 + [miss] + [aside] * 5) is True
    assert truth_rules.passes([agree] * 8 + [miss]) is False
    assert truth_rules.passes([aside]) is None


def test_the_load_rule_marks_a_run_above_one_runnable_thread_per_core():
    assert not truth_rules.busy(fake_run([1.0], load=2.0))
    assert truth_rules.busy(fake_run([1.0], load=2.1))
    late = fake_run([1.0])
    late["load_average_end"] = [5.3, 0, 0]
    assert truth_rules.busy(late)
    (sitting,) = truth_pool.sittings_of([late, fake_run([1.0])])
    assert sitting.busy_runs == 1 and sitting.rounds == 2  # kept and pooled, only marked


def test_the_split_covers_each_kind_in_each_set_with_five_cases_or_more():
    kinds = {case.file: case.experiment for case in ground_truth.CASES}
    assert truth_sets.problems(kinds) == []
    assert {truth_sets.set_of(f) for f in kinds} == {truth_sets.DESIGN, truth_sets.VALIDATION}
    # The check fails when a set loses a kind or a case is in neither.
    no_graph = {f: ("input" if k == "graph" else k) for f, k in kinds.items()}
    assert any("no graph case" in p for p in truth_sets.problems(no_graph))
    assert truth_sets.problems({**kinds, "truth_other.py": "input"}) == [
        "truth_other.py: in neither set"
    ]


def test_runs_are_appended_and_an_interrupted_write_keeps_the_earlier_ones(tmp_path, monkeypatch):
    path = tmp_path / "truth_runs.json"
    first = fake_run([1.2, 1.3])
    truth_runs.append_and_write(path, "truth_generator.py", first)
    truth_runs.append_and_write(path, "truth_generator.py", fake_run([0.9], "boot 1a2b3c4d"))
    found = truth_runs.load(path)
    assert [len(r["truth"]["rounds"]) for r in found["cases"]["truth_generator.py"]] == [2, 1]
    assert found["cases"]["truth_generator.py"][0] == first  # the earlier run, untouched
    before = path.read_text()

    def stopped(handle_path, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(json_files, "write_json_atomic", stopped)
    with pytest.raises(KeyboardInterrupt):
        truth_runs.append_and_write(path, "truth_cached.py", fake_run([1.0]))
    assert path.read_text() == before


def test_the_committed_runs_begin_with_the_2026_11_27_run_converted_faithfully():
    old = json.loads(ground_truth.RUN_JSON.read_text(encoding="utf-8"))
    converted = truth_runs.converted(old)
    committed = truth_runs.load()
    for entry in old["cases"]:
        file = entry["file"].split("/")[-1]
        measured = [*entry.get("earlier", []), entry]
        runs = committed["cases"][file][: len(measured)]
        assert runs == converted["cases"][file]
        for run, source in zip(runs, measured, strict=True):
            per = source["truth"]["per_sample_s"]
            assert run["truth"]["rounds"] == [
                list(p) for p in zip(per["as_given"], per["arm"], strict=True)
            ]
            assert run["sitting"] == "day 2026-11-27" and run["boot"] is None


def test_a_run_with_a_sitting_that_is_not_its_boots_or_dates_is_refused(tmp_path):
    bad = fake_run([1.2])
    bad["sitting"] = "day 2026-11-28"
    path = tmp_path / "runs.json"
    path.write_text(json.dumps({"cases": {"truth_cached.py": [bad]}}))
    with pytest.raises(ValueError, match=r"truth_cached.py\[0\]: sitting"):
        truth_runs.load(path)
    bad = fake_run([1.2])
    bad["truth"]["rounds"] = [[1.0, "0.5"]]
    path.write_text(json.dumps({"cases": {"truth_cached.py": [bad]}}))
    said = r"runs.json: cases.truth_cached.py\[0\].truth.rounds\[0\]\[1\]: expected a finite number"
    with pytest.raises(ValueError, match=said):
        truth_runs.load(path)


def test_the_page_shows_the_tables_the_committed_runs_render_to(root):
    runs = truth_runs.load()
    from benchmarks.tune import truth_page

    assert ground_truth.TRUTH_MD.read_text(encoding="utf-8") == truth_page.render_truth(
        ground_truth.CASES, runs
    )
    assert ground_truth.REPEAT_MD.read_text(encoding="utf-8") == truth_page.render_repeat(
        ground_truth.CASES, runs
    )
    page = (root / "docs" / "tune-validation.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/truth.md"' in page
    assert '--8<-- "docs/_generated/tune/repeat.md"' in page


def test_the_page_states_the_rules_the_code_holds(root):
    page = " ".join((root / "docs" / "tune-validation.md").read_text(encoding="utf-8").split())
    assert f"written on {truth_rules.RULES_DATE}, before the second sitting was measured" in page
    assert truth_rules.MIN_ROUNDS == 10 and "at least ten process rounds" in page
    assert truth_rules.MIN_SITTINGS == 2 and "at least two sittings" in page
    assert f"{1 / 1.10:.2f}–1.10" in page and f"{truth_rules.PASS_SHARE:.0%}" in page
    assert truth_sets.SPLIT_DATE in page


def test_a_judgement_on_the_page_follows_the_runs(tmp_path):
    """Altering a committed run's truth changes its case's cell: the page reads the runs."""
    from benchmarks.tune import truth_page

    runs = copy.deepcopy(truth_runs.load())
    case = next(c for c in ground_truth.CASES if c.file == "truth_generator.py")
    runs["cases"][case.file].append(fake_run([0.5, 0.52, 0.49, 0.51, 0.5], "boot 1a2b3c4d"))
    table = truth_page.render_truth(ground_truth.CASES, runs)
    (line,) = [x for x in table.splitlines() if "truth\\_generator.py`" in x]
    assert truth_rules.NOT_REPRODUCED in line


def test_the_sitting_command_appends_each_case_and_an_interrupt_keeps_those_done(
    tmp_path, monkeypatch, capsys
):
    """--sitting with two cases, the second interrupted: the first is appended, the second is
    not, the committed runs before it are kept, and the tables are rendered from what is kept."""
    runs_path = tmp_path / "truth_runs.json"
    # The committed runs of their first sitting only, so the run appended here is the second
    # sitting the page shows beside the first, whatever sittings were committed since.
    committed = json.loads(truth_runs.RUNS_JSON.read_text(encoding="utf-8"))
    for case_runs in committed["cases"].values():
        first = case_runs[0]["sitting"]
        case_runs[:] = [run for run in case_runs if run["sitting"] == first]
    runs_path.write_text(json.dumps(committed), encoding="utf-8")
    before = truth_runs.load(runs_path)
    monkeypatch.setattr(truth_runs, "RUNS_JSON", runs_path)
    for name in ("TRUTH_MD", "REPEAT_MD", "TABLE_MD", "DESIGNS_MD"):
        monkeypatch.setattr(ground_truth, name, tmp_path / f"{name}.md")
    done = fake_run([1.5, 1.6, 1.4], "boot 1a2b3c4d")

    def measured(case, process_rounds, budget_s, say):
        if case.file == "truth_cached.py":
            raise KeyboardInterrupt
        return done

    monkeypatch.setattr(ground_truth, "measure_case", measured)
    status = ground_truth.main(
        ["--sitting", "--only", "truth_generator.py", "--only", "truth_cached.py"]
    )
    assert status == 130
    after = truth_runs.load(runs_path)
    assert after["cases"]["truth_generator.py"] == [*before["cases"]["truth_generator.py"], done]
    assert after["cases"]["truth_cached.py"] == before["cases"]["truth_cached.py"]
    out = capsys.readouterr().out
    assert "[1/2] truth_generator.py" in out and "[2/2] truth_cached.py" in out
    assert "interrupted" in out
    table = (tmp_path / "TRUTH_MD.md").read_text(encoding="utf-8")
    (row,) = [line for line in table.splitlines() if "truth\\_generator.py`" in line]
    assert "| 2026-11-29: 1.50× (" in row  # the appended run, its sitting beside the first


def test_other_processes_share_is_the_busy_time_less_this_runs_own():
    from benchmarks.tune import machine_share

    text = "cpu  1000 0 200 5000 0 0 100 0 0 0\ncpu0 1 2 3 4\n"
    assert machine_share.busy_seconds(text, 100) == 13.0  # user, system, softirq; idle out
    before = machine_share.Snapshot(busy_s=100.0, own_s=10.0, wall_s=0.0)
    after = machine_share.Snapshot(busy_s=130.0, own_s=25.0, wall_s=60.0)
    assert machine_share.other_share(before, after, cores=2) == pytest.approx(15 / 120)
    unread = machine_share.Snapshot(busy_s=None, own_s=25.0, wall_s=60.0)
    assert machine_share.other_share(before, unread, 2) is None


def test_the_load_rule_reads_other_processes_share_where_a_run_recorded_it():
    quiet = {**fake_run([1.0], load=5.0), "other_cpu_share": 0.10}
    assert not truth_rules.busy(quiet)  # a high load from the run's own processes
    shared = {**fake_run([1.0], load=0.5), "other_cpu_share": 0.30}
    assert truth_rules.busy(shared)


def test_a_run_is_checked_before_it_lands_and_a_long_error_is_kept_whole(tmp_path):
    """A run that breaks the format is refused before the file is replaced, so the runs
    written before it stay readable; an error as long as TensorFlow's (thousands of
    characters) is kept as the process gave it."""
    path = tmp_path / "truth_runs.json"
    failed = fake_run([1.2])
    failed["tune"] = {"design": "fresh", "error": "Graph execution error: " + "x" * 3000,
                      "rows": [], "seconds": None}  # fmt: skip
    truth_runs.append_and_write(path, "truth_cached.py", failed)
    assert truth_runs.load(path)["cases"]["truth_cached.py"] == [failed]
    before = path.read_text()
    bad = fake_run([0.9])
    bad["truth"]["rounds"] = [[1.0, "0.5"]]
    with pytest.raises(ValueError, match=r"truth_cached.py\[1\].truth.rounds\[0\]\[1\]"):
        truth_runs.append_and_write(path, "truth_cached.py", bad)
    assert path.read_text() == before
    assert len(truth_runs.load(path)["cases"]["truth_cached.py"]) == 1
