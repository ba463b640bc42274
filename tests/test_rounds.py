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


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class ArmWithIterator:
    """A run whose prepare() and release() take time on the fake clock, as a fresh iterator
    and its dropping do: none of it may land in the timing."""

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds, self.log = clock, seconds, []

    def prepare(self) -> None:
        self.log.append("prepare")
        self.clock.now += 100.0

    def release(self) -> None:
        self.log.append("release")
        self.clock.now += 1000.0

    def __call__(self) -> int:
        self.log.append("run")
        self.clock.now += self.seconds
        return 1


def test_prepare_and_release_run_around_every_timed_call_outside_the_timing(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(rounds.time, "perf_counter", clock)
    runs = {"a": ArmWithIterator(clock, 2.0), "b": ArmWithIterator(clock, 3.0)}
    assert rounds.first_calls(runs["a"], 1) == 2.0
    times, _ = rounds.interleaved_rounds(runs, 3, 3, 0.0, seed=0)
    assert times == {"a": [2.0, 2.0, 2.0], "b": [3.0, 3.0, 3.0]}
    assert runs["b"].log == ["prepare", "run", "release"] * 3
