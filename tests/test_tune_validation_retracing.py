"""tune validated on a snippet whose slow factor is known (issue 19): a tf.function called
with the step as a Python int at every step (snippets/graph_execution/retracing.py,
python_scalar), from a Keras model's eager training step. On it tune counts a trace in every
step and its top recommendation is to stop the retracing, its interval above 1; on the
input_signature variant no retracing is counted or recommended."""

from __future__ import annotations

from scripts.tuning import experiments
from tests.tune_validation import top_recommendation, tune_json


def test_retracing_on_python_scalars_is_found(root):
    report = tune_json(root, "retracing_python_scalar.py", "graph")
    assert report["facts"]["traces"][1:] == [1] * (experiments.TRACE_STEPS - 1)
    top = top_recommendation(report)
    assert top is not None, report["rows"]
    assert top["link"] == experiments.RETRACING_LINK and top["low"] > 1.0, top


def test_the_input_signature_variant_is_not_told_it_retraces(root):
    report = tune_json(root, "retracing_input_signature.py", "graph")
    assert report["facts"]["traces"][1:] == [0] * (experiments.TRACE_STEPS - 1)
    assert not any(r["link"] == experiments.RETRACING_LINK for r in report["rows"])
