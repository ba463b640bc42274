"""tune validated on a snippet whose slow factor is known (issue 19): the small model's default thread pools (snippets/threads/small_model.py).
On the slow variant the top recommendation is that factor, its interval above 1; on the
better variant that factor is not recommended (the case: scripts/tuning/validation.py)."""

from __future__ import annotations

from scripts.tuning import validation
from tests.tune_validation import tune_json

CASE = validation.case_named("threads_default.py")


def test_the_slow_factor_is_found(root):
    report = tune_json(root, CASE.slow, *CASE.only)
    assert validation.found_on_slow(CASE, report["rows"]), report["rows"]


def test_the_better_variant_is_not_told_it(root):
    report = tune_json(root, CASE.better, *CASE.only)
    assert validation.clean_on_better(CASE, report["rows"]), report["rows"]
