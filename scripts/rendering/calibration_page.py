"""How we measure's calibration section: whole sittings held back, and forward in time, from
the findings (scripts/findings/calibration.py). Nothing is computed here but counts' words."""

from __future__ import annotations

from scripts.findings import calibration as held_back
from scripts.rendering import escaping, names

SCHEME_WORDS = {
    "sitting": "Each sitting held back, predicted from the machine's other sittings",
    "forward": "Forward: each sitting predicted from the machine's earlier sittings only",
}


def percent(part: int, whole: int) -> str:
    return f"{part} of {whole} ({part / whole:.0%})" if whole else "–"


def interval(found: held_back.Coverage) -> str:
    if found.low is None:
        return f"none: needs {held_back.MIN_SITTINGS_FOR_INTERVAL} held-back sittings"
    return f"{found.low:.0%}–{found.high:.0%}"


def rests_on(found: held_back.Coverage) -> str:
    machines = f"{found.machines} machine{'s' if found.machines != 1 else ''}"
    return f"{found.sittings} ({machines})" if found.sittings else "0"


def target(found: held_back.Coverage) -> str:
    if not found.compared:
        return "no check possible"
    if found.meets_target:
        return "met"
    if found.low is None and (found.share or 0) >= held_back.TARGET:
        return "not shown: too few sittings"
    return "**not met**"


def summary(cal: held_back.Calibration) -> list[str]:
    lines = [
        "| Check | Pairs | Inside the band | 95% interval, sittings resampled "
        "| Held-back sittings | Bands from rounds only | Target |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for scheme in held_back.SCHEMES:
        for label, stratum in (("all", None), ("`files` stratum", held_back.FILES)):
            found = cal.coverage(scheme, stratum=stratum)
            lines.append(
                f"| {SCHEME_WORDS[scheme]} | {label} | {percent(found.inside, found.compared)} "
                f"| {interval(found)} | {rests_on(found)} | {found.rounds_only} | {target(found)} |"
            )
    before = cal.coverage("before")
    lines.append(
        f"| Before: inside one other session's round interval | all "
        f"| {percent(before.inside, before.compared)} | {interval(before)} | {rests_on(before)} "
        f"| {before.rounds_only} | ideal about {held_back.ROUND_ONLY_IDEAL:.0%}, not 95% |"
    )
    return lines


def by_stack(cal: held_back.Calibration) -> list[str]:
    lines = [
        "| Stack | Machines with two or more sittings | Sittings held back "
        "| Inside the band | Forward: inside the band |",
        "|---|---:|---|---:|---:|",
    ]
    for stack in cal.stacks():
        views = [v for v in cal.views if v.stack == stack]
        several = sum(1 for v in views if v.sittings >= 2)
        whole = cal.coverage("sitting", stack=stack)
        forward = cal.coverage("forward", stack=stack)
        lines.append(
            f"| {escaping.escape(stack)} | {several} of {len(views)} | {rests_on(whole)} "
            f"| {percent(whole.inside, whole.compared)} "
            f"| {percent(forward.inside, forward.compared)} |"
        )
    return lines


def sittings_table(cal: held_back.Calibration) -> list[str]:
    lines = [
        "| Machine | Stack | Sittings | Sessions | Can be checked |",
        "|---|---|---:|---:|---|",
    ]
    for v in cal.views:
        lines.append(
            f"| {names.machine(v.machine)} | {escaping.escape(v.stack)} | {v.sittings} "
            f"| {v.sessions} "
            f"| {'yes' if v.sittings >= 2 else 'no: one sitting'} |"
        )
    return lines


def held_back_table(cal: held_back.Calibration) -> list[str]:
    lines = [
        "| Check | Machine | Stack | Held-back sitting | Inside the band "
        "| `files` stratum inside |",
        "|---|---|---|---|---:|---:|",
    ]
    for scheme in held_back.SCHEMES:
        for machine, stack, sitting, found, files in cal.held_back(scheme):
            lines.append(
                f"| {scheme} | {names.machine(machine)} | {escaping.escape(stack)} "
                f"| {escaping.escape(sitting)} | {percent(found.inside, found.compared)} "
                f"| {percent(files.inside, files.compared)} |"
            )
    return lines


def table(stack_data: list[dict]) -> str:
    """The calibration section for a view per (machine, stack) (results_views.stack_views,
    escaped)."""
    cal = held_back.calibrate(stack_data)
    if not any(c.scheme in held_back.SCHEMES for c in cal.checks):
        return (
            "No machine has two sittings with a speed-up in common, so no sitting can be "
            "held back yet.\n\n" + "\n".join(sittings_table(cal)) + "\n"
        )
    notes = [
        f"Target: at least {held_back.TARGET:.0%} inside the 95% band, with the interval's "
        f"lower end at least {held_back.TARGET_LOW:.0%}.",
        "A band from rounds only had no other pair of its stratum with two sittings left.",
        "Such a band cannot allow for a shift between sittings.",
        f"The before row's yardstick is about {held_back.ROUND_ONLY_IDEAL:.0%}, not 95%.",
        "That is where another session lands when round intervals are exact and nothing shifts.",
    ]
    return (
        "\n".join(summary(cal))
        + "\n\n"
        + " ".join(notes)
        + "\n\nBy stack:\n\n"
        + "\n".join(by_stack(cal))
        + "\n\nEach held-back sitting:\n\n"
        + "\n".join(held_back_table(cal))
        + "\n\nThe sittings each machine and stack has:\n\n"
        + "\n".join(sittings_table(cal))
        + "\n"
    )
