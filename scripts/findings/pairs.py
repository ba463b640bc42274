"""One finding per (machine, stack, pair): the speed-up, its long-run interval, the band for a
new session, what they rest on, and the direction the long-run interval shows."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scripts.core import outcomes, pooling, stats


@dataclass(frozen=True)
class Finding:
    """A speed-up of one variant over its baseline on one machine and stack."""

    machine: str
    stack: str
    baseline: str  # entry key, "topic/snippet:variant"
    variant: str
    stat: str  # "median_s", or "first_call_s" for a first call against the warmed-up median
    point: float
    low: float  # 95% interval for the machine's long-run speed-up: what verdicts read
    high: float
    band_low: float  # 95% band for a new session in a new sitting: what a re-run shows
    band_high: float
    sessions: int
    sittings: int
    stratum: str  # data/variance_strata.yml
    basis: str  # "own sittings", "other pairs' sittings" or "rounds only"
    se: float  # standard error of log(point) for the long-run value
    df: float

    @property
    def direction(self) -> str:
        return outcomes.direction(self.low, self.high)

    def outcome(self, evidence: dict) -> str:
        """What the long-run interval says of a claim evidence item's range."""
        return outcomes.row_outcome(
            evidence.get("at_least", -math.inf),
            evidence.get("below", math.inf),
            self.low,
            self.high,
        )


class Findings:
    """The findings of a set of views (results_views.stack_views or unchecked_views), each
    worked out once and kept, keyed by machine, stack and pair."""

    def __init__(self, views: list[dict]):
        self._views = {(v["machine"]["id"], v.get("stack", "")): v for v in views}
        self._found: dict[tuple, Finding | None] = {}

    def views(self) -> list[dict]:
        return list(self._views.values())

    def pair(
        self, view: dict, baseline_key: str, variant_key: str, stat: str = "median_s"
    ) -> Finding | None:
        """The finding for one pair in one view; None where no session has its timings."""
        machine, stack = view["machine"]["id"], view.get("stack", "")
        key = (machine, stack, baseline_key, variant_key, stat)
        if key not in self._found:
            source = self._views.get((machine, stack), view)
            pooled = pooling.speedup(source, baseline_key, variant_key, stat)
            self._found[key] = None if pooled is None else _finding(key, pooled)
        return self._found[key]


def _finding(key: tuple, pooled: pooling.Pooled) -> Finding:
    machine, stack, baseline, variant, stat = key
    return Finding(
        machine=machine,
        stack=stack,
        baseline=baseline,
        variant=variant,
        stat=stat,
        point=pooled.point,
        low=pooled.mean_low,
        high=pooled.mean_high,
        band_low=pooled.new_low,
        band_high=pooled.new_high,
        sessions=pooled.sessions,
        sittings=pooled.sittings,
        stratum=pooled.stratum,
        basis=pooled.basis,
        se=pooled.mean_se,
        df=pooled.df,
    )


def session_speedup(entries: dict, entry: dict) -> tuple[float, float | None, float | None]:
    """One session's own speed-up of an entry against its snippet's baseline, with the round
    interval (what the results file stores as `speedup`); (None, None, None) without one."""
    return stats.baseline_speedup(entries, entry) or (None, None, None)
