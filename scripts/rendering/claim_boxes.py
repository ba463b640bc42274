"""Claim boxes: each page's claims as admonitions and the Claims page's table, with each
machine's evidence read against its range (the verdict logic is scripts/core/claims.py)."""

from __future__ import annotations

from pathlib import Path

from scripts.core.catalog import ROOT
from scripts.core.claims import (
    ANALOGUE_NOTE,
    CONTRADICTED,
    VERDICTS,
    claim_order,
    compared,
    contradiction_recorded,
    expectation_words,
    found_words,
    pooled,
    sessions_words,
    short_name,
    speedup,
    status,
)


def page_fragment(claims: list[dict], all_data: list[dict], page: str, root: Path = ROOT) -> str:
    """The claims of one page as admonitions, each with its measured evidence per machine."""
    blocks = []
    for claim in (c for c in claims if c["page"] == page):
        kind = VERDICTS[claim["verdict"]]
        lines = [f'!!! {kind} "{claim["id"]}: {claim["verdict"]}"', ""]
        lines.append(f"    **Claim:** {claim['claim'].strip()}")
        lines += ["", f"    **Verdict:** {claim['why'].strip()}"]
        if claim.get("sources"):
            lines += ["", f"    *Sources:* {source_links(claim)}"]
        for evidence in claim.get("evidence", []):
            variant, baseline = (short_name(evidence[k]) for k in ("variant", "baseline"))
            shown = False
            for data in all_data:
                ratio = speedup(data, evidence, root)
                if ratio is None:
                    continue
                shown = True
                lines += [
                    "",
                    f"    {evidence_label(evidence, data)} "
                    f"{compared(evidence, variant, baseline)}: "
                    f"{measured_words(data, evidence, ratio, root)}.",
                ]
            if shown and evidence.get("analogue"):
                lines += ["", f"    *What the analogue shows:* {evidence['shows'].strip()}"]
            if shown:
                lines += ["", f"    *Why this range:* {' '.join(evidence['why_range'].split())}"]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def measured_words(data: dict, evidence: dict, ratio: float, root: Path = ROOT) -> str:
    """'0.15× (95% interval for a new session 0.14–0.16; 3 sessions): supported (the verdict
    needs below 0.50×)', with what the claim's file records where the data contradict it."""
    needs = "its range:" if evidence.get("analogue") else "the verdict needs"
    found = pooled(data, evidence, root)
    if found is None:
        return f"{ratio:.2f}× ({needs} {expectation_words(evidence)})"
    bounds = (found.new_low, found.new_high)
    verdict = status(evidence, bounds)
    words = (
        f"{found.point:.2f}× (95% interval for a new session {bounds[0]:.2f}–{bounds[1]:.2f}; "
        f"{sessions_words(found)}): **{verdict}** ({needs} {expectation_words(evidence)})"
    )
    recorded = contradiction_recorded(evidence, data["machine"]["id"])
    if verdict == CONTRADICTED and recorded:
        words += f". *Recorded with the claim:* {' '.join(recorded.split())}"
    return words


def evidence_label(evidence: dict, data: dict) -> str:
    """'*Measured on M:*', or for an analogue '*Analogue measured on M (not a test ...):*'."""
    machine = data["machine"]["description"]
    if evidence.get("analogue"):
        return f"*Analogue measured on {machine} {ANALOGUE_NOTE}:*"
    return f"*Measured on {machine}:*"


def source_links(claim: dict) -> str:
    return "; ".join(f"[{s['title']}]({s['url']})" for s in claim.get("sources", []))


def summary_table(claims: list[dict], all_data: list[dict], root: Path = ROOT) -> str:
    """Every claim in one table: verdict, measured evidence per machine or sources, page."""
    lines = [
        "| Claim | What readers are told | Verdict | Evidence | Explained on |",
        "|---|---|---|---|---|",
    ]
    for claim in sorted(claims, key=claim_order):
        evidence = []
        for item in claim.get("evidence", []):
            variant, baseline = (short_name(item[k]) for k in ("variant", "baseline"))
            for data in all_data:
                found = found_words(data, item, root)
                if found is None:
                    continue
                if item.get("analogue"):
                    evidence.append(
                        f"{evidence_label(item, data)} {compared(item, variant, baseline)} {found}"
                    )
                else:
                    evidence.append(
                        f"measured: {compared(item, variant, baseline)} {found} on "
                        f"{data['machine']['description']}"
                    )
        if claim.get("sources"):
            evidence.append("cited: " + source_links(claim))
        page = claim["page"]
        title = page.removesuffix(".md").replace("-", " ").capitalize()
        text = " ".join(claim["claim"].split())
        lines.append(
            f"| {claim['id']} | {text} | **{claim['verdict']}** "
            f"| {'<br>'.join(evidence) or 'explained on the page'} | [{title}]({page}) |"
        )
    return "\n".join(lines) + "\n"
