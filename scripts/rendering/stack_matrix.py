"""The Results page's stacks: a machine × stack matrix of sessions, and a section per stack
(anchor `#stack-<id>`, which tune's report links to) listing that stack's verdict per claim."""

from __future__ import annotations

from pathlib import Path

from scripts.core import measured_stacks, outcomes
from scripts.core.catalog import ROOT
from scripts.core.claims import claim_order, short_name
from scripts.findings import claim_rows
from scripts.findings import noisy as noisy_rule
from scripts.findings.pairs import Findings
from scripts.rendering import names, stack_verdicts

MATRIX_OUTPUT = "results/stacks.md"
VERDICTS_OUTPUT = "results/stack-verdicts.md"
GLANCE_OUTPUT = "results/at-a-glance.md"


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
    for machine_id, (_, cells) in machines.items():
        lines.append(
            f"| {names.machine(machine_id)} | "
            + " | ".join(cell(cells.get(s, [])) for s in stacks)
            + " |"
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
                    f"| [{figure.claim['id']}]({figure.claim['page']}) "
                    f"| {names.machine(figure.machine)} "
                    f"| {names.compared(figure.evidence, variant, baseline)} "
                    f"| {figure.found.point:.2f}× ({low:.2f}–{high:.2f}) | {figure.verdict} |"
                )
        sections.append("\n".join(lines))
    return "\n\n".join(sections) + "\n"


def counts(rows: list[claim_rows.Row]) -> str:
    """'✓3 ?1' for a claim's measured rows on one stack; '–' where it has none."""
    found = [row.outcome for row in rows if not row.analogue]
    if not found:
        return "–"
    marks = [
        f"{stack_verdicts.MARKS[outcome]}{found.count(outcome)}"
        for outcome in (outcomes.SUPPORTED, outcomes.INCONCLUSIVE, outcomes.CONTRADICTED)
        if outcome in found
    ]
    return " ".join(marks)


def at_a_glance(
    claim_list: list[dict],
    stack_data: list[dict],
    root: Path = ROOT,
    findings: Findings | None = None,
) -> str:
    """One line per measured claim: its verdict, the tally of its rows, and per stack how
    many machines' rows confirm (✓), cannot tell (?) or go against (✗) it."""
    ordered = sorted(claim_list, key=claim_order)
    found = stack_verdicts.figures(ordered, stack_data, root, findings)
    stacks = stack_verdicts.all_stacks(stack_data)
    lines = [
        "| Claim | Verdict | Measured | " + " | ".join(names.stack(s) for s in stacks) + " |",
        "|---|---|---|" + "---|" * len(stacks),
    ]
    shown = 0
    for claim in ordered:
        mine = [row for row in found if row.claim is claim and not row.analogue]
        if not mine:
            continue
        shown += 1
        per_stack = [counts([row for row in mine if row.stack == s]) for s in stacks]
        lines.append(
            f"| [{claim['id']}]({claim['page']}) | {claim['verdict']} "
            f"| {claim_rows.headline_words(claim, mine)} | " + " | ".join(per_stack) + " |"
        )
    if not shown:
        return "No claim has measured rows yet.\n"
    intro = (
        f"{shown} claims have measured rows. Each cell counts one stack's rows: "
        "✓ confirms the verdict, ? cannot tell yet, ✗ goes against it. "
        f"{machines_words(stack_data)}"
    )
    return intro + "\n\n" + "\n".join(lines) + "\n"


def machines_words(stack_data: list[dict]) -> str:
    """Which kinds of machine the rows come from, and whether a Mac is among them."""
    machines = {data["machine"]["id"]: data["machine"] for data in stack_data}
    systems = sorted({str(m.get("os")) for m in machines.values()})
    cores = sorted({m.get("physical_cores") for m in machines.values()}, key=str)
    mac = any(m.get("os") == "Darwin" for m in machines.values())
    each = f", each with {cores[0]} cores" if len(cores) == 1 and isinstance(cores[0], int) else ""
    words = f"The rows come from {len(machines)} {' and '.join(systems)} machines{each}."
    return words + ("" if mac else " No Mac is among them.")
