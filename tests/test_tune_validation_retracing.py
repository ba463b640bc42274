"""tune validated on a snippet whose slow factor is known (issue 19): a tf.function called
with the step as a Python int at every step (snippets/graph_execution/retracing.py,
python_scalar), from a Keras model's eager training step. tune counts a trace in every step
of it and none on the input_signature variant (counts, not timings: checked live). Whether the
top recommendation is to stop the retracing, its interval above 1, is read from the committed
full run (docs/_generated/tune/validation.json; no live timing decides a test, issue 27)."""

from __future__ import annotations

import pytest

from benchmarks.tune import validation
from scripts.tuning import experiments
from tests.tune_validation import committed_verdicts, measured_with_intervals, tune_json

CASE = validation.case_named("retracing_python_scalar.py")


def test_the_committed_run_found_the_retracing_and_left_the_better_variant_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's retracing model was not told to stop the retracing"
    assert clean, "the committed run's input_signature variant was told it retraces"


@pytest.mark.end_to_end
def test_retracing_on_python_scalars_is_counted_and_its_fix_measured(root):
    report = tune_json(root, CASE.slow, "graph")
    assert report["facts"]["traces"][1:] == [1] * (experiments.TRACE_STEPS - 1)
    rows = measured_with_intervals(report, "graph")
    assert [row["link"] for row in rows] == [experiments.RETRACING_LINK], rows


@pytest.mark.end_to_end
def test_the_input_signature_variant_is_not_told_it_retraces(root):
    report = tune_json(root, CASE.better, "graph")
    assert report["facts"]["traces"][1:] == [0] * (experiments.TRACE_STEPS - 1)
    assert not any(r["link"] == experiments.RETRACING_LINK for r in report["rows"])
