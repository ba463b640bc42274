"""tune validated on a snippet whose slow factor is known (issue 19): the MLP at a small batch
(snippets/batch_size/mlp.py). On the batch of 32 the top recommendation is a larger batch,
its interval above 1. The issue also asks that a better variant not be told it; for this
network that does not hold: its throughput still rises at the largest batch tried (8192,
where the committed validation run measured x4 still faster), so the test asserts what does
hold, that the gain a larger batch gives is smaller there than at 32 (the case:
scripts/tuning/validation.py)."""

from __future__ import annotations

from scripts.tuning import validation
from tests.tune_validation import tune_json

CASE = validation.case_named("mlp_batch_32.py")


def best_batch_gain(report: dict) -> float:
    return max(r["point"] for r in report["rows"] if CASE.is_factor(r) and r["point"])


def test_the_slow_factor_is_found_and_gains_less_at_a_large_batch(root):
    slow = tune_json(root, CASE.slow, *CASE.only)
    assert validation.found_on_slow(CASE, slow["rows"]), slow["rows"]
    better = tune_json(root, CASE.better, "batch")
    assert best_batch_gain(better) < best_batch_gain(slow), (better["rows"], slow["rows"])
