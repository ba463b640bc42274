"""The Mac stacks (data/mac_stacks.json): which one a reader's install is, and the Set up table.

One file feeds the Set up page and the doctor, so the recommendation cannot drift between them.
Standard library only: the doctor imports this module.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from scripts.core import project_files
from scripts.core.compatibility import minor, same_version

DATA = project_files.ROOT / "data" / "mac_stacks.json"
OUTPUT = "setup/stacks.md"
RECOMMENDATION_OUTPUT = "setup/recommendation.md"
ASPECTS = {
    "imports": "Imports and loads",
    "gpu_used": "GPU used",
    "results_correct": "Results match the CPU",
    "speed": "Speed",
}
KERAS_FAMILIES = ("keras2", "keras3", "any")
ADVICE = ("recommended", "alternative", "warn")
FIELDS = ("id", "name", "match", "python", "install", "advice", "verified", "known_issues")


class StacksError(ValueError):
    """data/mac_stacks.json is missing a field or refers to something it does not define."""


@cache
def load(path: Path = DATA) -> dict:
    """The file as stored, checked; tests and the Set up page read the same file."""
    data = json.loads(project_files.read_text(path))
    check(data, path.name)
    return data


def check(data: dict, where: str) -> None:
    """Every stack has its fields, known statuses and sources that the file defines."""
    sources, statuses = data.get("sources", {}), data.get("statuses", {})
    ids = [stack.get("id") for stack in data.get("stacks", [])]
    if data.get("recommended") not in ids:
        raise StacksError(f"{where}: recommended must name one of the stacks {ids}")
    for stack in data["stacks"]:
        at = f"{where}: stack {stack.get('id')!r}"
        for field in FIELDS:
            if field not in stack:
                raise StacksError(f"{at}: missing field {field!r}")
        if stack["advice"] != "recommended" and stack["id"] == data["recommended"]:
            raise StacksError(f"{at}: the recommended stack needs advice 'recommended'")
        if stack["advice"] not in ADVICE:
            raise StacksError(f"{at}: advice must be one of {ADVICE}")
        if stack["match"].get("keras") not in KERAS_FAMILIES:
            raise StacksError(f"{at}: match.keras must be one of {KERAS_FAMILIES}")
        if set(stack["verified"]) != set(ASPECTS):
            raise StacksError(f"{at}: verified must have exactly {sorted(ASPECTS)}")
        items = list(stack["verified"].values()) + stack["known_issues"]
        for item in items:
            if "status" in item and item["status"] not in statuses:
                raise StacksError(f"{at}: status {item['status']!r} is not in statuses")
            unknown = [name for name in item.get("sources", []) if name not in sources]
            if unknown:
                raise StacksError(f"{at}: sources {unknown} are not defined in 'sources'")
        metal = stack["match"]["metal"]
        if metal and metal not in data.get("metal_wheels", {}):
            raise StacksError(f"{at}: metal_wheels has no entry for tensorflow-metal {metal}")
    unknown = [name for name in data.get("other_pythons", {}).get("stacks", []) if name not in ids]
    if unknown:
        raise StacksError(f"{where}: other_pythons names stacks {unknown} that are not defined")


def recommended(data: dict | None = None) -> dict:
    data = data or load()
    return next(s for s in data["stacks"] if s["id"] == data["recommended"])


def _python_in(low: str, high: str, python: str | None) -> bool:
    return minor(low) <= minor(python) <= minor(high)


def python_fits(stack: dict, python: str | None) -> bool:
    """Whether every package of the stack has a wheel for this Python (its recorded range)."""
    return _python_in(*stack["python"], python)


def for_python(python: str | None, data: dict | None = None) -> dict | None:
    """The stack to install on this Python: the recommended one where its wheels exist, else
    the first of `other_pythons` whose wheels do; None when no listed stack installs there."""
    data = data or load()
    best = recommended(data)
    if not python or python_fits(best, python):
        return best
    stacks = {stack["id"]: stack for stack in data["stacks"]}
    names = data.get("other_pythons", {}).get("stacks", [])
    return next((stacks[n] for n in names if python_fits(stacks[n], python)), None)


def metal_wheels(metal: str | None, data: dict | None = None) -> tuple[str, str] | None:
    """(lowest, highest) Python with a wheel of this tensorflow-metal release; None if unknown."""
    table = (data or load()).get("metal_wheels", {})
    found = next((v for k, v in table.items() if k != "about" and same_version(k, metal)), None)
    return (found[0], found[1]) if found else None


def metal_installs(metal: str | None, python: str | None, data: dict | None = None) -> bool:
    """Whether this tensorflow-metal release has a wheel for this Python (False when unknown)."""
    span = metal_wheels(metal, data)
    if span is None or not python:
        return span is not None
    return _python_in(span[0], span[1], python)


def pinned_version(stack: dict, package: str) -> str | None:
    """The version the stack's install lines pin for a package ("tensorflow==2.15.0" gives
    2.15.0), or None where they leave it unpinned or do not install it."""
    found = re.search(rf'"{re.escape(package)}==([^"*]+)"', " ".join(stack["install"]))
    return found.group(1) if found else None


def install_command(stack: dict) -> str:
    """The stack's install lines joined into one shell command."""
    return " && ".join(stack["install"])


