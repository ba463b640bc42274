"""tune validated on a snippet whose slow factor is known (issue 19): the small model's default
thread pools (snippets/threads/small_model.py).

A thread count is the one factor a test beside the rest of a CI run cannot judge: the other
xdist worker keeps the second core busy, and two CI runs saw the one-thread gain come out
unclear or ranked below XLA. So the verdicts (found on the slow variant, not told on the
better one) are read from the committed full run (docs/_generated/tune/validation.json,
measured on a quiet machine, rendered on the Tune page; validation.load() recomputes each
verdict from its numbers). A small live run of the threads experiment starts fifteen
TensorFlow processes (three thread counts, five process rounds): 48 s of a CI run, so how
tune schedules and pairs those processes is tested with fake children in
tests/test_tune_isolated.py, and that a real child sets the count it is given in
tests/test_tune_runner.py."""

from __future__ import annotations

from benchmarks.tune import validation
from tests.tune_validation import committed_verdicts

CASE = validation.case_named("threads_default.py")


def test_the_committed_run_found_the_factor_and_left_the_better_variant_alone():
    found, clean = committed_verdicts(CASE)
    assert found, "the committed run's slow variant was not told to use one thread"
    assert clean, "the committed run's better variant was told to use one thread"
