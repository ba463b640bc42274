"""What `make measure-quick` ends with: this machine's claim speed-ups beside the guide's
machines', as a Markdown table. The speed-ups are the findings' (scripts/findings/claim_rows.py)."""

from __future__ import annotations

from scripts.core import claims
from scripts.findings import claim_rows
from scripts.findings.pairs import Findings


def versus_the_guide(mine: dict, guide: list[dict], claim_list: list[dict] | None = None) -> str:
    """Each claim's speed-up on this machine next to every committed machine's, with intervals
    (what `make measure-quick` ends with: a reader's own picture in a couple of minutes)."""
    claim_list = claim_list if claim_list is not None else claims.load()
    others = [d for d in guide if d["machine"]["id"] != mine["machine"]["id"]]
    names = " | ".join(d["machine"]["description"] for d in others)
    lines = [
        f"Your machine ({mine['machine']['description']}) vs the guide's: claim speed-ups, "
        "each with its 95% band for a new session. Quick runs use small sizes; the guide's are "
        "full size, so compare directions and rough sizes, not decimals.",
        "",
        f"| Claim | Speed-up | This machine | {names} |",
        "|---|---|---|" + "---|" * len(others),
    ]
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            cells = [found_words(data, evidence) for data in (mine, *others)]
            if cells[0] == "–":
                continue
            variant, baseline = (claims.short_name(evidence[k]) for k in ("variant", "baseline"))
            pair = f"{variant} vs {baseline}"
            lines.append(f"| {claim['id']} | `{pair}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def found_words(data: dict, evidence: dict) -> str:
    """'1.21× (1.15–1.90)': an evidence item's speed-up pooled over a view's sessions with
    its band for a new session, or '–'."""
    found = claim_rows.evidence_finding(Findings([data]), data, evidence)
    if found is None:
        return "–"
    return f"{found.point:.2f}× ({found.band_low:.2f}–{found.band_high:.2f})"
