"""Show the doctor's checks: an aligned table (coloured on a terminal, plain otherwise) or JSON."""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from typing import TextIO

from scripts.core.guide_links import guide_address
from scripts.doctor.checks import Check, Status
from scripts.doctor.facts import Facts

TITLE = "TensorFlow set-up check ({prog})"
COLOURS = {
    Status.PASS: "\033[32m",
    Status.WARN: "\033[33m",
    Status.FAIL: "\033[1;31m",
    Status.SKIP: "\033[2m",
}
RESET = "\033[0m"


def exit_code(checks: list[Check]) -> int:
    """0 when nothing failed, 1 otherwise."""
    return 1 if any(check.status is Status.FAIL for check in checks) else 0


def summary(checks: list[Check]) -> dict[str, int]:
    return {status.value: sum(c.status is status for c in checks) for status in Status}


def use_colour(stream: TextIO) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return (
        bool(isatty and isatty())
        and "NO_COLOR" not in os.environ
        and os.environ.get("TERM") != "dumb"
    )


def to_text(
    checks: list[Check],
    colour: bool = False,
    prog: str = "python -m scripts.doctor",
    site: str | None = None,
) -> str:
    """One line per check; a WARN or FAIL adds its fix and where to read more, a PASS that
    names a page of the guide (the measured stack's verdicts) where to read it."""
    width = max(len(check.name) for check in checks)
    indent = " " * (6 + width + 2)
    lines = [TITLE.format(prog=prog), ""]
    for check in checks:
        status = check.status.value
        if colour:
            status = f"{COLOURS[check.status]}{status}{RESET}"
        lines.append(f"{status}  {check.name:<{width}}  {check.found}")
        if check.status in (Status.WARN, Status.FAIL):
            if check.fix:
                lines.append(f"{indent}fix:  {check.fix}")
            see = ", ".join(filter(None, (guide_address(check.guide, site), check.source)))
            if see:
                lines.append(f"{indent}see:  {see}")
        elif check.status is Status.PASS and check.guide:  # a page to read, nothing to fix
            lines.append(f"{indent}see:  {guide_address(check.guide, site)}")
        if check.note:
            lines.append(f"{indent}note: {check.note}")
    counts = summary(checks)
    lines += [
        "",
        f"{counts['FAIL']} FAIL, {counts['WARN']} WARN, {counts['PASS']} PASS, "
        f"{counts['SKIP']} SKIP (exit status {exit_code(checks)})",
    ]
    return "\n".join(lines) + "\n"


def to_json(checks: list[Check], facts: Facts) -> str:
    """The checks (name, status, found, fix, ...), their summary, and the facts they judged."""
    document = {
        "checks": [dict(asdict(check), status=check.status.value) for check in checks],
        "summary": summary(checks),
        "exit_status": exit_code(checks),
        "facts": asdict(facts),
    }
    return json.dumps(document, indent=2) + "\n"
