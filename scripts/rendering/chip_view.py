"""Published figures by chip: pick an Apple-silicon chip, see every figure published for it.

Rendered from data/reference_results.yml into docs/_generated/reported/by-chip.md, which
docs/chips.md includes. The choice is a row of radio buttons; docs/stylesheets/chips.css
shows only the chosen chip's panel with CSS (`:has`), so the filter needs no JavaScript. A
browser without `:has` shows every panel, one after another. Every string from the data file
is escaped as reference_figures escapes it.
"""

from __future__ import annotations

import re

from scripts.rendering import reference_figures
from scripts.rendering.reference_figures import cell_text, result_cell

OUTPUT = f"{reference_figures.OUTPUT_DIR}/by-chip.md"
FAMILIES = ("M1", "M2", "M3", "M4", "M5")
TIERS = ("", "Pro", "Max", "Ultra")  # "" is the base chip
# The chip a row's hardware names first: "Apple M2 Max, 38-core GPU" is the M2 Max. A row
# whose source names only the family, "Apple M1 (variant not stated ...", is in no panel.
CHIP = re.compile(r"Apple (M[1-9])(?: (Pro|Max|Ultra))?(?![A-Za-z0-9]| \(variant not stated)")
EVERY = "every"
# Out of the site search, as every published-figure table is: the search plugin ends an
# excluded element at the first closing tag of its kind, so each nested div carries the mark.
NOT_SEARCHED = "data-search-exclude"
# The chip panels show the factor pages' "Reported by others" boxes only, so a gap is a factor
# without a figure there; a factor page's own text may still cite one (docs/chips.md says which).
BOXES = 'the factor pages\' "Reported by others" boxes'
GAPS = f"Gaps, factors with no figure for the {{chip}} in {BOXES}:"
# Apple's tensorflow-metal test script (ResNet50 on CIFAR-100), run by several sources on
# several chips: one workload, so the overview also lists its runs side by side.
APPLE_SCRIPT = "Apple's test script"


def chip_names() -> list[str]:
    """The chips the picker offers, M1 to M5, each as base, Pro, Max and Ultra."""
    return [f"{family} {tier}".strip() for family in FAMILIES for tier in TIERS]


def chip_of(row: dict) -> str | None:
    """The chip of a row ("M1 Max"), or None when its hardware is not an Apple-silicon chip."""
    found = CHIP.match(str(row["hardware"]))
    return f"{found.group(1)} {found.group(2) or ''}".strip() if found else None


def slug(chip: str) -> str:
    return chip.lower().replace(" ", "-")


def figures(sources: list[dict]) -> dict[str, dict[str, list[tuple[dict, dict]]]]:
    """{chip: {factor page: [(source, row), ...]}} for every Apple-silicon row."""
    found: dict[str, dict[str, list[tuple[dict, dict]]]] = {}
    for source in sources:
        for page in source["pages"]:
            for row in reference_figures.rows_for(source, page):
                chip = chip_of(row)
                if chip:
                    found.setdefault(chip, {}).setdefault(page, []).append((source, row))
    return found


def overview(found: dict) -> list[str]:
    """A table of how many figures each chip has per factor, a gap shown as a dash: every
    chip the picker offers, then any other chip the data names (an M5, say)."""
    chips = chip_names() + sorted(chip for chip in found if chip not in chip_names())
    pages = reference_figures.FACTOR_PAGES
    lines = ["| Chip | " + " | ".join(pages.values()) + " |"]
    lines.append("|---|" + "---:|" * len(pages))
    for chip in chips:
        counted = [len(found.get(chip, {}).get(page, [])) for page in pages]
        cells = [str(n) if n else "–" for n in counted]
        lines.append(f"| {chip} | " + " | ".join(cells) + " |")
    return lines


