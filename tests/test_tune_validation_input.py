"""tune validated on a snippet whose slow factor is known (issue 19): NumPy arrays converted at
every step (snippets/memory/conversion.py). On the slow variant the top recommendation is to
convert once, its interval above 1; on the better variant it is not recommended."""

from __future__ import annotations

from tests.tune_validation import top_recommendation, tune_json


def test_numpy_converted_every_step_is_found(root):
    report = tune_json(root, "conversion_numpy_each_step.py", "input", "graph")
    top = top_recommendation(report)
    assert top is not None, report["rows"]
    assert (top["experiment"], top["arm"]) == ("input", "in_memory"), report["rows"]
    assert top["low"] > 1.0
    assert top["link"] == "docs/memory.md#converting-numpy-arrays-every-step-or-once"


def test_the_tensor_converted_once_gets_no_such_advice(root):
    report = tune_json(root, "conversion_tensor_once.py", "input")
    row = next(r for r in report["rows"] if r["arm"] == "in_memory")
    assert not row["recommended"], row
