"""tensorflow-metal compatibility tables (data/compatibility.json), for doctor and versions page.

The file holds Apple's official table and one user's version-by-version test, each row with
its source link. This module only reads and looks up; the data is edited in the JSON file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from scripts.core import project_files, version_order

DATA = project_files.ROOT / "data" / "compatibility.json"


def version_tuple(text: str | None) -> tuple[int, ...]:
    """The release numbers: '2.16.0rc1' -> (2, 16, 0) (version_order.release)."""
    return version_order.release(text)


def same_version(a: str | None, b: str | None) -> bool:
    """Equal as versions: '1.1' equals '1.1.0', '2.16.0rc1' does not equal '2.16.0'."""
    first, second = version_order.order(a), version_order.order(b)
    if first is None or second is None:
        return (a or "").strip() == (b or "").strip()
    return first == second


def version_key(text: str | None) -> tuple:
    """Sorts versions as pip does (2.16.0rc1 before 2.16.0); text that is no version last."""
    key = version_order.order(text)
    return (0, key, text or "") if key is not None else (1, text or "")


def minor(text: str | None) -> tuple[int, ...]:
    """Major and minor version only: '2.16.2' -> (2, 16)."""
    return version_tuple(text)[:2]


@cache
def load(path: Path = DATA) -> dict:
    """Both tables as stored; tests and the versions page read the same file."""
    return json.loads(project_files.read_text(path))


@dataclass(frozen=True)
class Pairing:
    """What the two tables say about one TensorFlow / tensorflow-metal pair."""

    official_metal: str | None  # the metal version Apple pairs with this TensorFlow
    official_row: dict | None
    tested_row: dict | None  # the user's test of this exact metal with this TF minor

    @property
    def verdict(self) -> str:
        """'fail' (tested and failed), 'ok' (tested or in Apple's table) or 'unlisted'."""
        if self.tested_row is not None:
            return "ok" if self.tested_row["result"] == "OK" else "fail"
        return "ok" if self.official_row is not None else "unlisted"


def official_rows(tf_version: str, data: dict | None = None) -> list[dict]:
    """Apple's rows whose TensorFlow range holds this version's minor."""
    data = data or load()
    tf = minor(tf_version)
    return [
        row
        for row in data["official"]["rows"]
        if minor(row["tf_min"]) <= tf <= minor(row["tf_max"])
    ]


def tested_rows(tf_version: str, data: dict | None = None) -> list[dict]:
    """The user's tested rows for this TensorFlow minor version (any metal)."""
    data = data or load()
    return [row for row in data["tested"]["rows"] if minor(row["tensorflow"]) == minor(tf_version)]


def row_metal(row: dict) -> str:
    """The metal version an official row means: as printed, or as this guide reads a typo."""
    return row.get("metal_read_as") or row["metal"]


def pairing(tf_version: str, metal_version: str, data: dict | None = None) -> Pairing:
    """Look a pair up in both tables (TensorFlow by minor version, metal exactly)."""
    official = official_rows(tf_version, data)
    tested = [
        row for row in tested_rows(tf_version, data) if same_version(row["metal"], metal_version)
    ]
    return Pairing(
        official_metal=row_metal(official[0]) if official else None,
        official_row=next((r for r in official if same_version(row_metal(r), metal_version)), None),
        tested_row=tested[0] if tested else None,
    )


def macos_required(metal_version: str | None, data: dict | None = None) -> str | None:
    """The oldest macOS Apple's table gives for this tensorflow-metal version."""
    data = data or load()
    rows = [r for r in data["official"]["rows"] if same_version(row_metal(r), metal_version)]
    return rows[0]["macos"] if rows else None


def working_metal(tf_version: str, data: dict | None = None) -> str | None:
    """The metal to suggest: Apple's pairing unless the test saw it fail, else one that passed."""
    tested = tested_rows(tf_version, data)
    failed = [row["metal"] for row in tested if row["result"] != "OK"]
    for row in official_rows(tf_version, data):
        if not any(same_version(row_metal(row), metal) for metal in failed):
            return row_metal(row)
    passed = [row["metal"] for row in tested if row["result"] == "OK"]
    return max(passed, key=version_key) if passed else None
