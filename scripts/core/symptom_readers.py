"""The readers a symptom entry's fix code is for: its `onto` field (data/symptoms.yml).

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

from dataclasses import dataclass


@dataclass(frozen=True)
class Reader:
    """One environment a reader runs the fix code in."""

    python: str
    packages: tuple[tuple[str, str], ...]  # (name, version), sorted
    env: tuple[tuple[str, str], ...] = ()

    def requirements(self) -> tuple[str, ...]:
        return tuple(f"{name}=={version}" for name, version in self.packages)


def readers(entry: dict) -> list[Reader]:
    """The entry's readers (none without `onto`). The shape of `onto` is
    data/symptoms.schema.json's (symptoms.load holds the file to it): a non-empty list of
    {python, packages, env}, given only with fix_code."""
    found = []
    for item in entry.get("onto") or []:
        pairs = sorted(tuple(package.split("==")) for package in item["packages"])
        env = tuple(sorted((item.get("env") or {}).items()))
        found.append(Reader(item["python"], tuple(pairs), env))
    return found
