"""The Results page's stacks: a machine × stack matrix of sessions, and a section per stack
(anchor `#stack-<id>`, which tune's report links to) listing that stack's verdict per claim."""

from __future__ import annotations

from pathlib import Path

from scripts.core import measured_stacks
from scripts.core.catalog import ROOT
from scripts.core.claims import claim_order, compared, short_name
from scripts.findings import noisy as noisy_rule
from scripts.findings.pairs import Findings
from scripts.rendering import stack_verdicts

MATRIX_OUTPUT = "results/stacks.md"
VERDICTS_OUTPUT = "results/stack-verdicts.md"


def anchor(stack: str) -> str:
    """The id of a stack's section on the Results page: 'stack-tf216-tf-keras'."""
    return f"stack-{stack}"


def matrix(stack_data: list[dict]) -> str:
    """One row per machine, one column per stack: its sessions and the date of the latest."""
    stacks = stack_verdicts.all_stacks(stack_data)
    header = "| Machine | " + " | ".join(f"[`{s}`](#{anchor(s)})" for s in stacks) + " |"
    lines = [header, "|---|" + "---|" * len(stacks)]
    machines: dict[str, tuple[str, dict[str, list[dict]]]] = {}
    for data in stack_data:
        description, cells = machines.setdefault(
            data["machine"]["id"], (data["machine"]["description"], {})
        )
        cells[data["stack"]] = data["sessions"]
    for description, cells in machines.values():
        lines.append(
            f"| {description} | " + " | ".join(cell(cells.get(s, [])) for s in stacks) + " |"
        )
    return "\n".join(lines) + "\n"


def cell(sessions: list[dict]) -> str:
    """'3 sessions (2 unusually noisy), latest 2026-11-27', or 'not measured'."""
    if not sessions:
        return "not measured"
    count = len(sessions)
    latest = max(session["id"] for session in sessions)[:10]
    marked = len(noisy_rule.unusual_sessions(sessions))
    noisy = f" ({marked} unusually noisy)" if marked else ""
    return f"{count} session{'s' if count != 1 else ''}{noisy}, latest {latest}"


def verdicts(
    claim_list: list[dict],
    stack_data: list[dict],
    root: Path = ROOT,
    findings: Findings | None = None,
) -> str:
    """A section per stack: its title and why the guide measures it, then each claim's
    speed-up and verdict on every machine measured with it."""
    found = stack_verdicts.figures(sorted(claim_list, key=claim_order), stack_data, root, findings)
    listed = {stack.id: stack for stack in measured_stacks.load()}
    sections = []
    for stack in stack_verdicts.all_stacks(stack_data):
        title = stack_verdicts.stack_title(stack)
        lines = [f"### `{stack}`: {title} {{#{anchor(stack)}}}", ""]
        if stack in listed:
            lines += [f"Why the guide measures it: {listed[stack].why}.", ""]
        mine = [figure for figure in found if figure.stack == stack]
        if not mine:
            lines.append("Not measured yet on any machine.")
        else:
            lines += [
                "| Claim | Machine | Compared | Speed-up (95% interval, long run) | Verdict |",
                "|---|---|---|---|---|",
            ]
            for figure in mine:
                variant, baseline = (
                    short_name(figure.evidence[k]) for k in ("variant", "baseline")
                )
                low, high = figure.bounds
                lines.append(
                    f"| [{figure.claim['id']}]({figure.claim['page']}) | {figure.description} "
                    f"| {compared(figure.evidence, variant, baseline)} "
                    f"| {figure.found.point:.2f}× ({low:.2f}–{high:.2f}) | {figure.verdict} |"
                )
        sections.append("\n".join(lines))
    return "\n\n".join(sections) + "\n"
