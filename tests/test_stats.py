"""The harness statistics: quartiles, spread, the noise flag and throughput."""

import random
import statistics
import sys

import pytest

from scripts.core import bootstrap_arrays, stats


def test_odd_count_median_and_quartiles():
    summary = stats.summarize([5.0, 1.0, 3.0, 2.0, 4.0])
    assert summary["median_s"] == 3.0
    assert summary["q1_s"] == 2.0 and summary["q3_s"] == 4.0
    assert summary["min_s"] == 1.0 and summary["max_s"] == 5.0
    assert summary["rounds"] == 5


def test_even_count_interpolates():
    summary = stats.summarize([1.0, 2.0, 3.0, 4.0])
    assert summary["median_s"] == pytest.approx(2.5)
    assert summary["q1_s"] == pytest.approx(1.75)
    assert summary["q3_s"] == pytest.approx(3.25)


def test_single_timing_is_its_own_quartiles():
    summary = stats.summarize([0.5])
    assert summary["q1_s"] == summary["median_s"] == summary["q3_s"] == 0.5
    assert summary["iqr_over_median"] == 0.0 and summary["noisy"] is False


def test_noise_flag_above_ten_percent():
    steady = stats.summarize([1.00, 1.01, 1.02, 0.99, 1.00])
    noisy = stats.summarize([1.0, 1.3, 0.8, 1.1, 0.7])
    assert steady["noisy"] is False and steady["iqr_over_median"] < 0.10
    assert noisy["noisy"] is True and noisy["iqr_over_median"] > 0.10


def test_throughput_uses_the_median():
    summary = stats.summarize([0.5, 1.0, 2.0], examples_per_run=100)
    assert summary["throughput_per_s"] == pytest.approx(100.0)
    assert summary["examples_per_run"] == 100


@pytest.mark.parametrize("bad", [[], [1.0, 0.0], [-1.0]])
def test_rejects_empty_and_non_positive(bad):
    with pytest.raises(ValueError):
        stats.summarize(bad)


def test_speedup_interval_holds_the_point_and_is_reproducible():
    baseline = [1.0, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98]
    variant = [0.5, 0.52, 0.48, 0.51, 0.49, 0.5, 0.55]
    low, high = stats.speedup_interval(baseline, variant)
    point = statistics.median(baseline) / statistics.median(variant)
    assert low <= point <= high and low < high
    assert stats.speedup_interval(baseline, variant) == (low, high)  # seeded: same data, same text


def test_a_noisier_variant_widens_the_interval():
    baseline = [1.0] * 15
    steady = [0.5 + 0.001 * i for i in range(15)]
    noisy = [0.5 + 0.05 * i for i in range(15)]
    width = [
        high - low for low, high in (stats.speedup_interval(baseline, t) for t in (steady, noisy))
    ]
    assert width[0] < width[1]


def test_a_first_call_interval_varies_only_the_variant():
    variant = [0.1, 0.11, 0.09, 0.1, 0.1]
    low, high = stats.speedup_interval([], variant, baseline_point=2.0)
    assert low <= 2.0 / statistics.median(variant) <= high
    with pytest.raises(ValueError):
        stats.speedup_interval([], variant)


def test_pairing_keeps_a_shared_slow_round_out_of_the_ratio():
    """Both variants slowed alike in some rounds (machine drift): pairing those rounds keeps
    the ratio steady, where independent resampling reads the drift as a difference."""
    drift = [1.0, 1.0, 1.6, 1.0, 1.7, 1.0, 1.0, 1.5, 1.0, 1.0, 1.6, 1.0]
    baseline = [2.0 * d for d in drift]
    variant = [1.0 * d for d in drift]
    paired = stats.speedup_interval(baseline, variant, paired=True)
    independent = stats.speedup_interval(baseline, variant)
    assert paired[0] <= 2.0 <= paired[1]
    assert paired[1] - paired[0] < independent[1] - independent[0]


def test_pairing_needs_the_same_rounds():
    with pytest.raises(ValueError, match="equal rounds"):
        stats.speedup_interval([1.0, 1.1, 0.9], [0.5, 0.6], paired=True)


def entry(started, times, positions=True):
    stats_ = {"median_s": statistics.median(times), "times_s": times}
    if positions:
        stats_["round_positions"] = [0] * len(times)
    return {"method": {"run_started": started}, "stats": stats_}


def test_entries_pair_only_when_timed_in_the_same_rounds():
    times = [1.0, 1.2, 0.9, 1.1, 1.0]
    same = entry("2026-11-23T21:00:00Z", times), entry("2026-11-23T21:00:00Z", times)
    assert stats.same_rounds(*same)
    assert not stats.same_rounds(same[0], entry("2026-11-23T22:00:00Z", times))
    assert not stats.same_rounds(same[0], entry("2026-11-23T21:00:00Z", times, positions=False))
    assert not stats.same_rounds(same[0], entry("2026-11-23T21:00:00Z", times[:4]))
    point, low, high = stats.entry_speedup(*same)
    assert point == 1.0 and low == high == 1.0  # identical paired rounds: no doubt at all


@pytest.mark.parametrize("kind", ["paired", "each side apart", "against a first call"])
def test_the_numpy_bootstrap_gives_the_python_one_bit_for_bit(kind):
    """The array bootstrap must draw what random.Random(BOOTSTRAP_SEED) draws and take the
    same medians, so a page rendered with or without NumPy shows the same interval."""
    draw = random.Random(kind)
    for _ in range(40):
        n_variant = draw.randint(1, 25)
        n_baseline = n_variant if kind == "paired" else draw.randint(1, 25)
        variant = tuple(draw.lognormvariate(0, 0.3) for _ in range(n_variant))
        baseline = tuple(draw.lognormvariate(0, 0.3) for _ in range(n_baseline))
        first_call = 2.5 if kind == "against a first call" else None
        args = (baseline, variant, first_call, 500, kind == "paired")
        assert bootstrap_arrays.bootstrap(*args) == stats.bootstrap_in_python(*args), args


def test_without_numpy_the_interval_is_worked_out_in_python(monkeypatch):
    """tf-doctor.pyz may run where NumPy is not installed: the Python path answers there."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # `import numpy` now raises ImportError
    monkeypatch.delitem(sys.modules, "scripts.core.bootstrap_arrays")
    monkeypatch.delattr(sys.modules["scripts.core"], "bootstrap_arrays")
    stats._bootstrap.cache_clear()
    try:
        args = ((1.0, 1.2, 0.9, 1.1), (0.5, 0.6, 0.55, 0.7), None, 200, True)
        assert stats._bootstrap(*args) == stats.bootstrap_in_python(*args)
        monkeypatch.setattr(stats, "bootstrap_in_python", lambda *a: (0.0, 0.0))
        stats._bootstrap.cache_clear()
        assert stats._bootstrap(*args) == (0.0, 0.0)
    finally:
        stats._bootstrap.cache_clear()
