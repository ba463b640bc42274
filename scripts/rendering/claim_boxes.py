"""Claim boxes: each page's claims as admonitions, answer first, and the Claims page's table.

A box gives the verdict, the claim, why, then one line of what the measurements say and one
compact table per evidence item: machines by stacks, each cell a speed-up with its long-run
interval and a mark. The range, the band for a next run and the sittings are one click below.
Outcomes come from the findings stage (scripts/findings/claim_rows.py); nothing is decided here.
"""

from __future__ import annotations

from pathlib import Path

from scripts.core import outcomes
from scripts.core.catalog import ROOT
from scripts.core.claims import (
    ANALOGUE_NOTE,
    claim_order,
    expectation_words,
    short_name,
)
from scripts.findings import across_machines, claim_rows, stack_moves
from scripts.findings.claim_rows import Row
from scripts.findings.pairs import Findings
from scripts.rendering import names, stack_verdicts


def legend(views: list[dict]) -> str:
    """What the marks mean, what to do with '?', and the key to the machines' short names."""
    key = names.machine_key(views)
    return (
        '??? info "How to read the claim tables"\n\n'
        "    Each cell is a speed-up with its 95% interval for the long run on that machine. "
        "Its mark says what the interval shows:\n\n"
        "    - ✓: the interval lies inside the claim's range.\n"
        "    - ✗: it lies outside.\n"
        "    - ?: the data cannot tell yet. "
        "The advice still rests on the mechanism explained on the page. "
        "Check it on your own Mac with `make tune`.\n\n"
        "    All machines are 2-core Linux CPUs; Mac figures on the page are cited, not "
        "measured. The tables name them by these short names:\n\n"
        + "\n".join(f"    {line}" for line in key.splitlines())
        + "\n"
    )


def cell(row: Row) -> str:
    return stack_verdicts.words(row)


def evidence_table(evidence: dict, mine: list[Row], stacks: list[str]) -> list[str]:
    """Machines (rows) by stacks (columns) for one evidence item."""
    variant, baseline = (short_name(evidence[k]) for k in ("variant", "baseline"))
    head = f"{names.compared(evidence, variant, baseline)}, needs {expectation_words(evidence)}"
    if evidence.get("analogue"):
        head = f"Analogue {ANALOGUE_NOTE}: {head}"
    lines = [
        f"| {head} | " + " | ".join(names.stack(s) for s in stacks) + " |",
        "|---|" + "---|" * len(stacks),
    ]
    by_machine: dict[str, dict[str, Row]] = {}
    for row in mine:
        by_machine.setdefault(row.machine, {})[row.stack] = row
    for machine, cells in by_machine.items():
        lines.append(
            f"| {names.machine(machine)} | "
            + " | ".join(cell(cells[s]) if s in cells else "–" for s in stacks)
            + " |"
        )
    return lines


def new_machine_lines(mine: list[Row], stacks: list[str]) -> list[str]:
    """Per stack with three machines or more: what a machine not measured should expect."""
    lines = []
    for stack in stacks:
        found = [row.found for row in mine if row.stack == stack]
        summary = across_machines.summary(found)
        if summary is None:
            continue
        average = names.speedup(summary.point, summary.low, summary.high)
        lines.append(
            f"*Another machine ({names.stack(stack)}):* the {summary.machines} machines average "
            f"{average}. One not measured here should land in "
            f"{names.interval(summary.new_low, summary.new_high)} (95% prediction)."
        )
    return lines


def details(evidence: dict, mine: list[Row]) -> list[str]:
    """The collapsed part: why the range, each cell's band for a next run and its basis."""
    lines = [f"*Why this range:* {' '.join(evidence['why_range'].split())}", ""]
    if evidence.get("analogue"):
        lines += [f"*What the analogue shows:* {' '.join(evidence['shows'].split())}", ""]
    lines += [
        "| Machine | Stack | Next run lands in | Sittings (sessions) | Recorded with the claim |",
        "|---|---|---|---|---|",
    ]
    for row in mine:
        found = row.found
        band = names.speedup(found.point, found.band_low, found.band_high)
        recorded = " ".join((row.recorded or "").split()) or "–"
        lines.append(
            f"| {names.machine(row.machine)} | {names.stack(row.stack)} | {band} "
            f"| {found.sittings} ({found.sessions}) | {recorded} |"
        )
    return lines


