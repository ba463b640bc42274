"""Two results files' shared speed-ups side by side: how far each moved, and whether that is
noise (used by `make compare`, `make measure-quick` and How we measure's reproducibility
table). A drift beyond ±10% or intervals that do not overlap is flagged; claim speed-ups
(data/claims/) are marked and counted on their own.
"""

from __future__ import annotations

from dataclasses import dataclass

from scripts.core import claims, stats

# What counts as "moved" between two runs, not a statistical test: the same 10% that a claim's
# range treats as no difference (claims.NO_DIFFERENCE), held in one place.
DRIFT_FLAG_PERCENT = round((claims.NO_DIFFERENCE - 1) * 100, 9)


@dataclass(frozen=True)
class Row:
    key: str  # "snippet:variant vs baseline"
    a: tuple[float, float, float]  # point, low, high
    b: tuple[float, float, float]
    claim: bool

    @property
    def drift_percent(self) -> float:
        return (self.b[0] / self.a[0] - 1) * 100

    @property
    def overlap(self) -> bool:
        return self.a[1] <= self.b[2] and self.b[1] <= self.a[2]

    @property
    def flags(self) -> list[str]:
        """Why this row is flagged, in words; empty when it is not."""
        found = []
        if abs(self.drift_percent) > DRIFT_FLAG_PERCENT:
            found.append(f"beyond ±{DRIFT_FLAG_PERCENT:g}%")
        if not self.overlap:
            found.append("intervals apart")
        return found

    @property
    def flagged(self) -> bool:
        return bool(self.flags)


def speedups(
    data: dict, extra: set[tuple[str, str]] = frozenset()
) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(variant key, baseline key) -> (point, low, high): every variant against its snippet's
    baseline, and the extra pairs (the claims compare other pairs too)."""
    entries = data["entries"]
    pairs = {
        (key, f"{entry['snippet']}:{entry['baseline']}")
        for key, entry in entries.items()
        if not entry.get("reference")
    } | set(extra)
    found = {}
    for key, base_key in pairs:
        variant, baseline = entries.get(key), entries.get(base_key)
        if variant is None or baseline is None or key == base_key:
            continue
        point, low, high = stats.entry_speedup(baseline, variant)
        if low is not None:
            found[(key, base_key)] = (point, low, high)
    return found


def claim_pairs(claim_list: list[dict]) -> set[tuple[str, str]]:
    return {
        (e["variant"], e["baseline"])
        for c in claim_list
        for e in c.get("evidence", [])
        if e.get("baseline_stat", "median_s") == "median_s"
    }


def compare(a: dict, b: dict, claim_list: list[dict]) -> list[Row]:
    claimed = claim_pairs(claim_list)
    ours, theirs = speedups(a, claimed), speedups(b, claimed)
    return [
        Row(f"{pair[0]} vs {pair[1].split(':', 1)[1]}", ours[pair], theirs[pair], pair in claimed)
        for pair in sorted(set(ours) & set(theirs))
    ]


def table(rows: list[Row], a_name: str, b_name: str) -> str:
    def cell(value: tuple[float, float, float]) -> str:
        return f"{value[0]:.2f}× ({value[1]:.2f}–{value[2]:.2f})"

    lines = [
        f"| Speed-up | Claim | A: {a_name} | B: {b_name} | Drift B vs A | Flag |",
        "|---|---|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row.key}` | {'yes' if row.claim else ''} | {cell(row.a)} | {cell(row.b)} "
            f"| {row.drift_percent:+.1f}% | {', '.join(row.flags)} |"
        )
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> str:
    claimed = [r for r in rows if r.claim]
    moved = [r for r in rows if abs(r.drift_percent) > DRIFT_FLAG_PERCENT]
    moved_claims = [r for r in claimed if abs(r.drift_percent) > DRIFT_FLAG_PERCENT]
    apart = [r for r in rows if not r.overlap]
    return (
        f"{len(rows)} shared speed-ups: {len(moved)} drift more than ±{DRIFT_FLAG_PERCENT:g}% "
        f"and {len(apart)} have intervals that do not overlap. Claim speed-ups: "
        f"{len(moved_claims)} of {len(claimed)} drift more than ±{DRIFT_FLAG_PERCENT:g}%."
    )


def versus_the_guide(mine: dict, guide: list[dict], claim_list: list[dict] | None = None) -> str:
    """Each claim's speed-up on this machine next to every committed machine's, with intervals
    (what `make measure-quick` ends with: a reader's own picture in a couple of minutes)."""
    claim_list = claim_list if claim_list is not None else claims.load()
    others = [d for d in guide if d["machine"]["id"] != mine["machine"]["id"]]
    names = " | ".join(d["machine"]["description"] for d in others)
    lines = [
        f"Your machine ({mine['machine']['description']}) vs the guide's: claim speed-ups, "
        "95% intervals. Quick runs use small sizes; the guide's are full size, so compare "
        "directions and rough sizes, not decimals.",
        "",
        f"| Claim | Speed-up | This machine | {names} |",
        "|---|---|---|" + "---|" * len(others),
    ]
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            cells = [claims.found_words(data, evidence) or "–" for data in (mine, *others)]
            if cells[0] == "–":
                continue
            variant, baseline = (claims.short_name(evidence[k]) for k in ("variant", "baseline"))
            pair = f"{variant} vs {baseline}"
            lines.append(f"| {claim['id']} | `{pair}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
