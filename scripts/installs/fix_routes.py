"""The routes a fix offers: each an install command (a chain joined by &&, or none) with the
variables it sets or unsets, read from a doctor fix's text or a symptom entry's fix code.

A doctor fix names its routes inline ("CMD && export X=1; or, to keep ...: CMD2", "CMD, or
unset X"): each command, and each `export`/`unset` not joined to a command, is one route.
A symptom's fix code is run line by line as the reader copies it; a comment line between
steps starts another route, for the readers' Pythons it names ("# On Python 3.12: ..."), and
a line that makes or activates an environment (`-m venv`, `source .../activate`) makes its
route start in a new environment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from scripts.installs.commands import commands_in

VARIABLE_STEP = re.compile(r"\b(unset|export)\s+([A-Z][A-Z0-9_]*)(?:=([^\s,;)]+))?")
JOINED_EXPORT = re.compile(r"\s*&&\s*export\s+([A-Z][A-Z0-9_]*)=([^\s,;)]+)")
NEW_ENVIRONMENT = re.compile(r"-m\s+venv\b|\bsource\s+\S*activate\b|\bconda\s+create\b")
NEW_PYTHON = re.compile(r"\bpython(3\.\d+)\s+-m\s+venv\b")
# A route's heading that names the readers' Pythons: "# On Python 3.9 to 3.11:", "3.12 or 3.13".
FOR_PYTHONS = re.compile(r"^#\s*On Python (3\.\d+)(?:\s+(to|or|and)\s+(3\.\d+))?")


@dataclass(frozen=True)
class Route:
    """One way through a fix: its command (None for variables only), the variables it changes
    (value None: unset), and whether it starts in a new, empty environment (made with which
    Python, when it says: `python3.12 -m venv ...`)."""

    command: str | None
    env: tuple[tuple[str, str | None], ...] = ()
    fresh: bool = False
    python: str | None = None  # the Python of the new environment, when the route names it
    for_pythons: tuple[str, ...] = ()  # the readers' Pythons its heading names; () for any

    def applies_to(self, python: str) -> bool:
        return not self.for_pythons or python in self.for_pythons

    def environment(self, before: dict[str, str]) -> dict[str, str]:
        """The variables after this route, from those before it."""
        after = dict(before)
        for name, value in self.env:
            if value is None:
                after.pop(name, None)
            else:
                after[name] = value
        return after


def _variable(match: re.Match) -> tuple[str, str | None]:
    return match.group(2), match.group(3) if match.group(1) == "export" else None


def from_fix_text(text: str) -> list[Route]:
    """The routes of a doctor fix: its commands (with an `&& export` that follows each) and its
    variable changes that stand alone."""
    routes, position, joined = [], 0, []
    for command in commands_in(text):
        at = text.find(command, position)
        end = at + len(command) if at >= 0 else position
        env = []
        while match := JOINED_EXPORT.match(text, end):
            env.append((match.group(1), match.group(2)))
            joined.append(match.start())
            end = match.end()
        routes.append(Route(command, tuple(env)))
        position = end
    for match in VARIABLE_STEP.finditer(text):
        before = text[: match.start()].rstrip()
        if before.endswith(("&&", "'")):
            continue  # joined to a command above, or quoted inside an `echo '...'`
        routes.append(Route(None, (_variable(match),)))
    return routes


def from_fix_code(code: str, recommended: list[str]) -> list[Route]:
    """The routes of a symptom's fix code; `{recommended}` stands for these install lines."""
    lines = code.replace("{recommended}", "\n".join(f"$ {line}" for line in recommended))
    routes: list[Route] = []
    commands: list[str] = []
    env: list[tuple[str, str | None]] = []
    fresh, python, readers = False, None, ()

    def close() -> None:
        if commands or env:
            command = " && ".join(commands) or None
            routes.append(Route(command, tuple(env), fresh, python, readers))

    for line in lines.splitlines():
        text = line.strip()
        if text.startswith("#"):
            close()
            commands, env, fresh, python = [], [], False, None
            readers = _pythons(text)
            continue
        if not text.startswith("$ "):
            continue  # a line of output
        body = re.split(r"\s+#", text[2:], maxsplit=1)[0]
        if NEW_ENVIRONMENT.search(body) and not commands:
            fresh = True
            named = NEW_PYTHON.search(body)
            python = named.group(1) if named else python
        commands += commands_in(body)
        if not body.startswith("echo "):
            env += [_variable(m) for m in VARIABLE_STEP.finditer(body)]
    close()
    return routes


def _pythons(heading: str) -> tuple[str, ...]:
    """The Pythons a heading names: '# On Python 3.9 to 3.11:' -> ('3.9', '3.10', '3.11')."""
    found = FOR_PYTHONS.match(heading)
    if found is None:
        return ()
    low, how, high = found.groups()
    if how is None:
        return (low,)
    if how != "to":
        return (low, high)
    first, last = int(low.split(".")[1]), int(high.split(".")[1])
    return tuple(f"3.{n}" for n in range(first, last + 1))