def moves_sentence(mine: list[Row], measured: dict[str, list[str]] | None = None) -> str | None:
    """Where the claim's long-run speed-up moved from a machine's reference stack, as What
    changed between stacks lists it (scripts/findings/stack_moves.py)."""
    moved = stack_moves.moves(mine, measured)
    if not moved:
        return None
    where = sorted({names.machine(a.machine) for a, _ in moved})
    return (
        f"The speed-up differs between stacks on {', '.join(where)}: "
        "see [What changed between stacks](stack-changes.md)."
    )


def indent(lines: list[str], by: str = "    ") -> list[str]:
    return [f"{by}{line}" if line else "" for line in lines]


def claim_box(
    claim: dict, mine: list[Row], stacks: list[str], measured: dict[str, list[str]] | None = None
) -> str:
    kind = outcomes.HEADLINES[claim["verdict"]]
    lines = [f'!!! {kind} "{claim["id"]}: {claim["verdict"]}"', ""]
    body = [f"**Claim:** {' '.join(claim['claim'].split())}", ""]
    body += [f"**Verdict:** {' '.join(claim['why'].split())}", ""]
    if mine:
        body += [f"**Measured:** {claim_rows.headline_words(claim, mine)}.", ""]
        moved = moves_sentence(mine, measured)
        if moved:
            body += [moved, ""]
    for evidence in claim.get("evidence", []):
        rows_of = [row for row in mine if row.evidence is evidence]
        if not rows_of:
            continue
        body += evidence_table(evidence, rows_of, stacks) + [""]
        body += ['??? note "The range, a machine not measured, the next run and the sittings"', ""]
        for line in new_machine_lines(rows_of, stacks):
            body += indent([line, ""])
        body += indent(details(evidence, rows_of)) + [""]
    if claim.get("sources"):
        body += ["*Sources:*", ""] + [f"- {link}" for link in source_list(claim)] + [""]
    return "\n".join(lines + indent(body)).rstrip() + "\n"


def page_fragment(
    claims: list[dict],
    all_data: list[dict],
    page: str,
    root: Path = ROOT,
    stack_data: list[dict] | None = None,
    findings: Findings | None = None,
) -> str:
    """The claims of one page as admonitions, the legend first.

    stack_data: a view per (machine, stack) (results_views.stack_views); None: all_data only."""
    views = stack_data if stack_data is not None else all_data
    findings = findings or Findings(views)
    page_claims = [c for c in claims if c["page"] == page]
    found = claim_rows.rows(page_claims, findings, views, root)
    stacks = [s for s in stack_verdicts.all_stacks(views) if any(r.stack == s for r in found)]
    measured = stack_verdicts.stacks_measured(views)
    blocks = [legend(views)] if found else []
    for claim in page_claims:
        mine = [r for r in found if r.claim is claim]
        blocks.append(claim_box(claim, mine, stacks, measured))
    return "\n".join(blocks)


def source_list(claim: dict) -> list[str]:
    """Each of the claim's sources as a markdown link, one per line in its box."""
    return [f"[{s['title']}]({s['url']})" for s in claim.get("sources", [])]


def summary_table(
    claims: list[dict],
    all_data: list[dict],
    root: Path = ROOT,
    findings: Findings | None = None,
    stack_data: list[dict] | None = None,
) -> str:
    """Every claim in one table: verdict, what its measured rows say, how many sources it
    cites, page; then the cited sources, claim by claim, in a collapsed block under it (a
    list of titles does not fit a table cell)."""
    views = stack_data if stack_data is not None else all_data
    findings = findings or Findings(views)
    found = claim_rows.rows(claims, findings, views, root)
    lines = [
        "| Claim | What readers are told | Verdict | Measured | Explained on |",
        "|---|---|---|---|---|",
    ]
    cited = ['??? note "The sources each claim cites"', ""]
    for claim in sorted(claims, key=claim_order):
        mine = [r for r in found if r.claim is claim]
        evidence = [claim_rows.headline_words(claim, mine)]
        sources = source_list(claim)
        if sources:
            noun = "source" if len(sources) == 1 else "sources"
            evidence.append(f"cited: {len(sources)} {noun}, below")
            cited += [f"    - **{claim['id']}**:", *(f"        - {link}" for link in sources)]
        page = claim["page"]
        title = page.removesuffix(".md").replace("-", " ").capitalize()
        text = " ".join(claim["claim"].split())
        lines.append(
            f"| {claim['id']} | {text} | **{claim['verdict']}** "
            f"| {'<br>'.join(evidence)} | [{title}]({page}) |"
        )
    if len(cited) > 2:
        lines += ["", *cited]
    return "\n".join(lines) + "\n"
