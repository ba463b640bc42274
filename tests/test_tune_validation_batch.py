"""tune validated on a snippet whose slow factor is known (issue 19): the MLP at a small batch
(snippets/batch_size/mlp.py). On the batch of 32 the top recommendation is a larger batch,
its interval above 1: judged live, at small size, as the gain is large (above 3x).

The better variant is the batch at which the network's throughput levels off, chosen by its
own sweep (benchmarks/tune/batch_plateau.py; tests/test_tune_batch_plateau.py holds the model
file to it). That batch is large by its nature: one small tune run on it (`--only batch
--budget 12`) took 43 s of both cores here, too much to repeat in every CI run, so its
verdict (no larger batch recommended) is read from the committed full run
(docs/_generated/tune/validation.json, rendered on the Tune page), as the thread and feeding
cases' are; validation.load() recomputes each verdict from its numbers."""

from __future__ import annotations

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts, tune_json

CASE = validation.case_named("mlp_batch_32.py")


def test_a_small_run_on_the_batch_of_32_recommends_a_larger_batch_first(root):
    slow = tune_json(root, CASE.slow, *CASE.only)
    assert validation.found_on_slow(CASE, slow["rows"]), slow["rows"]


def test_the_committed_run_found_the_factor_and_left_the_levelled_off_batch_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's batch of 32 was not told a larger batch first"
    assert clean, "the committed run's levelled-off batch was told a larger batch"
