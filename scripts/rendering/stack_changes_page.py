"""What changed between stacks, said once: every claim whose long-run speed-up moved between
two stacks on one machine (scripts/findings/stack_moves.py), with both figures and its cause
from data/stack_changes.yml (numbered, each listed once under the table, so a cell stays one
line), or "cause not found"."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scripts.core.catalog import ROOT
from scripts.core.claims import claim_order, short_name
from scripts.core.stack_changes import Cause
from scripts.findings import stack_moves
from scripts.findings.pairs import Findings
from scripts.rendering import names, stack_verdicts

OUTPUT = "stack-changes.md"
NOT_FOUND = "cause not found"


@dataclass(frozen=True)
class Move:
    """One evidence item that moved from one stack to another on one machine."""

    before: stack_verdicts.Figure
    after: stack_verdicts.Figure

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.before.claim["id"], self.before.stack, self.after.stack)


def moves(
    claim_list: list[dict],
    stack_data: list[dict],
    root: Path = ROOT,
    findings: Findings | None = None,
) -> list[Move]:
    """Every move, against each machine's reference stack: the default stack where the machine
    has it, else its first stack measured."""
    found = stack_verdicts.figures(sorted(claim_list, key=claim_order), stack_data, root, findings)
    pairs = stack_moves.moves(found, stack_verdicts.stacks_measured(stack_data))
    return [Move(before, after) for before, after in pairs]


def stale(causes: list[Cause], found: list[Move]) -> list[Cause]:
    """Causes for a claim and stack pair that did not move on any machine."""
    moved = {move.key for move in found}
    return [cause for cause in causes if cause.key not in moved]


def render(
    claim_list: list[dict],
    stack_data: list[dict],
    causes: list[Cause],
    root=ROOT,
    findings: Findings | None = None,
) -> str:
    """The page's list, or a sentence saying why it is empty."""
    measured = stack_verdicts.stacks_measured(stack_data)
    if not any(len(stacks) > 1 for stacks in measured.values()):
        return (
            "No machine has more than one stack measured yet, so no claim can have moved. "
            "Stacks measured: "
            + ", ".join(
                stack_verdicts.stack_link(s)
                for s in stack_verdicts.all_stacks(stack_data)
                if s in {d["stack"] for d in stack_data}
            )
            + ".\n"
        )
    found = moves(claim_list, stack_data, root, findings)
    if not found:
        return "No claim moved between stacks on any machine measured with more than one.\n"
    by_key = {cause.key: cause for cause in causes}
    listed = list(dict.fromkeys(move.key for move in found if move.key in by_key))
    lines = [
        "| Claim | Machine | Compared | Before | After | Cause |",
        "|---|---|---|---|---|---|",
    ]
    for move in found:
        evidence = move.before.evidence
        variant, baseline = (short_name(evidence[k]) for k in ("variant", "baseline"))
        claim = move.before.claim
        cause = f"cause {listed.index(move.key) + 1}, below" if move.key in by_key else NOT_FOUND
        lines.append(
            f"| [{claim['id']}]({claim['page']}) | {names.machine(move.before.machine)} "
            f"| {names.compared(evidence, variant, baseline)} "
            f"| {figure_cell(move.before)} | {figure_cell(move.after)} | {cause} |"
        )
    if listed:
        lines += ["", "The causes, each cited at its source:", ""]
        lines += [f"{n}. {cause_words(by_key[key])}" for n, key in enumerate(listed, 1)]
    return "\n".join(lines) + "\n"


def figure_cell(figure: stack_verdicts.Figure) -> str:
    link = f"{stack_verdicts.RESULTS_PAGE}#stack-{figure.stack}"
    return f"[{names.stack(figure.stack)}]({link}): {stack_verdicts.words(figure)}"


def cause_words(cause: Cause) -> str:
    """One cause, under the table: its claim and stacks, its source, then what changed."""
    moved = f"{names.stack(cause.from_stack)} to {names.stack(cause.to_stack)}"
    return (
        f"**{cause.claim}**, {moved} ([source]({cause.source}), read at `{cause.tag}`). "
        f"{cause.cause}"
    )
