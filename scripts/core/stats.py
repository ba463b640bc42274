"""Summary statistics of repeated timings: median, quartiles, spread and a noise flag."""

from __future__ import annotations

import functools
import random
import statistics
from collections.abc import Sequence

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


def add_flops(summary: dict, flops_per_run: float) -> None:
    """Record a run's FLOP count and the rate it gives at the summary's median."""
    summary["flops_per_run"] = float(flops_per_run)
    summary["gflops_per_s"] = flops_per_run / summary["median_s"] / 1e9


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
    paired: bool = False,
) -> tuple[float, float]:
    """95% percentile-bootstrap interval of median(baseline) / median(variant).

    paired: the two lists are timings of the same rounds (interleaved measuring, one run of
    each variant per round), so whole rounds are resampled and a slow round weighs on both
    sides. Otherwise each side's runs are resampled on their own (older entries, timed one
    variant after another). With baseline_point (a first call), only the variant varies.
    The seed is fixed, so the same data always gives the same interval.
    """
    if not variant_times or (baseline_point is None and not baseline_times):
        raise ValueError("speedup_interval() needs timings for both sides")
    if paired and len(baseline_times) != len(variant_times):
        raise ValueError(
            f"paired timings need equal rounds, got {len(baseline_times)} and {len(variant_times)}"
        )
    return _bootstrap(
        tuple(baseline_times), tuple(variant_times), baseline_point, resamples, paired
    )


@functools.lru_cache(maxsize=1 << 14)
def _bootstrap(
    baseline_times: tuple[float, ...],
    variant_times: tuple[float, ...],
    baseline_point: float | None,
    resamples: int,
    paired: bool,
) -> tuple[float, float]:
    """speedup_interval's resampling, worked out once per distinct input (a render asks for
    the same interval from several pages). With NumPy it runs as arrays over the very same
    random draws (bootstrap_arrays.py); the archive without NumPy runs it in Python."""
    data = (baseline_times, variant_times, baseline_point, resamples, paired)
    try:  # tf-doctor.pyz bundles neither NumPy nor the module that uses it
        from scripts.core import bootstrap_arrays
    except ImportError:
        return bootstrap_in_python(*data)
    return bootstrap_arrays.bootstrap(*data)


def percentile_ends(ratios: Sequence[float], resamples: int) -> tuple[float, float]:
    """The 95% interval's ends from the sorted resampled ratios (a list, or an array)."""
    tail = (1 - INTERVAL_LEVEL) / 2
    low = ratios[int(tail * resamples)]
    high = ratios[min(resamples - 1, int((1 - tail) * resamples))]
    return float(low), float(high)


def bootstrap_in_python(
    baseline_times, variant_times, baseline_point, resamples: int, paired: bool
) -> tuple[float, float]:
    """The resampling as written first: random.Random(BOOTSTRAP_SEED), choices, median."""
    rng = random.Random(BOOTSTRAP_SEED)
    ratios = []
    for _ in range(resamples):
        if paired and baseline_point is None:
            rounds = rng.choices(range(len(variant_times)), k=len(variant_times))
            variant = statistics.median(variant_times[i] for i in rounds)
            baseline = statistics.median(baseline_times[i] for i in rounds)
        else:
            variant = statistics.median(rng.choices(variant_times, k=len(variant_times)))
            if baseline_point is None:
                baseline = statistics.median(rng.choices(baseline_times, k=len(baseline_times)))
            else:
                baseline = baseline_point
        ratios.append(baseline / variant)
    ratios.sort()
    return percentile_ends(ratios, resamples)


def same_rounds(baseline_entry: dict, variant_entry: dict) -> bool:
    """True when two entries were timed in the same interleaved rounds, so can be paired."""
    a, b = baseline_entry["stats"], variant_entry["stats"]
    started = baseline_entry["method"].get("run_started")
    return (
        started is not None
        and started == variant_entry["method"].get("run_started")
        and "round_positions" in a
        and "round_positions" in b
        and len(a.get("times_s") or ()) == len(b.get("times_s") or ()) > 0
    )


def entry_speedup(
    baseline_entry: dict, variant_entry: dict, baseline_stat: str = "median_s"
) -> tuple[float, float | None, float | None]:
    """(point, low, high) of baseline / variant; low and high are None without timings.

    The one place a speed-up between two results entries is worked out: the tables, the
    claims, make compare and the intervals stored in results files all call it.
    """
    base, var = baseline_entry["stats"], variant_entry["stats"]
    point = base[baseline_stat] / var["median_s"]
    first_call = base[baseline_stat] if baseline_stat != "median_s" else None
    if not var.get("times_s") or (first_call is None and not base.get("times_s")):
        return point, None, None
    paired = first_call is None and same_rounds(baseline_entry, variant_entry)
    low, high = speedup_interval(
        base.get("times_s") or [], var["times_s"], first_call, paired=paired
    )
    return point, low, high


def baseline_speedup(entries: dict, entry: dict) -> tuple[float, float | None, float | None] | None:
    """The entry against its snippet's baseline in the same file (entry_speedup); None for
    the baseline itself, a reference variant, or a baseline that was not measured."""
    base = entries.get(f"{entry['snippet']}:{entry['baseline']}")
    if base is None or base is entry or entry.get("reference"):
        return None
    return entry_speedup(base, entry)
