"""A speed-up pooled over a machine's sittings: an interval for its long-run value and a band
for the reader's next run.

One session's rounds say how sure we are of that session's ratio; they say nothing of how
far the next sitting lands (another boot, day or host of the same kind). Sessions of one
sitting (scripts/core/sittings.py) agree more with each other than with the next, so only
sittings count as independent. On the log scale:

- each session gives its ratio r and the variance w of log r from a paired bootstrap of its
  rounds (`within_variance`); a sitting gives the mean of its sessions' log r, whose rounds'
  variance is their mean w over its n sessions;
- the between-sitting variance tau2 of log r is pooled within a variance stratum
  (data/variance_strata.yml) over every (machine, stack, pair) with two or more sittings
  (`between_sitting_spread`): the sittings' scatter beyond their rounds' variance, with prior
  weight PRIOR_DF against the pair's own scatter, which takes over with its own sittings;
- the point is exp(mean of the m sittings' log r); the long-run interval is
  mean +- t * sqrt((tau2 + w_sitting) / m) and the band for a new session from a new sitting
  mean +- t * sqrt(tau2 + w + (tau2 + w_sitting) / m), with Student's t at PRIOR_DF + m - 1
  degrees of freedom.

Verdicts read the long-run interval (scripts/findings); the band is what a reader's next run
should show. tests/test_interval_calibration.py checks both on synthetic timings.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass

import numpy as np

from scripts.core import sittings, software_stack, stats, variance_strata, workload

# How many sessions' worth of degrees of freedom the spread pooled over all speed-ups counts
# for against one pair's own sessions. Speed-ups differ in how much they move between
# sessions (a file-cache-bound pipeline more than a matrix product), so the pooled figure is a
# prior, not the answer: 4 lets a pair's own scatter take over once it has several sessions.
# A spread pooled from fewer degrees of freedom than that counts for only as many as it has.
PRIOR_DF = 4
LEVEL = stats.INTERVAL_LEVEL
RESAMPLES = stats.BOOTSTRAP_RESAMPLES


@dataclass(frozen=True)
class SessionRatio:
    """One session's speed-up and the variance of its log from that session's rounds."""

    point: float
    within: float  # variance of log(point) from the session's own rounds
    session: str
    sitting: str = ""  # sittings.sitting_of(session); "" counts the session as its own


@dataclass(frozen=True)
class Spread:
    """The between-sitting variance of log speed-ups in one stratum, and its basis."""

    tau2: float
    groups: int  # speed-ups (machine, stack, pair) with two or more sittings
    df: int  # their sittings less one each
    stratum: str = ""


@dataclass(frozen=True)
class Pooled:
    """A speed-up over k sessions: its point and two 95% intervals."""

    point: float
    sessions: int
    new_low: float  # the band: where a new session, in a new sitting, lands
    new_high: float
    mean_low: float  # the machine's long-run speed-up: what verdicts read
    mean_high: float
    basis: str  # "own sittings", "other pairs' sittings" (one sitting), or "rounds only"
    sittings: int = 1
    stratum: str = ""
    mean_se: float = 0.0  # standard error of log(point) for the long-run value
    df: float = math.inf  # degrees of freedom of its t quantile


def within_variance(
    baseline_times: list[float],
    variant_times: list[float],
    baseline_point: float | None = None,
    paired: bool = False,
    resamples: int = RESAMPLES,
) -> float:
    """Bootstrap variance of log(median(baseline) / median(variant)) over one session's runs.

    paired: whole rounds are resampled (both sides were timed in the same rounds); else each
    side on its own. With baseline_point (a first call) only the variant varies. Seeded, so
    the same data give the same variance, and each distinct input is worked out once (pages
    ask for the same session's speed-up from tables, claims, the CSV and the calibration).
    """
    return _within_variance(
        tuple(baseline_times), tuple(variant_times), baseline_point, paired, resamples
    )


@functools.lru_cache(maxsize=1 << 16)
def _within_variance(
    baseline_times: tuple[float, ...],
    variant_times: tuple[float, ...],
    baseline_point: float | None,
    paired: bool,
    resamples: int,
) -> float:
    rng = np.random.default_rng(stats.BOOTSTRAP_SEED)
    variant = np.asarray(variant_times, dtype=float)
    if variant.size == 0 or (baseline_point is None and not baseline_times):
        raise ValueError("within_variance() needs timings for both sides")
    picks = rng.integers(0, variant.size, size=(resamples, variant.size))
    variant_medians = np.median(variant[picks], axis=1)
    if baseline_point is not None:
        baseline_medians = np.full(resamples, float(baseline_point))
    else:
        baseline = np.asarray(baseline_times, dtype=float)
        if paired and baseline.size != variant.size:
            raise ValueError("paired timings need equal rounds")
        if not paired:
            picks = rng.integers(0, baseline.size, size=(resamples, baseline.size))
        baseline_medians = np.median(baseline[picks], axis=1)
    return float(np.var(np.log(baseline_medians / variant_medians), ddof=1))


def session_ratio(
    baseline_entry: dict,
    variant_entry: dict,
    session: str,
    baseline_stat: str = "median_s",
    sitting: str = "",
) -> SessionRatio | None:
    """One session's speed-up of variant over baseline; None without the timings it needs."""
    base, var = baseline_entry["stats"], variant_entry["stats"]
    first_call = base.get(baseline_stat) if baseline_stat != "median_s" else None
    if baseline_stat != "median_s" and not first_call:
        return None
    if not var.get("times_s") or (first_call is None and not base.get("times_s")):
        return None
    paired = first_call is None and stats.same_rounds(baseline_entry, variant_entry)
    within = within_variance(base.get("times_s") or [], var["times_s"], first_call, paired)
    point = (first_call or base["median_s"]) / var["median_s"]
    return SessionRatio(point, within, session, sitting or session)


def by_sitting(ratios: list[SessionRatio]) -> list[tuple[float, float]]:
    """(mean log r, variance of that mean from the rounds) per sitting, in first-seen order."""
    groups: dict[str, list[SessionRatio]] = {}
    for ratio in ratios:
        groups.setdefault(ratio.sitting or ratio.session, []).append(ratio)
    return [
        (
            statistics.fmean(math.log(r.point) for r in group),
            statistics.fmean(r.within for r in group) / len(group),
        )
        for group in groups.values()
    ]


def _scatter(means: list[tuple[float, float]]) -> tuple[float, float]:
    """(sample variance of the sittings' mean log ratios, their mean rounds' variance)."""
    return statistics.variance(m for m, _ in means), statistics.fmean(v for _, v in means)


def between_sitting_spread(groups: list[list[SessionRatio]], stratum: str = "") -> Spread | None:
    """Pooled between-sitting variance of log speed-ups from every group of two or more
    sittings (one group: one pair on one machine and stack); None when no group has two."""
    total, df, used = 0.0, 0, 0
    for ratios in groups:
        means = by_sitting(ratios)
        if len(means) < 2:
            continue
        scatter, within = _scatter(means)
        total += (len(means) - 1) * (scatter - within)
        df += len(means) - 1
        used += 1
    if not df:
        return None
    return Spread(max(0.0, total / df), used, df, stratum)


def t_within(x: float, df: int) -> float:
    """P(|T| < x) for Student's t with a whole number of degrees of freedom (Abramowitz and
    Stegun 26.7.3 and 26.7.4, exact)."""
    theta = math.atan(x / math.sqrt(df))
    c2, s = math.cos(theta) ** 2, math.sin(theta)
    if df % 2:
        term, total = math.cos(theta), 0.0
        for j in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * (2 * j) / (2 * j + 1)
        return (2 / math.pi) * (theta + s * total) if df > 1 else 2 * theta / math.pi
    term, total = 1.0, 0.0
    for j in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * j - 1) / (2 * j)
    return s * total


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (p > 0.5) at whole degrees of freedom, by bisection on t_within;
    the normal quantile for infinite degrees of freedom."""
    if math.isinf(df):
        return statistics.NormalDist().inv_cdf(p)
    low, high = 0.0, 1.0
    while t_within(high, int(df)) < 2 * p - 1:
        high *= 2
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if t_within(middle, int(df)) < 2 * p - 1 else (low, middle)
    return (low + high) / 2


def pool(ratios: list[SessionRatio], spread: Spread | None) -> Pooled:
    """The speed-up over the sessions given, with the long-run interval and the new-session
    band; sessions of one sitting share one between-sitting shift."""
    if not ratios:
        raise ValueError("pool() needs at least one session")
    means = by_sitting(ratios)
    m = len(means)
    centre = statistics.fmean(mean for mean, _ in means)
    sitting_within = statistics.fmean(v for _, v in means)
    session_within = statistics.fmean(r.within for r in ratios)
    prior_df = min(PRIOR_DF, spread.df) if spread is not None else 0
    prior = spread.tau2 if spread is not None else 0.0
    own_df = m - 1
    own = max(0.0, _scatter(means)[0] - sitting_within) if m > 1 else 0.0
    if prior_df + own_df:
        tau2 = (prior_df * prior + own_df * own) / (prior_df + own_df)
        t = t_quantile(1 - (1 - LEVEL) / 2, prior_df + own_df)
        basis = "own sittings" if own_df else "other pairs' sittings"
    else:
        tau2, t, basis = 0.0, t_quantile(1 - (1 - LEVEL) / 2, math.inf), "rounds only"
    mean_var = (tau2 + sitting_within) / m
    new = t * math.sqrt(tau2 + session_within + mean_var)
    mean = t * math.sqrt(mean_var)
    return Pooled(
        point=math.exp(centre),
        sessions=len(ratios),
        new_low=math.exp(centre - new),
        new_high=math.exp(centre + new),
        mean_low=math.exp(centre - mean),
        mean_high=math.exp(centre + mean),
        basis=basis,
        sittings=m,
        stratum=spread.stratum if spread is not None else "",
        mean_se=math.sqrt(mean_var),
        df=prior_df + own_df if prior_df + own_df else math.inf,
    )


def _pairs_of(view: dict) -> list[tuple[str, str]]:
    """(baseline key, variant key) for every variant against its snippet's baseline."""
    return sorted(
        (f"{e['snippet']}:{e['baseline']}", key)
        for key, e in view["entries"].items()
        if not e.get("reference") and e["variant"] != e["baseline"]
    )


