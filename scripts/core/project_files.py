"""Read the project's own files (data/*.json, pyproject.toml, module sources) by path.

From a checkout they are ordinary files. From the doctor's zipapp (tf-doctor.pyz) the
project root is the archive itself, so the same paths are read as archive members.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def read_text(path: Path | str) -> str:
    """The text of a project file, whether the project is a folder or a zip archive."""
    path = Path(path)
    archive = next((p for p in (path, *path.parents) if p.is_file()), None)
    if archive is not None and archive != path and zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as opened:
            return opened.read(path.relative_to(archive).as_posix()).decode("utf-8")
    return path.read_text(encoding="utf-8")
