"""The causes of claims that moved between two stacks (data/stack_changes.yml): each a change
in TensorFlow or Keras, cited at its source read at a release tag."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from scripts.core import project_files

CHANGES_FILE = project_files.ROOT / "data" / "stack_changes.yml"
FIELDS = ("claim", "stacks", "cause", "source", "tag")


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
    """Every cause in the file, each field checked; an empty list is a valid file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise StackChangesError(f"{path}: cannot read it: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("changes"), list):
        raise StackChangesError(f"{path}: expected a mapping with a 'changes' list")
    causes: list[Cause] = []
    for number, item in enumerate(data["changes"]):
        causes.append(_cause(item, f"{path.name}: changes[{number}]"))
    keys = [cause.key for cause in causes]
    for key in keys:
        if keys.count(key) > 1:
            raise StackChangesError(
                f"{path.name}: claim {key[0]} between {key[1]} and {key[2]} is listed twice"
            )
    return causes


def _cause(item: object, where: str) -> Cause:
    if not isinstance(item, dict):
        raise StackChangesError(f"{where}: expected a mapping of {', '.join(FIELDS)}")
    unknown = sorted(set(item) - set(FIELDS))
    if unknown:
        raise StackChangesError(f"{where}: unknown field(s) {unknown}; expected {FIELDS}")
    for field in ("claim", "cause", "tag"):
        if not isinstance(item.get(field), str) or not item[field].strip():
            raise StackChangesError(f"{where}: field {field!r}: expected text")
    source = item.get("source")
    if not isinstance(source, str) or not source.startswith("https://"):
        raise StackChangesError(
            f"{where}: field 'source': expected a link (https://...) to the commit or release "
            f"note that explains the change, got {source!r}"
        )
    stacks = item.get("stacks")
    if (
        not isinstance(stacks, list)
        or len(stacks) != 2
        or not all(isinstance(s, str) and s for s in stacks)
        or stacks[0] == stacks[1]
    ):
        raise StackChangesError(f"{where}: field 'stacks': expected two stack ids, [from, to]")
    return Cause(
        item["claim"],
        stacks[0],
        stacks[1],
        " ".join(item["cause"].split()),
        source,
        item["tag"].strip(),
    )
