"""The causes of claims that moved between two stacks (data/stack_changes.yml): each a change
in TensorFlow or Keras, cited at its source read at a release tag."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scripts.core import data_formats, project_files

CHANGES_FILE = project_files.ROOT / "data" / "stack_changes.yml"


class StackChangesError(ValueError):
    """An entry of data/stack_changes.yml that is missing a field or holds a wrong value."""


@dataclass(frozen=True)
class Cause:
    claim: str
    from_stack: str
    to_stack: str
    cause: str
    source: str  # a link to the commit or release note
    tag: str  # the tag the source was read at

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.claim, self.from_stack, self.to_stack)


def load(path: Path = CHANGES_FILE) -> list[Cause]:
    """Every cause in the file, held to data/stack_changes.schema.json; this adds that the two
    stacks differ and that no (claim, from, to) is listed twice. No change is a valid file."""
    try:
        data = data_formats.read(path, "stack_changes")
    except data_formats.FormatError as error:
        raise StackChangesError(str(error)) from error
    causes: list[Cause] = []
    for number, item in enumerate(data["changes"]):
        if item["stacks"][0] == item["stacks"][1]:
            raise StackChangesError(f"{path.name}: changes[{number}].stacks: two different ids")
        causes.append(
            Cause(
                item["claim"],
                *item["stacks"],
                " ".join(item["cause"].split()),
                item["source"],
                item["tag"].strip(),
            )  # fmt: skip
        )
    keys = [cause.key for cause in causes]
    for key in keys:
        if keys.count(key) > 1:
            raise StackChangesError(
                f"{path.name}: claim {key[0]} between {key[1]} and {key[2]} is listed twice"
            )
    return causes
