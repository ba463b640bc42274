"""Which variants of a session were noisier than that variant usually is on its machine.

A fixed threshold on the spread (IQR/median above 10%) marked 64 and 60 of 92 variants in two
measures of a quiet machine: some variants always spread that much, so it said nothing about
the session. The rule here, fixed before looking at which sessions it marks (issue 34, item 7):

- a variant's **usual** spread in a session is the median IQR/median of the same variant (entry
  key) in the other sessions of its machine's file on the same stack; with none, it is not
  judged;
- the variant is **noisier than usual** when its IQR/median is more than FACTOR times its usual
  spread and also above FLOOR. A factor of two is well beyond what rounds alone move a spread:
  at 30 rounds the IQR of one session varies by about a fifth of itself. The floor keeps a
  2% spread that became 5% from being called noisy;
- a session is **unusually noisy** when more than half of its judged variants are.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

FACTOR = 2.0
FLOOR = 0.10


@dataclass(frozen=True)
class SessionNoise:
    """One session's variants against their usual spread on the same machine and stack."""

    session: str
    judged: int  # variants with a usual spread from another session
    noisier: tuple[str, ...]  # entry keys noisier than usual
    variants: int

    @property
    def unusual(self) -> bool:
        return len(self.noisier) * 2 > self.judged if self.judged else False


def spread(entry: dict) -> float:
    return float(entry["stats"]["iqr_over_median"])


def usual_spread(sessions: list[dict], key: str, besides: str) -> float | None:
    """The median spread of entry `key` over the sessions other than `besides`; None if none."""
    others = [
        spread(s["entries"][key]) for s in sessions if s["id"] != besides and key in s["entries"]
    ]
    return statistics.median(others) if others else None


def noisier_than_usual(value: float, usual: float) -> bool:
    return value > FLOOR and value > FACTOR * usual


def session_noise(sessions: list[dict], session_id: str) -> SessionNoise:
    """The session's variants judged against the other sessions given (one machine, one stack)."""
    session = next(s for s in sessions if s["id"] == session_id)
    judged, noisier = 0, []
    for key, entry in sorted(session["entries"].items()):
        usual = usual_spread(sessions, key, session_id)
        if usual is None:
            continue
        judged += 1
        if noisier_than_usual(spread(entry), usual):
            noisier.append(key)
    return SessionNoise(session_id, judged, tuple(noisier), len(session["entries"]))


def file_noise(data: dict) -> list[SessionNoise]:
    """Every session of a results file, each against the file's other sessions of its stack."""
    found = []
    for session in data["sessions"]:
        same_stack = [s for s in data["sessions"] if s["stack"] == session["stack"]]
        found.append(session_noise(same_stack, session["id"]))
    return found


def unusual_sessions(sessions: list[dict]) -> set[str]:
    """The ids of the sessions (of one file, any stacks) that are unusually noisy."""
    found = set()
    for stack in {s["stack"] for s in sessions}:
        same_stack = [s for s in sessions if s["stack"] == stack]
        found |= {
            noise.session
            for noise in (session_noise(same_stack, s["id"]) for s in same_stack)
            if noise.unusual
        }
    return found


def entry_noisier(view: dict, key: str) -> bool:
    """Whether the view's latest entry for `key` was noisier than that variant usually is on
    the view's machine and stack (False where it cannot be judged)."""
    entry = view["entries"].get(key)
    session = (
        next(
            (
                s
                for s in reversed(view.get("sessions", []))
                if key in s["entries"] and s["entries"][key]["date"] == entry["date"]
            ),
            None,
        )
        if entry is not None
        else None
    )
    if session is None:
        return False
    usual = usual_spread(view["sessions"], key, session["id"])
    return usual is not None and noisier_than_usual(spread(entry), usual)
