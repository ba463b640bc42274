"""tune's dataset arms hold no pipeline open between their timed runs (issue 27): each timed
run takes a fresh iterator and two untimed steps (prepare), and drops it after (release); and
the input experiment runs each variant in processes of its own, the design the ground truth
chose (benchmarks/tune/ground_truth.py). The other designs stay available to that benchmark."""

from __future__ import annotations

import pytest

from scripts.tuning import child, experiments, runner
from tests.test_tune_report import FACTS
from tests.test_tune_runner import model_text, reader  # noqa: F401 (a fixture)


def test_a_dataset_arm_has_no_iterator_between_its_timed_runs(reader):  # noqa: F811
    path = reader / "my_model.py"
    path.write_text(model_text())
    setup = child.Setup(path)
    arm = child.build_arm(setup, "input", "as_given")
    assert arm.dataset is not None and arm.stream is None  # built, then released
    arm.prepare()
    first = arm.stream
    assert first is not None and arm.read == child.WARM_STEPS  # the untimed steps
    arm()
    assert arm.read == child.WARM_STEPS + setup.steps
    arm.release()
    assert arm.stream is None
    arm.prepare()
    assert arm.stream is not first and arm.read == child.WARM_STEPS  # a fresh iterator
    arm.release()
    memory = child.build_arm(setup, "input", "in_memory")
    assert memory.dataset is not None and memory.stream is None


def test_the_design_before_keeps_one_iterator(reader):  # noqa: F811
    path = reader / "my_model.py"
    path.write_text(model_text())
    arm = child.build_arm(child.Setup(path), "input", "as_given", iterators="kept")
    kept = arm.stream
    arm.prepare()
    arm()
    arm.release()
    assert arm.dataset is None and arm.stream is kept


def test_arrays_are_sliced_as_before(reader):  # noqa: F811
    path = reader / "my_model.py"
    path.write_text(model_text(data="(x, y, 32)"))
    arm = child.build_arm(child.Setup(path), "input", "as_given")
    assert arm.dataset is None and arm.stream is not None and not arm.iterator


@pytest.mark.parametrize("design", runner.DESIGNS)
def test_the_input_experiment_runs_in_the_design_asked(monkeypatch, reader, design):  # noqa: F811
    """By default (the design the ground truth chose) every input variant runs in processes
    of its own; the two interleaved designs run them in one child, "kept" saying so."""
    path = reader / "my_model.py"
    path.write_text(model_text())
    calls = []

    def fake_child(path, experiment, say, facts=None, options=(), timeout=0):
        if experiment == "check":
            return {"facts": FACTS}
        calls.append(list(options))
        return {"arms": {}}

    monkeypatch.setattr(runner, "run_child", fake_child)
    runner.tune(path, ["input"], budget_s=4, say=lambda line: None, design=design)
    if design == "processes":
        assert design == runner.DESIGNS[0]
        arms = experiments.arms("input", FACTS)  # as_given, in_memory, prefetch
        assert len(calls) == len(arms) * runner.PROCESS_ROUNDS
        assert all("--arm" in options for options in calls)
    else:
        (options,) = calls
        assert "--arm" not in options
        assert ("--iterators" in options) == (design == "kept")
    with pytest.raises(ValueError, match="design 'other': expected one of processes"):
        runner.tune(path, ["input"], budget_s=4, say=lambda line: None, design="other")
