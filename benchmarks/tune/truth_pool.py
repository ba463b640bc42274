"""A planted case's truth: all its runs pooled the way the guide pools sessions (issue 37).

Each process round gives one log ratio, log(as given / arm) of the two processes' median
times per sample. A sitting's rounds (from every run of that sitting) give its mean log ratio
and the variance of that mean (their variance over their count). The sittings are the
independent units: scripts/core/pooling.pool takes one SessionRatio per sitting and gives a
t interval on the log scale, its between-sitting spread pooled from the case's own sittings
with the guide's spread for the compute stratum (the planted models work in memory) as a
prior. Each sitting also gets its own 95% interval (a t interval on its rounds' log ratios),
which the rule for "the truth does not reproduce here" reads (truth_rules.py).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from benchmarks.tune import truth_rules
from scripts.core import pooling

LEVEL = 0.95


@dataclass(frozen=True)
class Sitting:
    name: str  # sittings.sitting_of's words: "boot …" or "day 2026-11-27"
    log_ratios: tuple[float, ...]  # one per process round, in the order measured
    busy_runs: int  # runs of this sitting the load rule marks busy

    @property
    def rounds(self) -> int:
        return len(self.log_ratios)

    @property
    def point(self) -> float:
        return math.exp(statistics.fmean(self.log_ratios))

    @property
    def within(self) -> float:
        """Variance of the sitting's mean log ratio from its rounds."""
        if self.rounds < 2:
            return 0.0
        return statistics.variance(self.log_ratios) / self.rounds

    def interval(self) -> tuple[float, float] | None:
        """The sitting's own 95% t interval; None with fewer than two rounds."""
        if self.rounds < 2:
            return None
        half = pooling.t_quantile(1 - (1 - LEVEL) / 2, self.rounds - 1) * math.sqrt(self.within)
        mean = statistics.fmean(self.log_ratios)
        return math.exp(mean - half), math.exp(mean + half)


@dataclass(frozen=True)
class PooledTruth:
    sittings: tuple[Sitting, ...]
    point: float
    low: float  # the long-run 95% interval
    high: float
    basis: str  # pooling.Pooled.basis

    @property
    def rounds(self) -> int:
        return sum(s.rounds for s in self.sittings)

    @property
    def enough(self) -> bool:
        return (
            self.rounds >= truth_rules.MIN_ROUNDS and len(self.sittings) >= truth_rules.MIN_SITTINGS
        )

    @property
    def reproduces(self) -> bool:
        """No two sittings' own intervals are apart (a sitting of one round has none)."""
        found = [s.interval() for s in self.sittings]
        found = [i for i in found if i is not None]
        return all(truth_rules.overlap(a, b) for n, a in enumerate(found) for b in found[n + 1 :])


def round_log_ratios(run: dict) -> list[float]:
    """A run's per-round log ratios from its stored [as given, arm] times per sample."""
    return [math.log(base / arm) for base, arm in run["truth"]["rounds"]]


def sittings_of(runs: list[dict]) -> tuple[Sitting, ...]:
    """The runs grouped by sitting, in first-measured order."""
    groups: dict[str, list[dict]] = {}
    for run in runs:
        groups.setdefault(run["sitting"], []).append(run)
    return tuple(
        Sitting(
            name,
            tuple(r for run in found for r in round_log_ratios(run)),
            sum(truth_rules.busy(run) for run in found),
        )
        for name, found in groups.items()
    )


def pooled(runs: list[dict], spread: pooling.Spread | None) -> PooledTruth | None:
    """The case's truth over all its runs; None before any run."""
    found = tuple(s for s in sittings_of(runs) if s.rounds)
    if not found:
        return None
    ratios = [pooling.SessionRatio(s.point, s.within, s.name, s.name) for s in found]
    result = pooling.pool(ratios, spread)
    return PooledTruth(found, result.point, result.mean_low, result.mean_high, result.basis)
