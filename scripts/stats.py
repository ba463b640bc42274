"""Summary statistics of repeated timings: median, quartiles, spread and a noise flag."""

from __future__ import annotations

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
