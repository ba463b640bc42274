"""When a claim's evidence moved between two stacks on one machine.

The rule, decided before any second stack's data were read and restated for the long-run
interval (issue 34, item 6): a row moved when the two stacks' long-run intervals do not
overlap. Then the two stacks' long-run speed-ups differ with at least 95% confidence each
way. A different verdict word over overlapping intervals is not a move: both readings fit
both stacks' data.
"""

from __future__ import annotations

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


def moves(found: list[Row]) -> list[tuple[Row, Row]]:
    """Every (earlier stack's row, later stack's row) pair on one machine that moved."""
    pairs = []
    for group in grouped(found).values():
        for i, a in enumerate(group):
            pairs += [(a, b) for b in group[i + 1 :] if moved(a, b)]
    return pairs
