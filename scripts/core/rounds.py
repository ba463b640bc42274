"""Timing variants in interleaved rounds: warm-up calls, then each round runs every variant
once in a seeded shuffled order, so a drift of the machine's speed lands on all alike.

Shared by the snippet harness (scripts/measuring) and `tune` (scripts/tuning).
"""

from __future__ import annotations

import random
import time


def force(value: object) -> None:
    """Wait for a result to exist: asynchronous device work must finish inside the timing."""
    if isinstance(value, (list, tuple)):
        for item in value:
            force(item)
    elif hasattr(value, "numpy"):
        value.numpy()


def timed_call(run) -> float:
    """Seconds one call of run takes, its result forced. A run may have prepare() and
    release(): called before and after, outside the timing (tune's dataset arms take a fresh
    iterator there and drop it after, so no pipeline runs while another run is timed)."""
    prepare = getattr(run, "prepare", None)
    release = getattr(run, "release", None)
    if prepare:
        prepare()
    try:
        start = time.perf_counter()
        force(run())
        return time.perf_counter() - start
    finally:
        if release:
            release()


def first_calls(run, warmup: int) -> float | None:
    """Run the warm-up calls; return how long the first one took (None with no warm-up)."""
    first_call_s = None
    for _ in range(warmup):
        elapsed = timed_call(run)
        if first_call_s is None:
            first_call_s = elapsed
    return first_call_s


def interleaved_rounds(
    runs: dict,
    min_rounds: int,
    max_rounds: int,
    budget_s: float,
    seed: int,
    on_round=None,
    on_error=None,
) -> tuple[dict[str, list[float]], dict[str, list[int]]]:
    """Time every run once per round, in a seeded shuffled order per round.

    Rounds go on until min_rounds are done and either max_rounds are done or the timed runs
    add up to budget_s per variant. Returns each variant's times and, for each of its times,
    its position in that round's order. A run that raises is reported to on_error(name,
    error) and leaves the rounds; on_round(times, positions) is called after every round.
    """
    rng = random.Random(seed)
    active = list(runs)
    times: dict[str, list[float]] = {name: [] for name in runs}
    positions: dict[str, list[int]] = {name: [] for name in runs}
    spent = 0.0
    rounds = 0
    while active and (
        rounds < min_rounds or (rounds < max_rounds and spent < budget_s * len(active))
    ):
        order = list(active)
        rng.shuffle(order)
        for position, name in enumerate(order):
            try:
                elapsed = timed_call(runs[name])
            except Exception as error:  # the others' rounds go on without it
                active.remove(name)
                del times[name], positions[name]
                if on_error:
                    on_error(name, error)
                continue
            times[name].append(elapsed)
            positions[name].append(position)
            spent += elapsed
        rounds += 1
        if on_round:
            on_round(times, positions)
    return times, positions


def process_rounds(names, rounds: int, seed: int, run_one, announce=None) -> None:
    """Run each name once per round, in a seeded shuffled order per round: the schedule of
    variants that need processes of their own (the harness's isolated snippets, tune's
    thread and device arms, the ground truth's arms).

    run_one(name, position) runs one process and returns False when the name failed: it
    leaves the rounds that follow. announce(number, order) is called before each round. To
    stop all rounds at once (Ctrl-C), run_one raises.
    """
    rng = random.Random(seed)
    active = list(names)
    for number in range(rounds):
        order = list(active)
        rng.shuffle(order)
        if announce:
            announce(number, order)
        for position, name in enumerate(order):
            if not run_one(name, position):
                active.remove(name)
