"""Two runs' shared speed-ups side by side: how far each moved, and whether that is more than
a re-run shows (used by `make compare` and How we measure's reproducibility section, which
show them as scripts/rendering/drift_table.py writes them). Each side's speed-up is its
finding: pooled over that run's sessions, with the band where a new session should land,
widened by the guide's between-sitting spread of the pair's stratum. A drift beyond ±10%
(outcomes.NO_DIFFERENCE) is flagged, and so is a B point outside A's band, which a calibrated
band lets happen about one time in twenty. Claim speed-ups (data/claims/) are marked and
counted on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from scripts.core import outcomes
from scripts.findings.pairs import Findings

# What counts as "moved" between two runs, not a statistical test: the same 10% that a claim's
# range treats as no difference (outcomes.NO_DIFFERENCE), held in one place.
DRIFT_FLAG_PERCENT = round((outcomes.NO_DIFFERENCE - 1) * 100, 9)


@dataclass(frozen=True)
class Row:
    key: str  # "snippet:variant vs baseline"
    a: tuple[float, float, float]  # point, and the band for a new session
    b: tuple[float, float, float]
    claim: bool

    @property
    def drift_percent(self) -> float:
        return (self.b[0] / self.a[0] - 1) * 100

    @property
    def inside(self) -> bool:
        """Whether B's point lies inside A's band for a new session."""
        return self.a[1] <= self.b[0] <= self.a[2]

    @property
    def flags(self) -> list[str]:
        """Why this row is flagged, in words; empty when it is not."""
        found = []
        if abs(self.drift_percent) > DRIFT_FLAG_PERCENT:
            found.append(f"beyond ±{DRIFT_FLAG_PERCENT:g}%")
        if not self.inside:
            found.append("outside A's band")
        return found


def as_view(run: dict, spread: object = None) -> dict:
    """A run ({machine, entries}, or a view's latest entries) as one session findings can
    pool: two runs are compared as they were measured, not pooled with earlier sessions."""
    session = {"id": "run", "entries": run["entries"]}
    return {**run, "stack": run.get("stack", ""), "sessions": [session], "spread": spread}


def speedups(
    data: dict, extra: set[tuple[str, str]] = frozenset(), spread: object = None
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(variant key, baseline key) -> (point, band low, band high): every variant against its
    snippet's baseline, and the extra pairs (the claims compare other pairs too)."""
    view = as_view(data, spread if spread is not None else data.get("spread"))
    findings = Findings([view])
    entries = view["entries"]
    pairs = {
        (key, f"{entry['snippet']}:{entry['baseline']}")
        for key, entry in entries.items()
        if not entry.get("reference")
    } | set(extra)
    found = {}
    for key, base_key in pairs:
        if key not in entries or base_key not in entries or key == base_key:
            continue
        finding = findings.pair(view, base_key, key)
        if finding is not None:
            found[(key, base_key)] = (finding.point, finding.band_low, finding.band_high)
    return found


def claim_pairs(claim_list: list[dict]) -> set[tuple[str, str]]:
    return {
        (e["variant"], e["baseline"])
        for c in claim_list
        for e in c.get("evidence", [])
        if e.get("baseline_stat", "median_s") == "median_s"
    }


def compare(a: dict, b: dict, claim_list: list[dict], spread: object = None) -> list[Row]:
    """Every speed-up both runs hold; spread: the guide's between-sitting spreads, or None
    to use each run's own (a run without one has a band from its rounds only)."""
    claimed = claim_pairs(claim_list)
    ours, theirs = speedups(a, claimed, spread), speedups(b, claimed, spread)
    return [
        Row(f"{pair[0]} vs {pair[1].split(':', 1)[1]}", ours[pair], theirs[pair], pair in claimed)
        for pair in sorted(set(ours) & set(theirs))
    ]
