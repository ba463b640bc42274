"""tune's isolated experiments (threads, and the device on a GPU) run each arm in processes of
its own, in process rounds. Here the children are fakes (runner.run_child replaced), so the
schedule, the pairing by round, the per-arm options and a failing arm are checked without
starting TensorFlow once per process; tests/test_tune_runner.py checks that a real child
applies the thread count it is given."""

from __future__ import annotations

import statistics

import pytest

from scripts.tuning import analysis, runner

FACTS = {"logical_cores": 4, "batch_size": 32}
ARMS = ["as_given", "intra_1", "intra_2", "intra_4"]


@pytest.fixture
def children(monkeypatch):
    """Fake children: each returns its arm's runs (intra_1 twice as fast as the rest), or an
    error for the arm named in failing; every call's arm and options are recorded."""
    calls: list[tuple[str, list[str]]] = []
    failing: set[str] = set()
    interrupt_after: list[int] = []

    def run_child(path, experiment, say, facts, options, timeout):
        assert experiment == "threads" and facts["logical_cores"] == FACTS["logical_cores"]
        arm = options[options.index("--arm") + 1]
        calls.append((arm, list(options)))
        if arm in failing:
            return {"arms": {arm: {"error": f"{arm} ran out of memory"}}, "error": None}
        process = sum(1 for name, _ in calls if name == arm)
        base = 0.05 if arm == "intra_1" else 0.1
        runs = [base * (1 + 0.01 * (process + k)) for k in range(runner.RUNS_PER_PROCESS)]
        found = {"arms": {arm: {"times_s": runs, "samples_per_run": 64}}, "error": None}
        if interrupt_after and len(calls) == interrupt_after[0]:
            found["interrupted"] = True
        return found

    monkeypatch.setattr(runner, "run_child", run_child)
    return calls, failing, interrupt_after


def isolated(rounds: int = runner.PROCESS_ROUNDS) -> dict:
    return runner.run_isolated(None, "threads", FACTS, lambda line: None, 60.0, rounds)


def test_every_arm_runs_once_a_round_in_its_own_process_with_its_options(children):
    calls, _, _ = children
    merged = isolated()
    assert len(calls) == len(ARMS) * runner.PROCESS_ROUNDS
    rounds = [calls[i : i + len(ARMS)] for i in range(0, len(calls), len(ARMS))]
    assert all(sorted(arm for arm, _ in r) == ARMS for r in rounds)
    assert len({tuple(arm for arm, _ in r) for r in rounds}) > 1  # the order is shuffled
    for arm, options in calls:
        threads = (
            options[options.index("--intra-threads") + 1] if "--intra-threads" in options else None
        )
        assert threads == (arm.removeprefix("intra_") if arm != "as_given" else None)
        assert options[options.index("--min-rounds") + 1] == str(runner.RUNS_PER_PROCESS)
    for arm in ARMS:
        entry = merged["arms"][arm]
        assert len(entry["times_s"]) == runner.PROCESS_ROUNDS  # one time per process...
        assert entry["times_s"] == [statistics.median(runs) for runs in entry["run_times_s"]]


def test_the_processes_of_a_round_are_paired_and_give_an_interval(children):
    merged = isolated()
    rows = {r.arm: r for r in analysis.rows_for("threads", merged, FACTS)}
    assert rows["intra_1"].rounds == runner.PROCESS_ROUNDS
    assert rows["intra_1"].point == pytest.approx(2.0)
    assert rows["intra_1"].verdict == analysis.FASTER
    assert rows["intra_2"].verdict == analysis.NO_CLEAR


def test_an_arm_that_fails_stops_alone(children):
    calls, failing, _ = children
    failing.add("intra_4")
    merged = isolated()
    assert [arm for arm, _ in calls].count("intra_4") == 1  # not started again
    assert merged["arms"]["intra_4"]["error"] == "intra_4 ran out of memory"
    assert len(merged["arms"]["intra_1"]["times_s"]) == runner.PROCESS_ROUNDS


def test_ctrl_c_in_a_child_ends_the_rounds_keeping_what_was_measured(children):
    calls, _, interrupt_after = children
    interrupt_after.append(len(ARMS) + 1)  # in the second round's first process
    merged = isolated()
    assert merged["interrupted"] and len(calls) == len(ARMS) + 1
    assert sum(len(e.get("times_s", [])) for e in merged["arms"].values()) == len(ARMS) + 1


def test_the_run_says_how_many_processes_an_isolated_experiment_will_start(
    children, monkeypatch, tmp_path
):
    calls, _, _ = children
    fake = runner.run_child

    def run_child(path, experiment, say, facts=None, options=(), timeout=0):
        if experiment == "check":
            return {"facts": {**FACTS, "devices": ["CPU:0"], "gpu": None}, "error": None}
        return fake(path, experiment, say, facts, options, timeout)

    monkeypatch.setattr(runner, "run_child", run_child)
    path = tmp_path / "my_model.py"
    path.write_text("def build_model():\n    pass\n\n\ndef training_data():\n    pass\n")
    lines: list[str] = []
    found = runner.tune(path, ["threads"], 1.0, lines.append)
    assert not found["error"], found["error"]
    count = runner.PROCESS_ROUNDS * len(ARMS)
    told = [line for line in lines if "process rounds of" in line]
    assert told == [
        f"  threads: {runner.PROCESS_ROUNDS} process rounds of {len(ARMS)} processes "
        f"({count} in all), each about as long to start as the check (0 s)"
    ]
    assert len(calls) == count
