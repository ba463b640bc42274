"""The versions page's compatibility table: Apple's tensorflow-metal table and a user's test.

Both come from data/compatibility.json (read through scripts.core.compatibility, the doctor's
reader too), side by side per TensorFlow minor version, with the pair pyproject.toml pins
marked. `python -m scripts.render` writes it to docs/_generated/versions/compatibility.md.
"""

from __future__ import annotations

import re
from pathlib import Path

from scripts.core import compatibility
from scripts.core.catalog import ROOT

OUTPUT = "versions/compatibility.md"  # relative to docs/_generated
PYPROJECT = ROOT / "pyproject.toml"


def pinned(pyproject_text: str) -> dict[str, list[str]]:
    """{'tensorflow': [...], 'tensorflow-metal': [...]} as pyproject.toml pins them for Macs."""
    found: dict[str, list[str]] = {"tensorflow": [], "tensorflow-metal": []}
    for name, version, marker in re.findall(
        r'"(tensorflow|tensorflow-macos|tensorflow-metal)==([\w.]+);([^"]*)"', pyproject_text
    ):
        if "darwin" not in marker:
            continue
        key = "tensorflow" if name == "tensorflow-macos" else name
        python = re.search(r"python_version\s*([<>=]+)\s*'([\d.]+)'", marker)
        found[key].append(version + (f" (Python {python[1]} {python[2]})" if python else ""))
    return found


def minors(data: dict) -> list[tuple[int, ...]]:
    """Every TensorFlow minor version either table mentions, newest first."""
    seen = set()
    for row in data["official"]["rows"]:
        low, high = compatibility.minor(row["tf_min"]), compatibility.minor(row["tf_max"])
        seen |= {(low[0], m) for m in range(low[1], high[1] + 1)}
    seen |= {compatibility.minor(row["tensorflow"]) for row in data["tested"]["rows"]}
    return sorted(seen, reverse=True)


def _printed(row: dict) -> str:
    """The metal version as Apple's row prints it, with this guide's reading of a typo."""
    if row.get("metal_read_as"):
        return f"{row['metal']} (read here as {row['metal_read_as']})"
    return row["metal"]


def official_cell(version: str, data: dict) -> tuple[str, str]:
    rows = compatibility.official_rows(version, data)
    if not rows:
        return "not listed", ""
    # Ties in version (1.1.0 as printed and as read) sort by text, so the output is stable.
    metals = sorted({_printed(r) for r in rows}, key=compatibility.version_key)
    macos = sorted({r["macos"] for r in rows}, key=compatibility.version_key)
    notes = [r["features"] for r in rows if r["features"]]
    return f"{' / '.join(metals)} (macOS {' / '.join(macos)}+)", "; ".join(notes)


def tested_cell(version: str, data: dict) -> str:
    rows = compatibility.tested_rows(version, data)
    if not rows:
        return "not tested"
    parts = []
    for row in rows:
        if row["result"] == "OK":
            parts.append(f"{row['metal']} ({row['tensorflow']}): works")
            continue
        where = f" at {row['failed_at']}" if row.get("failed_at") else ""
        error = f": `{row['error']}`" if row.get("error") else ""
        links = "".join(
            f" [#{url.rstrip('/').rsplit('/', 1)[-1]}]({url})" for url in row.get("see_also", [])
        )
        parts.append(f"{row['metal']} ({row['tensorflow']}): **fails{where}**{error}{links}")
    return "<br>".join(parts)


def render(data: dict | None = None, pyproject_text: str | None = None) -> str:
    """The side-by-side table, its sources and the pinned pair, as Markdown."""
    data = data or compatibility.load()
    if pyproject_text is None:
        pyproject_text = PYPROJECT.read_text(encoding="utf-8")
    pins = pinned(pyproject_text)
    pinned_minors = {compatibility.minor(v) for v in pins["tensorflow"]}
    official, tested = data["official"], data["tested"]
    lines = [
        "| TensorFlow | Apple's table: tensorflow-metal | Apple's note "
        "| One user's test: tensorflow-metal (TensorFlow tested) |",
        "|---|---|---|---|",
    ]
    for minor in minors(data):
        version = ".".join(map(str, minor))
        metal, note = official_cell(version, data)
        label = f"**{version}** (pinned here)" if minor in pinned_minors else version
        lines.append(f"| {label} | {metal} | {note} | {tested_cell(version, data)} |")
    lines += [
        "",
        f"Apple's table: [{official['title']}]({official['source']}). "
        + " ".join(official.get("notes", [])),
        "",
        f"The test: [{tested['title']}]({tested['source']}), on a {tested['machine']}. "
        'A pair "works" when TensorFlow imported with the plugin and Apple\'s verification '
        "script ran.",
        "",
        "This project's own environment pins (pyproject.toml, macOS arm64): tensorflow "
        f"{', '.join(pins['tensorflow']) or '–'} with tensorflow-metal "
        f"{' or '.join(pins['tensorflow-metal']) or '–'}.",
    ]
    return "\n".join(lines) + "\n"


def write(out_dir: Path) -> Path:
    path = out_dir / OUTPUT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(), encoding="utf-8")
    return path


if __name__ == "__main__":
    print(render(), end="")
