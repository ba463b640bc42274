"""JSON files written the project's way: keys sorted, indented, no NaN, replaced atomically.

Standard library only: tf-doctor.pyz bundles it for tune's reports.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


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
