"""The committed run of 2026-11-27 (benchmarks/tune/ground_truth.py, issue 27), kept as it was:
its first judgement (the criterion before issue 37) and the design table are rendered from
it. No test here holds a case's outcome: the page must show what the run's numbers give, and
the judging is checked on altered copies of the run. Issue 37's rules are tested on fakes in
tests/test_tune_truth_rules.py."""

from __future__ import annotations

import copy
import json
import subprocess

import pytest

from benchmarks.tune import ground_truth, truth_child
from scripts.core import typed_json


@pytest.fixture(scope="module")
def run():
    return ground_truth.load(ground_truth.RUN_JSON)


def entry_for(run: dict, file: str) -> dict:
    return next(e for e in run["cases"] if e["file"] == f"tests/tune_models/{file}")


def test_the_page_shows_the_committed_runs_tables(root, run):
    assert ground_truth.TABLE_MD.read_text(encoding="utf-8") == ground_truth.render(run)
    designs = ground_truth.DESIGNS_MD.read_text(encoding="utf-8")
    assert designs == ground_truth.render_designs(run)
    page = (root / "docs" / "tune-validation.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/ground_truth.md"' in page
    assert '--8<-- "docs/_generated/tune/ground_truth_designs.md"' in page


def test_the_committed_run_holds_cases_this_module_defines_in_its_order(run):
    order = [f"tests/tune_models/{case.file}" for case in ground_truth.CASES]
    files = [e["file"] for e in run["cases"]]
    assert set(files) <= set(order) and files == sorted(files, key=order.index)


def test_a_case_that_fails_is_shown_failing_on_the_page(run):
    table = ground_truth.render(run)
    for entry in run["cases"]:
        if not ground_truth.passed(ground_truth.case_of(entry), entry):
            (line,) = [line for line in table.splitlines() if entry["file"].split("/")[-1]
                       .replace("_", "\\_") in line]  # fmt: skip
            assert line.endswith("| **no** |"), line


def test_judging_is_recomputed_from_the_numbers(run):
    entry = copy.deepcopy(entry_for(run, "truth_generator.py"))
    case = ground_truth.case_of(entry)
    entry["truth"].update(point=1.0, low=0.9, high=1.1)  # a truth with nothing to gain
    judged = ground_truth.judged(case, entry)
    assert not judged["planted"] and not judged["direction"] and not judged["overlap"]
    cached = copy.deepcopy(entry_for(run, "truth_cached.py"))
    row = ground_truth.arm_row(ground_truth.case_of(cached), ground_truth.tune_run(cached))
    row.update(point=1.3, low=1.2, high=1.4, verdict="faster", recommended=True)
    judged = ground_truth.judged(ground_truth.case_of(cached), cached)
    assert not judged["no_advice"] and not judged["direction"]


def test_a_tampered_run_is_refused_or_shown_as_text(tmp_path, run):
    path = tmp_path / "ground_truth.json"
    bad = copy.deepcopy(run)
    bad["cases"][0]["truth"]["low"] = "1.2"
    path.write_text(json.dumps(bad))
    with pytest.raises(
        ValueError, match=r"cases\[0\].truth.low: expected a finite number, got .1.2."
    ):
        ground_truth.load(path)
    bad = copy.deepcopy(run)
    row = bad["cases"][0]["tune"][0]["rows"][0]
    row["verdict"] = "no clear difference" if row["verdict"] == "faster" else "faster"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="but its numbers give"):
        ground_truth.load(path)
    marked = copy.deepcopy(run)
    marked["cases"][0]["name"] = "<script>x</script> [a](b)"
    path.write_text(json.dumps(marked))
    table = ground_truth.render(ground_truth.load(path))
    assert "<script>" not in table and "[a](b)" not in table


