"""Every data format of the project is defined once, by a JSON Schema under data/.

FORMATS maps each data file (a path or a glob, relative to the repository) to its schema,
data/<name>.schema.json; a schema may refer to the $defs of another under data/ (whose $id is
its file name), and `validator` embeds that one in it. `check` holds parsed data to its schema
and raises FormatError naming the file, the field and what was expected; the loaders call it,
then add only what a schema cannot say (one field against another, one file against another).
A test lists every file in data/, results/ and the benchmarks' committed runs, and fails on one
that FORMATS does not name or whose schema is missing.

Not for tf-doctor.pyz: it imports jsonschema. The stdlib modules the archive ships
(compatibility, mac_recipes, stack_match) read files that a test holds to their schema here.
"""

from __future__ import annotations

import copy
import fnmatch
import functools
import json
import re
from pathlib import Path

import jsonschema
import yaml

from scripts.core import json_files, project_files, yaml_files

# data file (glob, relative to the repository) -> its schema's name (data/<name>.schema.json)
FORMATS = {
    "results/*.json": "results",
    "data/claims/*.yml": "claims",
    "data/command_purposes.yml": "command_purposes",
    "data/commands_record.json": "commands_record",
    "data/compatibility.json": "compatibility",
    "data/machine_names.yml": "machine_names",
    "data/mac_recipes.json": "mac_recipes",
    "data/measured_stacks.yml": "measured_stacks",
    "data/measured_stacks.json": "measured_stacks_portable",
    "data/reference_results.yml": "reference_results",
    "data/snippet_workloads.json": "snippet_workloads",
    "data/sources.yml": "sources",
    "data/stack_changes.yml": "stack_changes",
    "data/symptoms.yml": "symptoms",
    "data/tune_spread.json": "tune_spread",
    "data/variance_strata.yml": "variance_strata",
    # tune's committed benchmark runs (benchmarks/tune/), read back by their loaders
    "docs/_generated/tune/batch_plateau.json": "tune_batch_plateau",
    "docs/_generated/tune/ground_truth.json": "tune_ground_truth",
    "docs/_generated/tune/overhead.json": "tune_overhead",
    "docs/_generated/tune/truth_runs.json": "tune_truth_runs",
    "docs/_generated/tune/validation.json": "tune_validation",
}

WORDS = {"integer": "a whole number", "number": "a finite number", "string": "text",
         "object": "an object", "array": "a list", "boolean": "true or false"}  # fmt: skip


class FormatError(ValueError):
    """A data file that does not hold its format; the message names the file and field."""


def schema_path(name: str, root: Path = project_files.ROOT) -> Path:
    return root / "data" / f"{name}.schema.json"


def format_of(path: Path, root: Path = project_files.ROOT) -> str | None:
    """The name of the format a data file holds, or None when FORMATS names no such file."""
    relative = path.resolve().relative_to(root.resolve()).as_posix()
    return next((name for glob, name in FORMATS.items() if fnmatch.fnmatch(relative, glob)), None)


