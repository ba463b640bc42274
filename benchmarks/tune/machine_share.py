"""How much of the machine's CPU other processes used while a run measured (issue 37's load
rule): the busy CPU time the kernel counts for every process (Linux /proc/stat: user, nice,
system, irq, softirq and steal, which is time a hypervisor gave to other guests), less the
CPU time of this process and its finished children (resource.getrusage), over the run's wall
time on all cores. Where /proc/stat cannot be read (a Mac), None: the load average decides.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass
from pathlib import Path

PROC_STAT = Path("/proc/stat")
BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user, nice, system, irq, softirq, steal (after "cpu")


@dataclass(frozen=True)
class Snapshot:
    busy_s: float | None  # every process's busy CPU seconds since boot, or None
    own_s: float  # this process's and its waited-for children's CPU seconds
    wall_s: float


def busy_seconds(text: str, ticks_per_s: float) -> float:
    """The busy CPU seconds in /proc/stat's first ('cpu') line."""
    fields = text.splitlines()[0].split()
    if fields[0] != "cpu":
        raise ValueError("/proc/stat: expected its first line to start with 'cpu'")
    values = [int(v) for v in fields[1:]]
    return sum(values[i] for i in BUSY_FIELDS if i < len(values)) / ticks_per_s


def snapshot() -> Snapshot:
    own = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        own += usage.ru_utime + usage.ru_stime
    try:
        busy = busy_seconds(PROC_STAT.read_text(), os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError):
        busy = None
    return Snapshot(busy, own, time.monotonic())


def other_share(before: Snapshot, after: Snapshot, cores: int) -> float | None:
    """Other processes' share of the machine's CPU time between the snapshots (0 to 1), or
    None without /proc/stat."""
    if before.busy_s is None or after.busy_s is None:
        return None
    wall = after.wall_s - before.wall_s
    if wall <= 0:
        return None
    other = (after.busy_s - before.busy_s) - (after.own_s - before.own_s)
    return min(1.0, max(0.0, other / (wall * max(cores, 1))))
