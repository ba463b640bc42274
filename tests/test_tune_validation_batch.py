"""tune validated on a snippet whose slow factor is known (issue 19): the MLP at a small batch
(snippets/batch_size/mlp.py). Whether the batch of 32's top recommendation is a larger batch,
its interval above 1, and whether the levelled-off batch is left alone, is read from the
committed full run (docs/_generated/tune/validation.json, rendered on the Tune page;
validation.load() recomputes each verdict from its numbers): no live timing decides a test
(issue 27). The better variant is the batch at which the network's throughput levels off,
chosen by its own sweep (benchmarks/tune/batch_plateau.py; tests/test_tune_batch_plateau.py
holds the model file to it). The small live run checks that both larger batches are measured,
each with an interval."""

from __future__ import annotations

import pytest

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts, measured_with_intervals, tune_json

CASE = validation.case_named("mlp_batch_32.py")


@pytest.mark.end_to_end
def test_a_small_run_measures_twice_and_four_times_the_batch_of_32(root):
    rows = measured_with_intervals(tune_json(root, CASE.slow, "batch"), "batch")
    assert sorted(row["arm"] for row in rows) == ["batch_x2", "batch_x4"], rows


def test_the_committed_run_found_the_factor_and_left_the_levelled_off_batch_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's batch of 32 was not told a larger batch first"
    assert clean, "the committed run's levelled-off batch was told a larger batch"