def session_ratios(
    view: dict,
    baseline_key: str,
    variant_key: str,
    baseline_stat: str = "median_s",
    like: list[dict] | None = None,
) -> list[SessionRatio]:
    """The pair's speed-up in every session of the view that measured both sides on the same
    snippet versions and stack as `like` (default: the latest entries), since other versions
    measure other code."""
    like = like or [view["entries"].get(baseline_key), view["entries"].get(variant_key)]
    if any(e is None for e in like):
        return []
    same = [(workload.key(e), software_stack.name(e["software"])) for e in like]
    found = []
    for session in view["sessions"]:
        pair = [session["entries"].get(baseline_key), session["entries"].get(variant_key)]
        if any(e is None for e in pair):
            continue
        if [(workload.key(e), software_stack.name(e["software"])) for e in pair] != same:
            continue
        ratio = session_ratio(
            pair[0], pair[1], session["id"], baseline_stat, sittings.sitting_of(session)
        )
        if ratio is not None:
            found.append(ratio)
    return found


Spreads = dict[str, "Spread | None"]  # {stratum id: its between-sitting spread}


def spread_of(
    views: list[dict],
    leave_out: tuple[str, frozenset[str]] | None = None,
    strata: variance_strata.Strata | None = None,
) -> Spreads:
    """The between-sitting spread of every stratum over every view's speed-ups against their
    baselines; leave_out (machine id, session ids) drops those sessions, for held-back checks."""
    strata = strata or variance_strata.load()
    groups: dict[str, list[list[SessionRatio]]] = {s: [] for s in strata.why}
    for view in views:
        for baseline_key, variant_key in _pairs_of(view):
            ratios = session_ratios(view, baseline_key, variant_key)
            if leave_out and leave_out[0] == view["machine"]["id"]:
                ratios = [r for r in ratios if r.session not in leave_out[1]]
            groups[strata.of(baseline_key.split(":")[0])].append(ratios)
    return {stratum: between_sitting_spread(found, stratum) for stratum, found in groups.items()}


def spread_for(spreads: Spreads | None, snippet: str) -> Spread | None:
    """The spread of a snippet's stratum, or None where none is known."""
    if not spreads:
        return None
    return spreads.get(variance_strata.load().of(snippet))


def speedup(
    view: dict, baseline_key: str, variant_key: str, baseline_stat: str = "median_s"
) -> Pooled | None:
    """The pair's speed-up over all the view's sessions, widened by its stratum's spread; None
    when no session has the timings for it."""
    ratios = session_ratios(view, baseline_key, variant_key, baseline_stat)
    if not ratios:
        return None
    return pool(ratios, spread_for(view.get("spread"), baseline_key.split(":")[0]))
