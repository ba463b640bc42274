"""tune's intervals widened by the guide's between-sitting spread (scripts/tuning/widening.py,
issue 37): known answers on given timings, the verdict read from the widened interval, the
report saying which it does, and data/tune_spread.json equal to what the results give."""

from __future__ import annotations

import json
import math
import random

import pytest

from scripts.tuning import analysis, report, widening

SPREAD = {"tau2": 0.01, "df": 4, "t": 2.7764451}


def test_the_widened_intervals_are_the_guides_one_sitting_pool():
    low, high, new_low, new_high = widening.widened(2.0, 0.0025, SPREAD)
    mean = 2.7764451 * math.sqrt(0.01 + 0.0025)
    new = 2.7764451 * math.sqrt(2 * (0.01 + 0.0025))
    assert (low, high) == pytest.approx((2.0 * math.exp(-mean), 2.0 * math.exp(mean)))
    assert (new_low, new_high) == pytest.approx((2.0 * math.exp(-new), 2.0 * math.exp(new)))
    assert widening.widened(2.0, 0.0025, None) is None


def test_the_within_variance_is_a_seeded_paired_bootstrap_of_the_log_ratio():
    base = [1.0, 1.1, 0.9, 1.05, 0.95]
    assert widening.within_variance(base, [b / 2 for b in base], paired=True) == 0.0
    arm = [0.5, 0.6, 0.45, 0.52, 0.48]
    first = widening.within_variance(base, arm, paired=True)
    assert first > 0 and first == widening.within_variance(base, arm, paired=True)


def arms(gain: float, noise: float = 0.01) -> dict:
    rng = random.Random(1)
    times = [1.0 * (1 + rng.uniform(-noise, noise)) for _ in range(10)]
    return {
        "as_given": {"times_s": times, "samples_per_run": 10},
        "in_memory": {"times_s": [t / gain for t in times[::-1]], "samples_per_run": 10},
        "prefetch": {"times_s": [t / 1.0 for t in times], "samples_per_run": 10},
    }


FACTS = {
    "data_kind": "dataset",
    "prefetched": False,
    "batch_size": 32,
    "pipeline": {
        "stages": [{"stage": "TFRecord", "python": False}, {"stage": "batch", "python": False}]
    },
}


def test_a_gain_the_rounds_call_clear_is_no_clear_difference_once_widened():
    measured = {"arms": arms(1.10)}
    narrow = analysis.rows_for("input", measured, FACTS)[0]
    assert narrow.verdict == analysis.FASTER and narrow.new_low is None
    spreads = {"files": {"tau2": 0.02, "df": 4, "t": 2.7764451}}
    wide = analysis.rows_for("input", measured, FACTS, spreads)[0]
    assert (wide.round_low, wide.round_high) == (narrow.low, narrow.high)
    assert wide.low < narrow.low and wide.high > narrow.high
    assert wide.new_low < wide.low and wide.new_high > wide.high
    assert wide.verdict == analysis.NO_CLEAR  # decided on the long-run interval
    other = analysis.rows_for("input", measured, FACTS, {"compute": spreads["files"]})[0]
    assert other.new_low is None  # a pipeline that reads files takes the files stratum only


@pytest.mark.parametrize(
    "experiment, facts, stratum",
    [
        ("input", FACTS, "files"),
        ("input", {"pipeline": {"stages": [{"stage": "from_generator"}]}}, "compute"),
        ("input", {"pipeline": {"error": "cannot serialise"}}, "files"),
        ("input", {"data_kind": "arrays"}, "compute"),
        ("threads", FACTS, "compute"),
    ],
)
def test_an_experiment_takes_the_stratum_of_what_it_times(experiment, facts, stratum):
    assert widening.stratum_of(experiment, facts) == stratum


def test_the_report_shows_where_a_next_run_lands_and_says_so():
    measured = {"arms": arms(2.0)}
    spreads = {"files": SPREAD}
    rows = [r.as_dict() for r in analysis.rows_for("input", measured, FACTS, spreads)]
    text = report.table(rows)
    assert "next run" in text and report.next_run(rows[0]) in text
    assert "widened by the spread between sittings" in text
    plain = report.table([r.as_dict() for r in analysis.rows_for("input", measured, FACTS)])
    assert "next run" not in plain


def test_a_spread_file_with_a_bad_figure_is_refused(tmp_path):
    path = tmp_path / "tune_spread.json"
    path.write_text(json.dumps({"strata": {"compute": {"tau2": -1, "df": 4, "t": 2.0}}}))
    with pytest.raises(ValueError, match="strata.compute: tau2 and t"):
        widening.load(path)
    assert widening.load(tmp_path / "missing.json") == {}


def test_the_committed_spread_file_is_what_the_committed_results_give():
    from benchmarks.tune import tune_spread

    assert json.loads(widening.SPREAD_JSON.read_text(encoding="utf-8")) == json.loads(
        json.dumps(tune_spread.spreads())
    )
