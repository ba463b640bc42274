"""The pooled interval (scripts/core/pooling.py) covers what it says, on timings with a known truth.

Synthetic sessions of a baseline and a variant: lognormal noise on every run, a factor per
round shared by both sides, a slow drift over the run, occasional outliers (a run 1.5 to 3
times slower), and a shift of the speed-up per session whose size differs from pair to pair.
The spread between sessions is estimated from 40 other pairs with three sessions each, as
the pages estimate it from the machines with several sessions. At 5, 10 and 30 rounds and
1, 2 and 4 sessions, the nominal 95% must cover at least 93%: the interval for a new session
covers a fresh session's speed-up, the long-run interval covers the true speed-up.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from scripts.core import pooling, stats

REPLICATES = 600
RESAMPLES = 500  # per session's bootstrap; 2000 on the pages
REQUIRED = 0.93


def simulated_session(rng, true_log: float, tau: float, sigma: float, rounds: int):
    """(baseline times, variant times) of one session, timed in paired rounds."""
    shift = rng.normal(0, tau)
    shared = np.exp(rng.normal(0, 0.05, rounds))
    drift = 1 + rng.uniform(0, 0.1) * np.arange(rounds) / rounds

    def side(level: float) -> np.ndarray:
        noise = np.exp(rng.normal(0, sigma, rounds))
        outliers = np.where(rng.random(rounds) < 0.03, rng.uniform(1.5, 3, rounds), 1.0)
        return level * shared * drift * noise * outliers

    return side(0.1), side(0.1 / math.exp(true_log + shift))


def draw_pair(rng) -> tuple[float, float, float]:
    """A pair's true log speed-up, between-session spread and per-run noise."""
    return rng.normal(0.3, 0.5), math.exp(rng.normal(math.log(0.04), 0.8)), rng.uniform(0.02, 0.15)


def ratio(times: tuple, name: str) -> pooling.SessionRatio:
    baseline, variant = times
    within = pooling.within_variance(
        list(baseline), list(variant), paired=True, resamples=RESAMPLES
    )
    return pooling.SessionRatio(float(np.median(baseline) / np.median(variant)), within, name)


def coverage(rounds: int, sessions: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    others = []
    for _ in range(40):
        true, tau, sigma = draw_pair(rng)
        others.append(
            [ratio(simulated_session(rng, true, tau, sigma, 10), f"s{i}") for i in range(3)]
        )
    spread = pooling.between_session_spread(others)
    new_hits = mean_hits = 0
    for _ in range(REPLICATES):
        true, tau, sigma = draw_pair(rng)
        kept = [
            ratio(simulated_session(rng, true, tau, sigma, rounds), f"s{i}")
            for i in range(sessions)
        ]
        pooled = pooling.pool(kept, spread)
        fresh = ratio(simulated_session(rng, true, tau, sigma, rounds), "next").point
        new_hits += pooled.new_low <= fresh <= pooled.new_high
        mean_hits += pooled.mean_low <= math.exp(true) <= pooled.mean_high
    return new_hits / REPLICATES, mean_hits / REPLICATES


@pytest.mark.parametrize("rounds", [5, 10, 30])
@pytest.mark.parametrize("sessions", [1, 2, 4])
def test_the_nominal_95_percent_covers_at_least_93(rounds, sessions):
    new, mean = coverage(rounds, sessions, seed=rounds * 10 + sessions)
    assert new >= REQUIRED, f"new-session interval covered {new:.1%} of fresh sessions"
    assert mean >= REQUIRED, f"long-run interval covered {mean:.1%} of true speed-ups"


def test_one_sessions_rounds_alone_cover_far_less_of_the_next_session():
    """The single-run interval the pages showed before: it describes that run, so once
    sessions move, it misses the next session's speed-up far more often than 5%."""
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(300):
        true, tau, sigma = draw_pair(rng)
        baseline, variant = simulated_session(rng, true, tau, sigma, 30)
        low, high = stats.speedup_interval(
            list(baseline), list(variant), paired=True, resamples=500
        )
        fresh = ratio(simulated_session(rng, true, tau, sigma, 30), "next").point
        hits += low <= fresh <= high
    assert hits / 300 < 0.85


def test_the_round_bootstrap_agrees_with_scipys_on_the_same_data():
    """stats.speedup_interval (paired percentile bootstrap of the ratio of medians) against
    scipy.stats.bootstrap with the same statistic and method, on one synthetic session."""
    rng = np.random.default_rng(3)
    baseline, variant = simulated_session(rng, 0.4, 0.0, 0.08, 30)
    ours = stats.speedup_interval(list(baseline), list(variant), paired=True)
    theirs = scipy_stats.bootstrap(
        (baseline, variant),
        lambda b, v, axis: np.median(b, axis=axis) / np.median(v, axis=axis),
        paired=True, vectorized=True, method="percentile", n_resamples=20000,
        random_state=np.random.default_rng(0),
    ).confidence_interval  # fmt: skip
    point = np.median(baseline) / np.median(variant)
    for mine, scipys in zip(ours, (theirs.low, theirs.high), strict=True):
        assert abs(math.log(mine / scipys)) < 0.02 * math.log(point), (ours, theirs)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 10, 30, 200])
def test_t_quantile_matches_scipy(df):
    assert pooling.t_quantile(0.975, df) == pytest.approx(scipy_stats.t.ppf(0.975, df), rel=1e-9)


def test_without_other_sessions_one_session_rests_on_its_rounds_and_says_so():
    single = [pooling.SessionRatio(1.5, 0.0004, "a")]
    pooled = pooling.pool(single, None)
    assert pooled.basis == "rounds only" and pooled.point == pytest.approx(1.5)
    widened = pooling.pool(single, pooling.Spread(tau2=0.01, groups=3, df=6))
    assert widened.basis == "other machines' sessions"
    assert widened.new_high / widened.new_low > pooled.new_high / pooled.new_low


def test_between_session_spread_needs_two_sessions_and_never_goes_negative():
    one = [[pooling.SessionRatio(1.2, 0.01, "a")]]
    assert pooling.between_session_spread(one) is None
    tight = [[pooling.SessionRatio(1.2, 0.01, "a"), pooling.SessionRatio(1.21, 0.01, "b")]]
    assert pooling.between_session_spread(tight).tau2 == 0.0
    apart = [[pooling.SessionRatio(1.0, 0.0001, "a"), pooling.SessionRatio(2.0, 0.0001, "b")]]
    assert pooling.between_session_spread(apart).tau2 == pytest.approx(
        np.var(np.log([1.0, 2.0]), ddof=1) - 0.0001
    )
