"""tune validated on a snippet whose slow factor is known (issue 19): the generator feeding
loop (snippets/input_pipeline/feeding.py), its Python generator wrapped in from_generator.

Its gain is small (see the committed run) and a CI run, with the other xdist worker
busy, once saw the better variant told to hold its batches in memory. So the verdicts come
from the committed full run (docs/_generated/tune/validation.json, rendered on the Tune
page), and the small live runs check that the input experiment measures both variants'
pipelines against the same batches held in memory, with intervals."""

from __future__ import annotations

import pytest

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts, measured_with_intervals, tune_json

CASE = validation.case_named("feeding_generator.py")


def test_the_committed_run_found_the_factor_and_left_the_better_variant_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's generator pipeline was not told to feed faster"
    assert clean, "the committed run's tensor-slices pipeline was told to feed faster"


@pytest.mark.end_to_end
@pytest.mark.parametrize("model", [CASE.slow, CASE.better])
def test_small_runs_measure_both_pipelines_against_batches_in_memory(root, model):
    rows = measured_with_intervals(tune_json(root, model, "input"), "input")
    assert any(row["arm"] == "in_memory" for row in rows), rows
