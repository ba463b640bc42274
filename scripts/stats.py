"""Summary statistics of repeated timings: median, quartiles, spread and a noise flag."""

from __future__ import annotations

import random
import statistics

# A median whose interquartile range exceeds this share of it is flagged as noisy.
NOISY_IQR_OVER_MEDIAN = 0.10


def quartiles(values: list[float]) -> tuple[float, float, float]:
    """First quartile, median and third quartile (inclusive method; one value gives it thrice)."""
    if not values:
        raise ValueError("quartiles() needs at least one timing")
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def summarize(times_s: list[float], examples_per_run: int | None = None) -> dict:
    """The statistics a results entry records for one workload's timed runs (seconds)."""
    if any(t <= 0 for t in times_s):
        raise ValueError(f"timings must be positive, got {times_s}")
    q1, median, q3 = quartiles(sorted(times_s))
    spread = (q3 - q1) / median
    summary = {
        "median_s": median,
        "q1_s": q1,
        "q3_s": q3,
        "min_s": min(times_s),
        "max_s": max(times_s),
        "rounds": len(times_s),
        "iqr_over_median": spread,
        "noisy": spread > NOISY_IQR_OVER_MEDIAN,
        "times_s": list(times_s),
    }
    if examples_per_run:
        summary["examples_per_run"] = examples_per_run
        summary["throughput_per_s"] = examples_per_run / median
    return summary


# A speed-up's interval: how many bootstrap resamples, and the seed that makes renders
# byte-identical. The level is the usual 95%.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
INTERVAL_LEVEL = 0.95


def speedup_interval(
    baseline_times: list[float],
    variant_times: list[float],
    baseline_point: float | None = None,
    resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of median(baseline) / median(variant).

    Each variant's timed runs are resampled on their own: today's runs time one variant
    after another, so there are no rounds to pair. With baseline_point (a first call, timed
    once), only the variant's runs vary. The seed is fixed, so the same data always gives
    the same interval.
    """
    if not variant_times or (baseline_point is None and not baseline_times):
        raise ValueError("speedup_interval() needs timings for both sides")
    rng = random.Random(BOOTSTRAP_SEED)
    ratios = []
    for _ in range(resamples):
        variant = statistics.median(rng.choices(variant_times, k=len(variant_times)))
        if baseline_point is None:
            baseline = statistics.median(rng.choices(baseline_times, k=len(baseline_times)))
        else:
            baseline = baseline_point
        ratios.append(baseline / variant)
    ratios.sort()
    tail = (1 - INTERVAL_LEVEL) / 2
    low = ratios[int(tail * resamples)]
    high = ratios[min(resamples - 1, int((1 - tail) * resamples))]
    return low, high