def test_the_truth_child_makes_the_readers_own_change():
    """The truth's arms are written as a reader would change the file, not with tune's code:
    BATCH four times larger, or the pipeline's first batches held as tensors."""
    import tensorflow as tf

    path = ground_truth.MODELS / "truth_batch_small.py"
    larger, batch = truth_child.arm_data(tf, truth_child.load(path), "batch_x4")
    assert batch == 4 * 32 and next(iter(larger))[0].shape[0] == 128
    held, batch = truth_child.arm_data(tf, truth_child.load(path), "in_memory")
    first = [x.numpy() for x, _ in held.take(truth_child.HELD_BATCHES + 1)]
    assert batch == 32 and (first[0] == first[truth_child.HELD_BATCHES]).all()  # read again


def test_a_replaced_run_stays_on_the_page_with_its_load(tmp_path, run):
    """The run of 2026-11-27 kept the thread cases' first runs in their 'earlier' lists; the
    page shows each with its load and verdict (the runs are also in truth_runs.json)."""
    table = ground_truth.render(run)
    kept = [(e, earlier) for e in run["cases"] for earlier in e.get("earlier", [])]
    assert kept and "Runs of a case that a later run replaced" in table
    for _, earlier in kept:
        assert ground_truth.interval(earlier["truth"]) in table.split("replaced")[1]
    bad = copy.deepcopy(run)
    next(e for e in bad["cases"] if e.get("earlier"))["earlier"][0]["truth"]["low"] = None
    path = tmp_path / "ground_truth.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(
        ValueError, match=r"earlier\[0\].truth.low: expected a finite number, got None"
    ):
        ground_truth.load(path)


# A truth process's report, as truth_child.main writes it, and hostile copies: (the change,
# what the refusal says after the file's name).
ARM_REPORT = {"arm": "in_memory", "times_s": [0.52, 0.49, 0.5], "samples_per_run": 1024}
HOSTILE_ARM_REPORTS = {
    "no count of examples": (
        lambda r: r.pop("samples_per_run"),
        "the top level: missing field(s) samples_per_run",
    ),
    "a time as text": (
        lambda r: r["times_s"].__setitem__(0, "0.52"),
        "times_s[0]: expected a finite number, got '0.52'",
    ),
    "no times": (
        lambda r: r.update(times_s=[]),
        "times_s: expected at least one time, each above 0, got []",
    ),
    "no examples": (
        lambda r: r.update(samples_per_run=0),
        "samples_per_run: expected a positive count, got 0",
    ),
    "another arm's report": (
        lambda r: r.update(arm="graph"),
        "arm: expected 'in_memory', got 'graph'",
    ),
}


def test_a_truth_processs_report_is_read_as_written(tmp_path):
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(ARM_REPORT), encoding="utf-8")
    assert truth_child.read_report(path, "in_memory") == ARM_REPORT


@pytest.mark.parametrize("case", HOSTILE_ARM_REPORTS)
def test_a_hostile_truth_report_is_refused_naming_the_file_and_the_field(case, tmp_path):
    change, expected = HOSTILE_ARM_REPORTS[case]
    report = copy.deepcopy(ARM_REPORT)
    change(report)
    path = tmp_path / "arm.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(typed_json.MessageError) as refused:
        truth_child.read_report(path, "in_memory")
    said = str(refused.value)
    assert said.startswith(f"the ground truth's in_memory child's report, {path}: "), said
    assert expected in said, said


def test_a_truth_process_whose_report_is_refused_fails_its_case(monkeypatch):
    """It fails as a process that exits non-zero does: a RuntimeError naming the case, the
    file and the field, which a sitting reports, appending nothing for the case."""

    def wrote_text_times(command, **kwargs):
        out = command[command.index("--out") + 1]
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({**ARM_REPORT, "times_s": ["fast"]}, handle)
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(ground_truth.subprocess, "run", wrote_text_times)
    case = next(c for c in ground_truth.CASES if c.arm == "in_memory")
    with pytest.raises(RuntimeError) as failed:
        ground_truth.run_truth_child(case, "in_memory", 3)
    said = str(failed.value)
    assert said.startswith(f"{case.file} in_memory: the ground truth's in_memory child's report")
    assert said.endswith("times_s[0]: expected a finite number, got 'fast'")
