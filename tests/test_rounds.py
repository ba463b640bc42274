"""The one process-round scheduler (scripts/core/rounds.py), used by the harness, tune and the
ground truth: every name once per round, a seeded shuffled order, a failed name left out."""

from __future__ import annotations

import pytest

from scripts.core import rounds


def test_every_name_runs_once_per_round_in_a_seeded_order():
    seen: list[list[str]] = []
    rounds.process_rounds(
        ["a", "b", "c"], 4, 7, lambda name, position: True, lambda n, order: seen.append(order)
    )
    assert len(seen) == 4 and all(sorted(order) == ["a", "b", "c"] for order in seen)
    again: list[list[str]] = []
    rounds.process_rounds(
        ["a", "b", "c"], 4, 7, lambda name, position: True, lambda n, order: again.append(order)
    )
    assert again == seen
    assert len({tuple(order) for order in seen}) > 1  # shuffled, not one fixed order


def test_a_name_that_fails_leaves_the_rounds_that_follow():
    ran: list[tuple[str, int]] = []

    def run_one(name: str, position: int) -> bool:
        ran.append((name, position))
        return name != "b"

    rounds.process_rounds(["a", "b", "c"], 3, 0, run_one)
    names = [name for name, _ in ran]
    assert names.count("b") == 1 and names.count("a") == 3 and names.count("c") == 3
    assert all(position < 3 for _, position in ran)


def test_an_exception_stops_every_round():
    def run_one(name: str, position: int) -> bool:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rounds.process_rounds(["a", "b"], 3, 0, run_one)
