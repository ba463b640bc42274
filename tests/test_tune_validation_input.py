"""tune validated on a snippet whose slow factor is known (issue 19): NumPy arrays converted at
every step (snippets/memory/conversion.py). Whether the slow variant's top recommendation is to
convert once, its interval above 1, and whether the better variant is left alone, is read from
the committed full run (docs/_generated/tune/validation.json; no live timing decides a test,
issue 27). The small live run checks that arrays get the conversion arm, with an interval and
the conversion section's link."""

from __future__ import annotations

import pytest

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts, measured_with_intervals, tune_json

CASE = validation.case_named("conversion_numpy_each_step.py")


def test_the_committed_run_found_the_factor_and_left_the_better_variant_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's NumPy arrays were not told to convert once"
    assert clean, "the committed run's tensors converted once were told to convert once"


@pytest.mark.end_to_end
def test_a_small_run_measures_arrays_against_tensors_converted_once(root):
    report = tune_json(root, CASE.slow, "input")
    assert report["facts"]["data_kind"] == "arrays"
    rows = measured_with_intervals(report, "input")
    assert [row["arm"] for row in rows] == ["in_memory"], rows
    assert rows[0]["link"] == validation.CONVERSION
