"""The speed-up bootstrap of stats.py as NumPy arrays, giving bootstrap_in_python's answer bit
for bit. Not bundled in tf-doctor.pyz, which runs with the standard library alone."""

from __future__ import annotations

import random

import numpy as np

from scripts.core import stats


def bootstrap(
    baseline_times, variant_times, baseline_point, resamples: int, paired: bool
) -> tuple[float, float]:
    """bootstrap_in_python's answer, bit for bit, as arrays: NumPy's Mersenne Twister is given
    random.Random(BOOTSTRAP_SEED)'s state, so it draws the same numbers in the same order, and
    each index is floor(u * n) as random.choices takes it. np.median of an even count is
    the mean of the middle two, as statistics.median's. A site build asks for about 600
    of these intervals; in Python they took most of its time."""
    rng = np.random.RandomState()
    state = random.Random(stats.BOOTSTRAP_SEED).getstate()[1]
    rng.set_state(("MT19937", np.array(state[:-1], dtype=np.uint32), state[-1], 0, 0.0))
    variant_values = np.asarray(variant_times, dtype=float)
    n_variant = len(variant_values)
    if paired and baseline_point is None:
        rounds = _indices(rng.random_sample((resamples, n_variant)), n_variant)
        variant = np.median(variant_values[rounds], axis=1)
        baseline = np.median(np.asarray(baseline_times, dtype=float)[rounds], axis=1)
    else:
        n_baseline = 0 if baseline_point is not None else len(baseline_times)
        draws = rng.random_sample((resamples, n_variant + n_baseline))
        variant = np.median(variant_values[_indices(draws[:, :n_variant], n_variant)], axis=1)
        if baseline_point is None:
            baseline_values = np.asarray(baseline_times, dtype=float)
            baseline = np.median(
                baseline_values[_indices(draws[:, n_variant:], n_baseline)], axis=1
            )
        else:
            baseline = np.full(resamples, baseline_point, dtype=float)
    return stats.percentile_ends(np.sort(baseline / variant), resamples)


def _indices(draws, n: int):
    """random.choices' index for each draw u: floor(u * n)."""
    return np.floor(draws * float(n)).astype(np.intp)
