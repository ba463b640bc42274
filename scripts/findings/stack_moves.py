"""When a claim's evidence moved between two stacks on one machine.

The rule, decided before any second stack's data were read and restated for the long-run
interval (issue 34, item 6): a row moved when the two stacks' long-run intervals do not
overlap. Then the two stacks' long-run speed-ups differ with at least 95% confidence each
way. A different verdict word over overlapping intervals is not a move: both readings fit
both stacks' data. Each machine's stacks are compared with its reference stack: the default
stack where it has it, else its first stack measured.
"""

from __future__ import annotations

from scripts.core import measured_stacks
from scripts.findings.claim_rows import Row


def moved(a: Row, b: Row) -> bool:
    """Whether one evidence item's long-run speed-up differs between two stacks."""
    return a.found.high < b.found.low or b.found.high < a.found.low


def grouped(found: list[Row]) -> dict[tuple[int, str], list[Row]]:
    """{(evidence item's identity, machine id): its rows, one per stack}, in order."""
    groups: dict[tuple[int, str], list[Row]] = {}
    for row in found:
        groups.setdefault((id(row.evidence), row.machine), []).append(row)
    return groups


def moves(found: list[Row], measured: dict[str, list[str]] | None = None) -> list[tuple[Row, Row]]:
    """Every (reference stack's row, other stack's row) on one machine that moved. The
    reference is the default stack where the machine has it, else its first stack measured;
    measured: {machine id: its stacks in order}, else the stacks in the rows' order."""
    if measured is None:
        measured = {}
        for row in found:
            stacks = measured.setdefault(row.machine, [])
            stacks += [] if row.stack in stacks else [row.stack]
    pairs = []
    for group in grouped(found).values():
        stacks = measured[group[0].machine]
        reference = measured_stacks.DEFAULT if measured_stacks.DEFAULT in stacks else stacks[0]
        before = next((row for row in group if row.stack == reference), None)
        if before is not None:
            pairs += [
                (before, row) for row in group if row.stack != reference and moved(before, row)
            ]
    return pairs
