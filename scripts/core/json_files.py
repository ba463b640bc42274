"""JSON files written the project's way (keys sorted, indented, no NaN, replaced atomically)
and read the way they are written: NaN, Infinity and a key given twice are refused.

Standard library only: tf-doctor.pyz bundles it for tune's reports.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def loads(text: str) -> object:
    """JSON text parsed; ValueError for NaN, Infinity or a key given twice in one object. A
    reviewer reads one value of a repeated key in the diff while the tools use the other, and
    a non-finite number passes a JSON Schema's "number"."""
    return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_one_value_per_key)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def _one_value_per_key(pairs: list[tuple[str, object]]) -> dict:
    data: dict = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"the key {key[:80]!r} appears twice in one object")
        data[key] = value
    return data


def json_text(data: dict) -> str:
    """The project's JSON form: indented, keys sorted, no NaN or infinity."""
    return json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON to a temporary file beside `path`, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json_text(data)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
