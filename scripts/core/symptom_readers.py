"""The readers a symptom entry's fix code is for: its `onto` field (data/symptoms.yml), checked.

`onto` lists the environments the entry's readers are in when they run its fix code, so that
`make commands-record` resolves the code there with pip and the convergence check
(scripts/fix_convergence.py) runs the doctor on the result. Each item is a mapping:

    onto:
      - python: "3.10"                       # the reader's Python, 3.9 to 3.13
        packages: [tensorflow-macos==2.11.0, tensorflow-metal==0.8.0, keras==2.11.0]
        env: {TF_USE_LEGACY_KERAS: "1"}      # optional: variables set in the reader's shell
      - {python: "3.11", packages: []}       # a reader with none installed yet (pip failed)

Leave `onto` out for fix code that makes a new environment before it installs anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
REQUIREMENT = re.compile(r"^[a-z0-9][a-z0-9-]*==\d+(\.\d+)*$")
VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*$")
KEYS = {"python", "packages", "env"}


class ReadersError(ValueError):
    """An entry's `onto` is not a list of readers as this module's docstring describes."""


@dataclass(frozen=True)
class Reader:
    """One environment a reader runs the fix code in."""

    python: str
    packages: tuple[tuple[str, str], ...]  # (name, version), sorted
    env: tuple[tuple[str, str], ...] = ()

    def requirements(self) -> tuple[str, ...]:
        return tuple(f"{name}=={version}" for name, version in self.packages)


def readers(entry: dict, at: str) -> list[Reader]:
    """The entry's readers (none without `onto`); at names the entry in error messages."""
    onto = entry.get("onto")
    if onto is None:
        return []
    if not isinstance(onto, list) or not onto:
        raise ReadersError(f"{at}: onto must be a non-empty list of readers (python, packages)")
    if not entry.get("fix_code"):
        raise ReadersError(f"{at}: onto needs fix_code to run where the readers are")
    found = []
    for number, item in enumerate(onto):
        where = f"{at}: onto[{number}]"
        if not isinstance(item, dict) or not KEYS >= set(item) or "packages" not in item:
            raise ReadersError(f"{where}: expected a mapping of python, packages and env")
        if str(item.get("python")) not in PYTHONS:
            raise ReadersError(f"{where}: python must be one of {list(PYTHONS)}, as a string")
        packages = item["packages"]
        bad = [p for p in packages or [] if not REQUIREMENT.match(str(p))]
        if not isinstance(packages, list) or bad:
            raise ReadersError(
                f"{where}: packages must list name==version, lower case, or be [] for none "
                f"(got {bad or packages!r})"
            )
        env = item.get("env") or {}
        if not isinstance(env, dict) or not all(
            VARIABLE.match(str(k)) and isinstance(v, str) for k, v in env.items()
        ):
            raise ReadersError(f"{where}: env must map variable names to strings")
        pairs = sorted(tuple(str(p).split("==")) for p in packages)
        found.append(Reader(item["python"], tuple(pairs), tuple(sorted(env.items()))))
    return found
