"""tune validated on a snippet whose slow factor is known (issue 19): a step of many small ops
run eagerly (snippets/graph_execution/small_ops.py). Whether the eager variant's top
recommendation is the graph, its interval above 1, and whether the graph variant is left alone,
is read from the committed full run (docs/_generated/tune/validation.json; no live timing
decides a test, issue 27). The small live runs check what is not a timing: the eager
variant's graph arm is measured with an interval, and the graph variant has no such arm."""

from __future__ import annotations

import pytest

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts, measured_with_intervals, tune_json

CASE = validation.case_named("small_ops_eager.py")


def test_the_committed_run_found_the_factor_and_left_the_graph_variant_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's eager small ops were not told to compile a graph first"
    assert clean, "the committed run's graph variant was told to leave eager mode"


@pytest.mark.end_to_end
def test_a_small_run_measures_the_eager_variant_against_one_graph(root):
    report = tune_json(root, CASE.slow, "graph")
    assert report["facts"]["run_eagerly"] is True
    rows = measured_with_intervals(report, "graph")
    assert [row["arm"] for row in rows] == ["graph"], rows
    assert rows[0]["link"] == validation.SMALL_OPS


@pytest.mark.end_to_end
def test_the_graph_variant_is_offered_xla_not_a_graph(root):
    report = tune_json(root, CASE.better, "graph")
    assert report["facts"]["run_eagerly"] is False
    assert [row["arm"] for row in report["rows"]] == ["xla_on"], report["rows"]
