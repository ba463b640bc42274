"""The Set up page's Mac install recipes (data/mac_recipes.json, read through
scripts/core/mac_recipes.py, the doctor's reader too): a summary table, each recipe with its
commands and evidence, and the recommendation with its reasons and caveats.
`python -m scripts.render` writes them to docs/_generated/setup/.
"""

from __future__ import annotations

from scripts.core.mac_recipes import load, recommended

OUTPUT = "setup/recipes.md"
RECOMMENDATION_OUTPUT = "setup/recommendation.md"
# The table's columns: the aspects every recipe's `verified` holds (the schema requires them).
ASPECTS = {
    "imports": "Imports and loads",
    "gpu_used": "GPU used",
    "results_correct": "Results match the CPU",
    "speed": "Speed",
}


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
    """The Set up page's comparison: a summary table, then each recipe with its evidence."""
    data = data or load()
    statuses = data["statuses"]
    lines = [
        "| Recipe | Python (wheels) | " + " | ".join(ASPECTS.values()) + " |",
        "|" + "---|" * (len(ASPECTS) + 2),
    ]
    for recipe in data["recipes"]:
        mark = " **(recommended)**" if recipe["id"] == data["recommended"] else ""
        cells = [statuses[recipe["verified"][aspect]["status"]] for aspect in ASPECTS]
        low, high = recipe["python"]
        lines.append(f"| {recipe['name']}{mark} | {low}–{high} | " + " | ".join(cells) + " |")
    checked = data["wheels_checked"]
    lines += [
        "",
        "Python (wheels): the Python versions for which every package of the recipe has a macOS "
        f"arm64 wheel on PyPI. Checked on {checked['date']}: {checked['how']}.",
    ]
    for recipe in data["recipes"]:
        mark = " (recommended)" if recipe["id"] == data["recommended"] else ""
        lines += ["", f"### {recipe['name']}{mark}", ""]
        lines += ["```console"] + [f"$ {line}" for line in recipe["install"]] + ["```", ""]
        for aspect, title in ASPECTS.items():
            item = recipe["verified"][aspect]
            lines.append(
                f"- **{title}: {statuses[item['status']]}.** {item['text']}{_cite(item, data)}"
            )
        for issue in recipe["known_issues"]:
            lines.append(f"- **Known issue:** {issue['text']}{_cite(issue, data)}")
    return "\n".join(lines) + "\n"


def render_recommendation(data: dict | None = None) -> str:
    """The recommendation with its reasons and caveats, and what other Pythons can use."""
    data = data or load()
    advice, recipe = data["recommendation"], recommended(data)
    lines = [
        f"**On Python {advice['python']}: {recipe['name']}.** "
        "The commands are under [Install](#install).",
        "",
        "Why this one:",
        "",
        *[f"- {reason}" for reason in advice["reasons"]],
        "",
        "Before you rely on it (the checks to run are under "
        "[Before you train](#before-you-train-one-line-each)):",
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
