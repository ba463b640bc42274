"""How we measure's calibration table: each session of a machine with three or more held back
in turn, and how many of its speed-ups land inside the interval the other sessions give
(pooling.held_back), beside the same count for one session's round interval."""

from __future__ import annotations

from scripts.core import pooling
from scripts.rendering import names

TARGET = 0.90  # at the nominal 95%, decided with the method (How we measure)


def percent(part: int, whole: int) -> str:
    return f"{part} of {whole} ({part / whole:.0%})" if whole else "–"


def where_from(sessions: list[dict]) -> str:
    """How many days and recorded hosts (boots) the sessions come from, in words."""
    days = len({s["id"][:10] for s in sessions})
    boots = {s["boot"] for s in sessions if s.get("boot")}
    unknown = sum(1 for s in sessions if not s.get("boot"))
    hosts = f"{len(boots)} recorded host boot(s)" + (
        f", {unknown} session(s) without one" if unknown else ""
    )
    return f"{len(sessions)} sessions from {days} day(s); {hosts}"


def table(all_data: list[dict]) -> str:
    """The held-back table for every machine with three or more sessions (escaped views)."""
    lines = [
        "| Machine | Held-back session | How it came | Marked noisy | Speed-ups compared "
        "| Inside the other sessions' new-session interval | Before: inside one other "
        "session's round interval |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    totals = [0, 0, 0, 0]
    notes = []
    for data in all_data:
        if len(data["sessions"]) < 3:
            continue
        notes.append(f"{names.of(data['machine'])}: {where_from(data['sessions'])}.")
        for session in data["sessions"]:
            found = pooling.held_back(all_data, data["machine"]["id"], session["id"])
            if not found.compared:
                continue
            lines.append(
                f"| {names.of(data['machine'])} | {session['id']} | {session['origin']} "
                f"| {'yes' if session['marked_noisy'] else 'no'} | {found.compared} "
                f"| {percent(found.inside, found.compared)} "
                f"| {percent(found.inside_single, found.single_compared)} |"
            )
            totals = [
                a + b
                for a, b in zip(
                    totals,
                    (found.compared, found.inside, found.single_compared, found.inside_single),
                    strict=True,
                )
            ]
    if not notes:
        return "No machine has three sessions yet, so no session can be held back.\n"
    compared, inside, single_compared, inside_single = totals
    lines.append(
        f"| **All** | | | | {compared} | **{percent(inside, compared)}** "
        f"| {percent(inside_single, single_compared)} |"
    )
    share = inside / compared if compared else 0.0
    verdict = (
        f"Overall {share:.0%} of held-back speed-ups fall inside, against the target of "
        f"{TARGET:.0%}: "
        + ("met." if share >= TARGET else "**not met**; the method must change, not the target.")
    )
    return "\n".join(lines) + "\n\n" + " ".join(notes) + " " + verdict + "\n"
