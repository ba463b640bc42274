"""tune validated on a snippet whose slow factor is known (issue 19): a step of many small ops
run eagerly (snippets/graph_execution/small_ops.py). On the eager variant the top
recommendation is to compile it as a graph, its interval above 1; on the graph variant that
advice is not given."""

from __future__ import annotations

from tests.tune_validation import top_recommendation, tune_json


def test_eager_small_ops_are_found(root):
    report = tune_json(root, "small_ops_eager.py", "input", "graph")
    top = top_recommendation(report)
    assert top is not None, report["rows"]
    assert (top["experiment"], top["arm"]) == ("graph", "graph"), report["rows"]
    assert top["low"] > 1.0


def test_the_graph_variant_is_not_told_to_leave_eager_mode(root):
    report = tune_json(root, "small_ops_graph.py", "graph")
    assert report["facts"]["run_eagerly"] is False
    assert not any(r["arm"] == "graph" and r["recommended"] for r in report["rows"])
