"""A message held to its TypedDict (scripts/core/typed_json.py): what each kind of field
accepts and refuses, and that every refusal names the source, the field and what was expected."""

from __future__ import annotations

import json
from typing import Any, Literal, Optional, TypedDict, Union

import pytest

from scripts.core import typed_json


class Stage(TypedDict):
    name: str
    python: bool


class Found(TypedDict):
    point: float
    low: float


class Failed(TypedDict):
    error: str


class Base(TypedDict):
    count: int
    times: list[float]
    stages: list[Stage]
    labels: dict[str, str]
    why: str | None


class Message(Base, total=False):
    kind: Literal["fork", "new process"]
    flag: Literal[False]
    result: Union[Found, Failed]  # noqa: UP007 (the Python 3.9 form; `why` is X | Y)
    note: Optional[str]  # noqa: UP045
    anything: Any
    nested: list[list[int]]


GOOD: Message = {
    "count": 3, "times": [0.5, 1], "stages": [{"name": "map", "python": True}],
    "labels": {"a": "first"}, "why": None, "kind": "fork", "flag": False,
    "result": {"point": 1.2, "low": 1.1}, "note": "n", "anything": [{"x": None}],
    "nested": [[1, 2], []],
}  # fmt: skip


def test_a_message_that_holds_its_type_is_returned_as_it_is():
    assert typed_json.check(GOOD, Message, "m") is GOOD
    assert typed_json.check({**GOOD, "result": {"error": "e"}, "why": "w"}, Message, "m") == {
        **GOOD,
        "result": {"error": "e"},
        "why": "w",
    }
    required_only = {k: GOOD[k] for k in ("count", "times", "stages", "labels", "why")}
    assert typed_json.check(required_only, Message, "m") == required_only


# (a change to the good message, what the refusal says after "source: ")
REFUSED = {
    "a missing field": (lambda m: m.pop("count"), "the top level: missing field(s) count"),
    "an unknown field": (
        lambda m: m.update(cuont=3),
        "the top level: unknown field(s) 'cuont'; expected only count, times,",
    ),
    "a bool for a whole number": (
        lambda m: m.update(count=True),
        "count: expected a whole number, got True",
    ),
    "a float for a whole number": (
        lambda m: m.update(count=3.0),
        "count: expected a whole number, got 3.0",
    ),
    "text in a list of numbers": (
        lambda m: m["times"].append("fast"),
        "times[2]: expected a finite number, got 'fast'",
    ),
    "NaN for a number": (
        lambda m: m["times"].append(float("nan")),
        "times[2]: expected a finite number, got nan",
    ),
    "a list's item missing a field": (
        lambda m: m["stages"][0].pop("python"),
        "stages[0]: missing field(s) python",
    ),
    "an object's value of the wrong type": (
        lambda m: m["labels"].update(b=2),
        "labels.b: expected text, got 2",
    ),
    "a number for optional text": (lambda m: m.update(why=0), "why: expected text or null, got 0"),
    "a literal outside its values": (
        lambda m: m.update(kind="thread"),
        "kind: expected one of 'fork', 'new process', got 'thread'",
    ),
    "0 for the literal False": (lambda m: m.update(flag=0), "flag: expected one of False, got 0"),
    "an object that is neither member of a union": (
        lambda m: m.update(result={"point": 1.0}),
        "result: missing field(s) low; or result: missing field(s) error",
    ),
    "a list for a union of objects": (
        lambda m: m.update(result=[]),
        "result: expected an object, got list",
    ),
    "a list of lists holding text": (
        lambda m: m["nested"][1].append("x"),
        "nested[1][0]: expected a whole number, got 'x'",
    ),
    "an object for a list": (
        lambda m: m.update(nested={}),
        "nested: expected a list of lists of whole numbers, got dict",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_message_that_breaks_its_type_is_refused_naming_the_source_and_field(case):
    change, expected = REFUSED[case]
    message = json.loads(json.dumps(GOOD))
    change(message)
    with pytest.raises(typed_json.MessageError) as refused:
        typed_json.check(message, Message, "child's report, /tmp/r.json")
    said = str(refused.value)
    assert said.startswith("child's report, /tmp/r.json: "), said
    assert expected in said, said


def test_a_message_that_is_not_an_object_is_refused():
    with pytest.raises(
        typed_json.MessageError, match=r"^m: the top level: expected an object, got list$"
    ):
        typed_json.check([], Message, "m")


def test_a_file_is_read_and_checked_and_one_that_is_no_json_is_named(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(GOOD), encoding="utf-8")
    assert typed_json.read(path, Message, "the child's report") == GOOD
    path.write_text("{", encoding="utf-8")
    with pytest.raises(typed_json.MessageError, match=rf"^the child's report, {path}: cannot read"):
        typed_json.read(path, Message, "the child's report")
    with pytest.raises(typed_json.MessageError, match="cannot read it as JSON"):
        typed_json.read(tmp_path / "missing.json", Message, "the child's report")
