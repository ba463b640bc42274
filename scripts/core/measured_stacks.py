"""The software stacks the guide measures on (data/measured_stacks.yml): which Python runs a
stack's snippets, with which environment variables, and how to build it when it is missing.

Each stack's environment is a virtual environment in the repository (`.venv` holds two: Keras 3,
and tf-keras selected by TF_USE_LEGACY_KERAS=1). A missing environment is an error that names
the `make` target that builds it; what an environment really loads is read by running its
Python (scripts/core/stack_probe.py), never assumed from this file.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts.core import data_formats, json_files, project_files, stack_match

STACKS_FILE = project_files.ROOT / "data" / "measured_stacks.yml"
DEFAULT = "tf216-keras3"  # the stack `make measure` measures when STACK is not given
LEGACY_KERAS = "TF_USE_LEGACY_KERAS"


class StackError(ValueError):
    """A stack that is not defined, or a stack file that does not hold its shape."""


@dataclass(frozen=True)
class Stack(stack_match.MeasuredStack):
    """A measured stack with what building and running its environment needs; the fields the
    doctor and tune read are MeasuredStack's (scripts/core/stack_match.py), defined once."""

    why: str
    legacy_keras: bool
    environment: str  # a virtual environment's directory, relative to the repository
    mac: str  # what the stack is on a Mac, in a line
    lock: str | None = None  # its own lock file, where it has its own environment

    def interpreter(self, root: Path = project_files.ROOT) -> Path:
        return root / self.environment / "bin" / "python"

    def environ(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """base (os.environ by default) with TF_USE_LEGACY_KERAS set as the stack needs: '1'
        for tf-keras, removed otherwise (a shell that activated the Mac recipe keeps it set)."""
        env = dict(os.environ if base is None else base)
        if self.legacy_keras:
            env[LEGACY_KERAS] = "1"
        else:
            env.pop(LEGACY_KERAS, None)
        return env

    def build_command(self) -> str:
        """The command that builds the stack's environment: its own lock's, or the project's."""
        return "make venv" if self.lock is None else f"make stack-env STACK={self.id}"

    def missing(self, root: Path = project_files.ROOT) -> str | None:
        """Why the stack cannot run here, naming the command that builds it; None if it can."""
        if self.interpreter(root).exists():
            return None
        return (
            f"stack {self.id}: no Python at {self.environment}/bin/python; "
            f"build it: {self.build_command()}"
        )


def load(path: Path = STACKS_FILE) -> list[Stack]:
    """Every stack, in the file's order, held to data/measured_stacks.schema.json; this adds
    only that no id is listed twice."""
    try:
        listed = data_formats.read(path, "measured_stacks")
    except data_formats.FormatError as error:
        raise StackError(str(error)) from error
    stacks = [Stack(**item) for item in listed]
    ids = [stack.id for stack in stacks]
    if len(set(ids)) != len(ids):
        raise StackError(f"{path}: a stack id is listed twice: {ids}")
    return stacks


def by_id(stack_id: str, path: Path = STACKS_FILE) -> Stack:
    stacks = load(path)
    for stack in stacks:
        if stack.id == stack_id:
            return stack
    known = ", ".join(stack.id for stack in stacks)
    raise StackError(f"unknown stack {stack_id!r}: expected one of {known} ({path.name})")


# --- data/measured_stacks.json: what the doctor and tune read (scripts/core/stack_match.py) ---

PORTABLE_FILE = STACKS_FILE.with_suffix(".json")


def portable(stacks: list[Stack]) -> dict:
    """The stacks as tf-doctor.pyz reads them (MeasuredStack's fields): JSON, since the archive
    has no yaml."""
    return {
        "about": f"Written from data/{STACKS_FILE.name} by `python -m "
        "scripts.core.measured_stacks`; edit the yml and run it again. Read by "
        "scripts/core/stack_match.py.",
        "stacks": [{field: getattr(s, field) for field in stack_match.FIELDS} for s in stacks],
    }


def main() -> int:
    """Write data/measured_stacks.json from data/measured_stacks.yml."""
    json_files.write_json_atomic(PORTABLE_FILE, portable(load()))
    print(f"wrote {PORTABLE_FILE.relative_to(project_files.ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