def referred(schema: object) -> set[str]:
    """The names of the other schemas a schema's $refs point into ("x.schema.json#/..." -> x)."""
    if isinstance(schema, list):
        return set().union(*map(referred, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    own = {ref.split("#")[0].removesuffix(".schema.json")} if isinstance(ref, str) else set()
    return (own - {""}) | referred(list(schema.values()))


def embedded(schema: dict) -> dict[str, dict]:
    """Every schema under data/ that this one refers to, directly or through another, by its
    file name (which is its $id)."""
    found: dict[str, dict] = {}
    pending = sorted(referred(schema))
    while pending:
        name = pending.pop()
        if f"{name}.schema.json" in found:
            continue
        part = json.loads(schema_path(name).read_text(encoding="utf-8"))
        if part.get("$id") != f"{name}.schema.json":
            raise FormatError(f"{name}.schema.json: expected $id {name}.schema.json (a $ref's)")
        found[f"{name}.schema.json"] = part
        pending += sorted(referred(part))
    return found


def bundled(name: str) -> dict:
    """The schema with every schema it refers to embedded in its $defs: a compound schema
    document, each part found by its $id, so that no $ref is retrieved from anywhere."""
    schema = json.loads(schema_path(name).read_text(encoding="utf-8"))
    parts = embedded(schema)
    return {**schema, "$defs": {**schema.get("$defs", {}), **parts}} if parts else schema


@functools.cache
def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = bundled(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def where(path) -> str:
    """A field's place as the messages name it: stacks[2].lock, sources[0].supports[1].quote."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "the top level"


def _required(error: jsonschema.ValidationError) -> str:
    missing = [k for k in error.validator_value if k not in error.instance]
    return f"missing field(s) {', '.join(missing)}"


def _unknown(error: jsonschema.ValidationError) -> str:
    known = error.schema.get("properties", {})
    unknown = sorted(str(k)[:40] for k in error.instance if k not in known)
    return f"unknown field(s) {', '.join(map(repr, unknown))}; expected only {', '.join(known)}"


def _unevaluated(error: jsonschema.ValidationError) -> str:
    """A field that neither the schema nor the part it refers to ($ref) defines."""
    found = re.search(r"\((.+) (?:was|were) unexpected\)", error.message)
    return f"unknown field(s) {found.group(1)}" if found else error.message[:200]


def _type(error: jsonschema.ValidationError) -> str:
    value, wanted = error.instance, error.validator_value
    wanted = [wanted] if isinstance(wanted, str) else wanted
    names = [WORDS.get(w, w) for w in wanted if w != "null"] + ["null"] * ("null" in wanted)
    shown = type(value).__name__ if isinstance(value, (dict, list)) else repr(value)[:60]
    return f"expected {' or '.join(names)}, got {shown}"


def _pattern(error: jsonschema.ValidationError) -> str:
    meaning = error.schema.get("description")
    said = f"{str(error.instance)[:40]!r} does not match {error.validator_value}"
    return f"{said}: {meaning}" if meaning else said


def _min_length(error: jsonschema.ValidationError) -> str:
    least = error.validator_value
    return "expected non-empty text" if least == 1 else f"expected at least {least} characters"


def _minimum(error: jsonschema.ValidationError) -> str:
    kind = error.schema.get("type")
    whole = kind == "integer" or (isinstance(kind, list) and "integer" in kind)
    wanted = "a whole number" if whole else "a number"
    return f"expected {wanted} >= {error.validator_value}, got {error.instance!r}"


def _exclusive_minimum(error: jsonschema.ValidationError) -> str:
    bound = error.validator_value
    wanted = "a positive number" if bound == 0 else f"more than {bound}"
    return f"expected {wanted}, got {error.instance!r}"


def _one_of(error: jsonschema.ValidationError) -> str:
    allowed = error.validator_value if error.validator == "enum" else [error.validator_value]
    return f"expected one of {', '.join(map(repr, allowed))}, got {str(error.instance)[:40]!r}"


# What each kind of schema error says, in words: what was expected and what was found.
MESSAGES = {
    "required": _required,
    "additionalProperties": _unknown,
    "unevaluatedProperties": _unevaluated,
    "type": _type,
    "pattern": _pattern,
    "maxLength": lambda e: f"longer than {e.validator_value} characters",
    "minLength": _min_length,
    "maxItems": lambda e: f"more than {e.validator_value} items",
    "minItems": lambda e: f"expected at least {e.validator_value} item(s), got {len(e.instance)}",
    "exclusiveMinimum": _exclusive_minimum,
    "minimum": _minimum,
    "maximum": lambda e: f"expected at most {e.validator_value}, got {e.instance!r}",
    "uniqueItems": lambda e: "expected no item twice",
    "enum": _one_of,
    "const": _one_of,
}


def schema_message(error: jsonschema.ValidationError) -> str:
    """One schema error in words: what was expected and what was found."""
    said = MESSAGES.get(str(error.validator))
    return said(error) if said else error.message[:200]


def problems(data: object, name: str) -> list[str]:
    """Every place data breaks the schema `name`, as 'field: what was expected'."""
    found = sorted(validator(name).iter_errors(data), key=lambda e: list(map(str, e.path)))
    said = (f"{where(error.absolute_path)}: {schema_message(error)}" for error in found)
    return list(dict.fromkeys(said))  # one 'missing field(s)' line for all a mapping misses


def check(data: object, path: Path, name: str | None = None) -> None:
    """Raise FormatError, naming the file and each field at fault (the first five), unless
    data holds the format of `path` (or the format `name`)."""
    name = name or format_of(path)
    if name is None:
        raise FormatError(f"{path}: no data format is defined for this file (data_formats.py)")
    found = problems(data, name)
    if found:
        more = f"; and {len(found) - 5} more" if len(found) > 5 else ""
        raise FormatError(f"{path.name}: " + "; ".join(found[:5]) + more)


def read(path: Path, name: str | None = None) -> object:
    """A YAML or JSON data file, parsed and held to its format. The same bytes are parsed and
    checked once per process (a render reads data/measured_stacks.yml hundreds of times);
    each caller gets its own copy."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise FormatError(f"{path.name}: cannot read it: {error}") from error
    data = _parsed(raw, path.name, path.suffix)
    _held(raw, path, name)
    return copy.deepcopy(data)


@functools.lru_cache(maxsize=256)
def _parsed(raw: bytes, file_name: str, suffix: str) -> object:
    """The file's bytes parsed (read's cache: never handed out, only copied)."""
    try:
        text = raw.decode("utf-8")
        # NaN, Infinity or a key given twice is refused in either syntax (json_files, yaml_files)
        return json_files.loads(text) if suffix == ".json" else yaml_files.safe_load(text)
    except (UnicodeDecodeError, ValueError, yaml.YAMLError) as error:
        raise FormatError(f"{file_name}: cannot read it: {error}") from error


@functools.lru_cache(maxsize=256)
def _held(raw: bytes, path: Path, name: str | None) -> bool:
    """check() of these bytes at this path, made once; a failure raises and is not kept."""
    check(_parsed(raw, path.name, path.suffix), path, name)
    return True
