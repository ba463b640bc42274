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
from scripts.rendering import stack_verdicts


def page_fragment(
    claims: list[dict],
    all_data: list[dict],
    page: str,
    root: Path = ROOT,
    stack_data: list[dict] | None = None,
) -> str:
    """The claims of one page as admonitions, each with its measured evidence per machine and,
    when the results hold more than one stack, per (machine, stack), named in each row.

    stack_data: a view per (machine, stack) (store.stack_views); None: all_data only."""
    by_stack = stack_data is not None and stack_verdicts.several_stacks(stack_data)
    rows_data = stack_data if by_stack else all_data
    blocks = []
    for claim in (c for c in claims if c["page"] == page):
        kind = VERDICTS[claim["verdict"]]
        lines = [f'!!! {kind} "{claim["id"]}: {claim["verdict"]}"', ""]
        if by_stack:
            differs = differs_sentence(stack_verdicts.figures([claim], rows_data, root))
            if differs:
                lines += [f"    {differs}", ""]
        lines.append(f"    **Claim:** {claim['claim'].strip()}")
        lines += ["", f"    **Verdict:** {claim['why'].strip()}"]
        if claim.get("sources"):
            lines += ["", f"    *Sources:* {source_links(claim)}"]
        for evidence in claim.get("evidence", []):
            variant, baseline = (short_name(evidence[k]) for k in ("variant", "baseline"))
            shown = False
            for data in rows_data:
                ratio = speedup(data, evidence, root)
                if ratio is None:
                    continue
                shown = True
                lines += [
                    "",
                    f"    {evidence_label(evidence, data, by_stack)} "
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


def listed(parts: list[str]) -> str:
    """'A but B' for two verdicts, 'A, B and C' for more (one 'but' reads as a contrast of two)."""
    if len(parts) <= 2:
        return " but ".join(parts)
    return f"{', '.join(parts[:-1])} and {parts[-1]}"


def differs_sentence(figures: list[stack_verdicts.Figure]) -> str | None:
    """One sentence naming each machine where one claim's verdict differs between stacks,
    or None where the stacks agree (or only one is measured)."""
    parts = []
    for group in stack_verdicts.grouped(figures).values():
        if len({figure.verdict for figure in group}) < 2:
            continue
        first = group[0]
        variant, baseline = (short_name(first.evidence[k]) for k in ("variant", "baseline"))
        verdicts = listed(
            [f"{figure.verdict} on {stack_verdicts.stack_link(figure.stack)}" for figure in group]
        )
        parts.append(
            f"on {first.description}, {compared(first.evidence, variant, baseline)} is {verdicts}"
        )
    if not parts:
        return None
    return f"**The verdict differs between stacks:** {'; '.join(parts)}."


def evidence_label(evidence: dict, data: dict, with_stack: bool = False) -> str:
    """'*Measured on M:*', or for an analogue '*Analogue measured on M (not a test ...):*';
    with_stack: the row names its stack, linked to the stack's verdicts."""
    machine = data["machine"]["description"]
    if with_stack:
        machine += f", stack {stack_verdicts.stack_link(data['stack'])}"
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
