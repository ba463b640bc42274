"""A message between a parent process and its child, held to its TypedDict when read.

A message's format is written once, as a TypedDict beside the code that writes it (a field
is required unless its class is total=False; a total=False subclass adds optional fields to a
total base). `read` parses a message file and `check` a parsed one; both raise MessageError
naming the file, the field and what was expected, where the reader would otherwise meet a
bare KeyError or TypeError later.

Understood: str, int (a whole number, not a bool), float (a finite number), bool, None,
typing.Any, typing.Literal, typing.Optional and typing.Union (or X | Y), list and list[X],
dict and dict[str, X], and nested TypedDicts; an object's unknown fields are refused. Standard
library only, and Python 3.9 too (tf-doctor.pyz carries tune's messages): the annotations are
evaluated at run time, so a module read on 3.9 writes Optional[X], not X | None.
"""

from __future__ import annotations

import functools
import json
import math
import types
import typing
from pathlib import Path

UNION_TYPES = (typing.Union, getattr(types, "UnionType", typing.Union))  # X | Y on 3.10+
NONE = type(None)
WORDS = {str: "text", int: "a whole number", float: "a finite number", bool: "true or false",
         NONE: "null", list: "a list", dict: "an object"}  # fmt: skip
PLURALS = {str: "text", int: "whole numbers", float: "finite numbers", bool: "true or false",
           NONE: "null", list: "lists", dict: "objects"}  # fmt: skip


class MessageError(ValueError):
    """A message that does not hold its format; the message names the file and the field."""


def is_typed_dict(form: object) -> bool:
    return isinstance(form, type) and issubclass(form, dict) and hasattr(form, "__required_keys__")


@functools.cache
def fields(form: type) -> dict[str, object]:
    """A TypedDict's fields and their types, evaluated once."""
    return typing.get_type_hints(form)


def expected(form: object) -> str:
    """What a value of this type is, in words."""
    origin, args = typing.get_origin(form), typing.get_args(form)
    if origin in UNION_TYPES:  # each kind once: Union[Found, Failed] is "an object"
        return " or ".join(dict.fromkeys(expected(arg) for arg in args))
    if origin is typing.Literal:
        return "one of " + ", ".join(map(repr, args))
    if is_typed_dict(form):
        return "an object"
    if origin is list and args:
        return f"a list of {items(args[0])}"
    if origin is dict and args:
        return f"an object of {items(args[1])}"
    return WORDS.get(origin or form, "anything" if form is typing.Any else str(form))


def items(form: object) -> str:
    """What a list's items (or an object's values) are, in words: 'finite numbers'."""
    origin, args = typing.get_origin(form), typing.get_args(form)
    if origin is list and args:
        return f"lists of {items(args[0])}"
    if origin is dict and args:
        return f"objects of {items(args[1])}"
    if is_typed_dict(form):
        return "objects"
    if origin is None and form in PLURALS:
        return PLURALS[form]
    return f"items that are {expected(form)}"


def shown(value: object) -> str:
    return type(value).__name__ if isinstance(value, (dict, list)) else repr(value)[:60]


def field_name(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


def holds_kind(value: object, form: object) -> bool:
    """Whether value is of the type's outer kind (an object for a TypedDict, a list for
    list[X]), its contents unchecked; a bool is no number."""
    kind = dict if is_typed_dict(form) else (typing.get_origin(form) or form)
    if kind is bool:
        return isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is NONE:
        return value is None
    return isinstance(kind, type) and isinstance(value, kind)


def mismatch(value: object, form: object, where: str = "") -> str | None:
    """The first place value breaks form, as 'field: what was expected, got what', or None."""
    origin, args = typing.get_origin(form), typing.get_args(form)
    wrong = f"{where or 'the top level'}: expected {expected(form)}, got {shown(value)}"
    if form is typing.Any:
        return None
    if origin in UNION_TYPES:
        return union_mismatch(value, args, where, wrong)
    if origin is typing.Literal:  # True is no 1, nor 1 True
        same = any(value == arg and type(value) is type(arg) for arg in args)
        return None if same else wrong
    if is_typed_dict(form):
        return object_mismatch(value, form, where)
    if not holds_kind(value, form) or (form is float and not math.isfinite(value)):
        return wrong
    if origin is list and args:
        return first([(item, args[0], f"{where}[{i}]") for i, item in enumerate(value)])
    if origin is dict and args:
        return first([(item, args[1], field_name(where, key)) for key, item in value.items()])
    return None


def first(checks: list[tuple[object, object, str]]) -> str | None:
    """The first mismatch of (value, form, where) checks, in order."""
    for value, form, where in checks:
        problem = mismatch(value, form, where)
        if problem:
            return problem
    return None


def union_mismatch(value: object, forms: tuple, where: str, wrong: str) -> str | None:
    """None where value holds one of the forms. Else, where some are of the value's kind (an
    object for Optional[Arm]), their own deeper problems, which say more than the union's
    words; else the union's words."""
    found = [mismatch(value, form, where) for form in forms]
    if any(problem is None for problem in found):
        return None
    near = [p for form, p in zip(forms, found) if holds_kind(value, form)]  # noqa: B905 (3.9)
    return "; or ".join(near) if near else wrong


def object_mismatch(value: object, form: type, where: str) -> str | None:
    """The first place value breaks a TypedDict: a missing or unknown field, else a field's
    own mismatch."""
    place = where or "the top level"
    if not isinstance(value, dict):
        return f"{place}: expected an object, got {shown(value)}"
    missing = [key for key in sorted(form.__required_keys__) if key not in value]
    if missing:
        return f"{place}: missing field(s) {', '.join(missing)}"
    known = fields(form)
    unknown = sorted(str(key)[:40] for key in value if key not in known)
    if unknown:
        return (
            f"{place}: unknown field(s) {', '.join(map(repr, unknown))}; expected only "
            f"{', '.join(known)}"
        )
    return first([(item, known[key], field_name(where, key)) for key, item in value.items()])


def check(data: object, form: type, source: str) -> typing.Any:
    """data, if it holds form; else MessageError naming the source (the file, and whose
    message it is), the field and what was expected."""
    problem = mismatch(data, form)
    if problem:
        raise MessageError(f"{source}: {problem}")
    return data


def read(path: Path, form: type, whose: str) -> typing.Any:
    """The message in the JSON file at path, held to form; `whose` names the message for the
    error ("tune's check child's report")."""
    source = f"{whose}, {path}"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise MessageError(f"{source}: cannot read it as JSON ({error})") from None
    return check(data, form, source)
