"""The harness statistics: quartiles, spread, the noise flag and throughput."""

import pytest

from scripts import stats


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