def panel(chip: str, found: dict) -> list[str]:
    """One chip's figures, factor by factor, with a line for each factor that has none."""
    by_page = found.get(chip, {})
    # A figure tagged with two factors is listed under both, but counted once.
    total = len({(s["id"], id(row)) for rows in by_page.values() for s, row in rows})
    sources = len({s["id"] for rows in by_page.values() for s, _ in rows})
    lines = [
        f'<div class="chip-panel" id="chip-panel-{slug(chip)}" markdown {NOT_SEARCHED}>',
        "",
        f"**{chip}**: {total} published {'figure' if total == 1 else 'figures'}"
        f" from {sources} {'source' if sources == 1 else 'sources'}"
        " (a figure that informs two factors is listed under each).",
        "",
    ]
    gaps = [title for page, title in reference_figures.FACTOR_PAGES.items() if page not in by_page]
    if gaps:
        lines += [f"{GAPS.format(chip=chip)} {', '.join(gaps)}.", ""]
    for page, title in reference_figures.FACTOR_PAGES.items():
        rows = by_page.get(page, [])
        if not rows:
            continue
        lines += [
            f"*[{title}]({page}.md)*",
            "",
            "| Hardware | Workload | Batch | Result as published | Source |",
            "|---|---|---:|---:|---|",
        ]
        for source, row in rows:
            cells = [cell_text(row[key]) for key in ("hardware", "workload", "batch")]
            lines.append(f"| {' | '.join(cells)} | {result_cell(row)} | {cited(source)} |")
        lines += ["", "The software each source names:", ""]
        for source in {s["id"]: s for s, _ in rows}.values():
            title = f"[{cell_text(source['title'])}]({source['url']})"
            lines.append(f"- {title}. Software: {cell_text(source['software'])}.")
        lines.append("")
    return [*lines, "</div>", ""]


def cited(source: dict) -> str:
    """A source in a table cell: its linked title and date (its software is listed under the
    table, once per source, so the cell stays short)."""
    return f"[{cell_text(source['title'])}]({source['url']}) ({cell_text(source['date'])})"


def apple_script_runs(sources: list[dict]) -> list[str]:
    """One table of every row whose workload is labelled as Apple's test script, whatever the
    chip or source, so the one program that many readers ran can be compared across chips."""
    lines = [
        f"Every row labelled as a run of {APPLE_SCRIPT} (ResNet50, weights=None, on CIFAR-100"
        " at 32×32), chip by chip. The batch size, the epochs and the software differ between"
        " sources:",
        "",
        "| Chip | Hardware | Workload | Batch | Result as published | Source |",
        "|---|---|---|---:|---:|---|",
    ]
    runs = [
        (chip_of(row), source, row)
        for source in sources
        for row in source["rows"]
        if chip_of(row) and str(row["workload"]).startswith(APPLE_SCRIPT)
    ]
    order = {chip: n for n, chip in enumerate(chip_names())}
    for chip, source, row in sorted(runs, key=lambda run: order.get(run[0], len(order))):
        cells = [cell_text(row[key]) for key in ("hardware", "workload", "batch")]
        lines.append(f"| {chip} | {' | '.join(cells)} | {result_cell(row)} | {cited(source)} |")
    return lines


def render(sources: list[dict]) -> str:
    """The picker, the overview table and one panel per chip (the chosen one shown)."""
    found = figures(sources)
    choices = [(EVERY, "Every chip"), *((slug(chip), chip) for chip in chip_names())]
    picker = ['<fieldset class="chip-picker"><legend>Your chip</legend>']
    for value, label in choices:
        checked = " checked" if value == EVERY else ""
        picker.append(
            f'<label><input type="radio" name="chip" value="{value}"{checked}> {label}</label>'
        )
    picker.append("</fieldset>")
    lines = [f'<div class="chip-view" markdown {NOT_SEARCHED}>', "", "\n".join(picker), ""]
    lines += [
        f'<div class="chip-panel" id="chip-panel-{EVERY}" markdown {NOT_SEARCHED}>',
        "",
        f"Figures per chip and factor (a dash is a gap: no figure in {BOXES}):",
        "",
        *overview(found),
        "",
        *apple_script_runs(sources),
        "",
        "</div>",
        "",
    ]
    for chip in chip_names():
        lines += panel(chip, found)
    return "\n".join([*lines, "</div>"]) + "\n"