def identify(tf: str, metal: str | None, keras: str, data: dict | None = None) -> dict | None:
    """The stack this install is: TensorFlow by minor version, metal exactly, Keras family.

    keras is 'keras2' (tf.keras is Keras 2: TensorFlow before 2.16, or tf-keras with
    TF_USE_LEGACY_KERAS) or 'keras3'.
    """
    data = data or load()
    for stack in data["stacks"]:
        match = stack["match"]
        minors = match["tensorflow"]
        if "any" not in minors and minor(tf) not in [minor(m) for m in minors]:
            continue
        if match["metal"] is None and metal is not None:
            continue
        if match["metal"] is not None and not same_version(match["metal"], metal):
            continue
        if match["keras"] not in ("any", keras):
            continue
        return stack
    return None


def is_warned(stack: dict) -> bool:
    """Whether the doctor warns about this stack (its `advice` in the data file)."""
    return stack["advice"] == "warn"


def _links(names: list[str], data: dict) -> str:
    return ", ".join(f"[{_label(data['sources'][n])}]({data['sources'][n]})" for n in names)


def _label(url: str) -> str:
    """'https://github.com/o/r/issues/5' -> 'o/r#5'; other addresses -> their host."""
    parts = url.split("/")
    if "github.com" in url and len(parts) > 6 and parts[5] in ("issues", "pull"):
        return f"{parts[3]}/{parts[4]}#{parts[6]}"
    if "github.com" in url and len(parts) > 4:
        return f"{parts[3]}/{parts[4]}"
    return parts[2] if len(parts) > 2 else url


def render(data: dict | None = None) -> str:
    """The Set up page's comparison: a summary table, then each stack with its evidence."""
    data = data or load()
    statuses = data["statuses"]
    lines = [
        "| Stack | Python (wheels) | " + " | ".join(ASPECTS.values()) + " |",
        "|" + "---|" * (len(ASPECTS) + 2),
    ]
    for stack in data["stacks"]:
        mark = " **(recommended)**" if stack["id"] == data["recommended"] else ""
        cells = [statuses[stack["verified"][aspect]["status"]] for aspect in ASPECTS]
        low, high = stack["python"]
        lines.append(f"| {stack['name']}{mark} | {low}–{high} | " + " | ".join(cells) + " |")
    checked = data["wheels_checked"]
    lines += [
        "",
        "Python (wheels): the Python versions for which every package of the stack has a macOS "
        f"arm64 wheel on PyPI. Checked on {checked['date']}: {checked['how']}.",
    ]
    for stack in data["stacks"]:
        mark = " (recommended)" if stack["id"] == data["recommended"] else ""
        lines += ["", f"### {stack['name']}{mark}", ""]
        lines += ["```console"] + [f"$ {line}" for line in stack["install"]] + ["```", ""]
        for aspect, title in ASPECTS.items():
            item = stack["verified"][aspect]
            lines.append(
                f"- **{title}: {statuses[item['status']]}.** {item['text']}{_cite(item, data)}"
            )
        for issue in stack["known_issues"]:
            lines.append(f"- **Known issue:** {issue['text']}{_cite(issue, data)}")
    return "\n".join(lines) + "\n"


def render_recommendation(data: dict | None = None) -> str:
    """The recommendation with its reasons and caveats, and what other Pythons can use."""
    data = data or load()
    advice, stack = data["recommendation"], recommended(data)
    lines = [
        f"**On Python {advice['python']}: {stack['name']}.** "
        "The commands are under [Install](#install).",
        "",
        "Why this one:",
        "",
        *[f"- {reason}" for reason in advice["reasons"]],
        "",
        "Before you rely on it:",
        "",
        *[f"- {caveat}" for caveat in advice["caveats"]],
        "",
        f"**On Python 3.12:** {advice['python_3_12']}",
        "",
        f"**On Python 3.13 and later:** {advice['python_3_13']}",
    ]
    return "\n".join(lines) + "\n"


def _cite(item: dict, data: dict) -> str:
    links = _links(item["sources"], data)
    return f" ({links})" if links else ""
