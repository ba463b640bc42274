"""Which of the guide's measured stacks an environment is: matched on TensorFlow's major.minor
and on the Keras that runs the code (Keras 3 from the keras package, or Keras 2 from tf-keras),
never on patch versions. An environment that is none of them gets the nearest one: the same
Keras major first, then the nearest TensorFlow. The results page holds each stack's verdicts
under the anchor #stack-<id>.

Standard library only: the doctor and tune import it inside tf-doctor.pyz, which has no yaml,
so it reads data/measured_stacks.json, written from data/measured_stacks.yml by
`python -m scripts.core.measured_stacks` (a test holds the two equal).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path

from scripts.core import project_files, software_stack
from scripts.core.compatibility import minor

DATA = project_files.ROOT / "data" / "measured_stacks.json"
RESULTS_PAGE = "docs/results.md"
KERAS_PACKAGES = {"keras": "keras", "tf-keras": "tf-keras", "tf_keras": "tf-keras"}


class StackDataError(ValueError):
    """data/measured_stacks.json does not hold the stacks in the expected shape."""


@dataclass(frozen=True)
class MeasuredStack:
    """A measured stack as the doctor and tune know it: the one definition of these fields.
    measured_stacks.Stack adds what building and running its environment needs."""

    id: str
    title: str
    tensorflow: str
    keras_package: str
    keras: str
    mac_measured: bool  # whether a Mac has measured it; else its verdicts are Linux CPUs'

    @property
    def link(self) -> str:
        """Its verdicts on the results page, as a source path of the site (the doctor and
        tune print it as guide_links.guide_address gives it)."""
        return f"{RESULTS_PAGE}#stack-{self.id}"


@dataclass(frozen=True)
class Match:
    """An environment's TensorFlow and Keras against the measured stacks."""

    tensorflow: str
    keras_package: str  # 'keras' or 'tf-keras': the package of the Keras that runs the code
    keras: str | None
    id: str  # the stack's id as results name it, measured or not
    stack: MeasuredStack | None  # the measured stack this is; None when it is none of them
    nearest: MeasuredStack  # the stack itself when measured, else the nearest measured one

    @property
    def measured(self) -> bool:
        return self.stack is not None

    @property
    def software(self) -> str:
        """'TensorFlow 2.16.2 with tf-keras 2.16.0' or '... with Keras 3.10.0'."""
        label = "tf-keras" if self.keras_package == "tf-keras" else "Keras"
        return f"TensorFlow {self.tensorflow} with {label} {self.keras or '?'}"

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "measured": self.measured,
            "nearest": self.nearest.id,
            "link": self.nearest.link,
            "tensorflow": self.tensorflow,
            "keras_package": self.keras_package,
            "keras": self.keras,
        }


FIELDS = tuple(f.name for f in fields(MeasuredStack))  # what data/measured_stacks.json holds
TEXT_FIELDS = tuple(f.name for f in fields(MeasuredStack) if f.type == "str")


@cache
def load(path: Path = DATA) -> tuple[MeasuredStack, ...]:
    """The measured stacks, in the file's order, each field checked (standard library only:
    a test holds the file to data/measured_stacks_portable.schema.json)."""
    where = path.name
    try:
        listed = json.loads(project_files.read_text(path)).get("stacks")
    except (OSError, KeyError, ValueError, AttributeError) as error:
        raise StackDataError(f"{where}: cannot read its stacks: {error}") from error
    if not isinstance(listed, list) or not listed:
        raise StackDataError(f"{where}: 'stacks' must be a non-empty list")
    stacks = []
    for number, item in enumerate(listed, 1):
        if not isinstance(item, dict) or not all(isinstance(item.get(f), str) for f in TEXT_FIELDS):
            raise StackDataError(f"{where}: stack {number}: expected text fields {TEXT_FIELDS}")
        if not isinstance(item.get("mac_measured"), bool):
            raise StackDataError(f"{where}: stack {number}: 'mac_measured' must be true or false")
        stacks.append(MeasuredStack(**{field: item[field] for field in FIELDS}))
    return tuple(stacks)


def keras_major(keras_package: str, keras: str | None, tensorflow: str) -> int:
    """2 or 3: tf-keras is Keras 2; the keras package by its version, or, when that is
    unknown, by what tf.keras is for this TensorFlow (Keras 3 from 2.16)."""
    if keras_package == "tf-keras":
        return 2
    if keras and minor(keras):
        return minor(keras)[0]
    return 3 if minor(tensorflow) >= (2, 16) else 2


def match(
    tensorflow: str,
    keras_package: str,
    keras: str | None,
    stacks: tuple[MeasuredStack, ...] | None = None,
) -> Match:
    """The measured stack this TensorFlow and Keras make, or the nearest one.

    keras_package: the package of the Keras that runs the code ('keras', 'tf-keras' or the
    module name 'tf_keras'); keras: its version.
    """
    stacks = stacks or load()
    package = KERAS_PACKAGES.get(keras_package)
    if package is None:
        raise ValueError(f"keras_package {keras_package!r}: expected one of {list(KERAS_PACKAGES)}")
    major = keras_major(package, keras, tensorflow)
    # the results' own naming: tf<major><minor>-keras3 or -tf-keras (software_stack.py)
    version = keras if keras and minor(keras) else f"{major}.0"
    stack_id = software_stack.name({"tensorflow": tensorflow, "keras": version})
    found = next((stack for stack in stacks if stack.id == stack_id), None)
    return Match(
        tensorflow, package, keras, stack_id, found, found or _nearest(stacks, tensorflow, major)
    )


def _nearest(stacks: tuple[MeasuredStack, ...], tensorflow: str, major: int) -> MeasuredStack:
    """The same Keras major first, then the nearest TensorFlow (the file's order breaks ties)."""
    ours = minor(tensorflow) + (0, 0)

    def distance(stack: MeasuredStack) -> tuple[int, int]:
        theirs = minor(stack.tensorflow)
        other_keras = keras_major(stack.keras_package, stack.keras, stack.tensorflow) != major
        gap = abs((ours[0] - theirs[0]) * 1000 + ours[1] - theirs[1])
        return int(other_keras), gap

    return min(stacks, key=distance)
