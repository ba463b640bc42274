"""Published figures by chip: chips read from the hardware column, every Apple-silicon figure
in its chip's panel, gaps named, strings escaped, and a CSS rule for every chip offered."""

from __future__ import annotations

import copy
import json
import re

import pytest

from scripts.core import sources
from scripts.core.catalog import ROOT
from scripts.rendering import chip_view, reference_figures

SOURCES = reference_figures.load()
CSS = (ROOT / "docs" / "stylesheets" / "chips.css").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "hardware, chip",
    [
        ("Apple M1 Max, 32-core GPU", "M1 Max"),
        ("Apple M1 (model not named)", "M1"),
        ("Apple M4 Pro", "M4 Pro"),
        ("Apple M2 Ultra (76-core GPU)", "M2 Ultra"),
        ("Apple M3", "M3"),
        ("Apple M10", None),  # not an M1 chip
        ("Apple Mac Pro", None),
        ("NVIDIA RTX 3090", None),
        ("an Apple M1 Max", None),  # the chip must come first, as the data file's rule says
        ("Apple M1 (variant not stated; a Mac Studio)", None),  # not the base M1
        ("Apple M1 (Mac mini)", "M1"),
    ],
)
def test_the_chip_is_read_from_the_start_of_the_hardware(hardware, chip):
    assert chip_view.chip_of({"hardware": hardware}) == chip


def panels(rendered: str) -> dict[str, str]:
    found = re.findall(r'<div class="chip-panel" id="chip-panel-([a-z0-9-]+)" markdown data-search-exclude>'
                       r"(.*?)\n</div>", rendered, flags=re.DOTALL)  # fmt: skip
    return dict(found)


def test_every_apple_silicon_figure_is_in_its_chips_panel_only():
    rendered = panels(chip_view.render(SOURCES))
    apple_rows = 0
    for source in SOURCES:
        for page in source["pages"]:
            for row in reference_figures.rows_for(source, page):
                chip = chip_view.chip_of(row)
                if chip is None:
                    continue
                apple_rows += 1
                cells = [reference_figures.cell_text(row[k]) for k in ("hardware", "workload")]
                line = f"| {' | '.join(cells)} | "
                holders = {
                    slug
                    for slug, text in rendered.items()
                    if line in text and slug != chip_view.EVERY  # the overview's own table
                }
                offered = chip in chip_view.chip_names()  # else only counted in the overview
                assert holders == ({chip_view.slug(chip)} if offered else set()), row
    assert apple_rows > 0


def test_each_panel_names_its_gaps_and_the_overview_counts_match():
    found = chip_view.figures(SOURCES)
    rendered = panels(chip_view.render(SOURCES))
    for chip in chip_view.chip_names():
        text = rendered[chip_view.slug(chip)]
        gaps = [
            title
            for page, title in reference_figures.FACTOR_PAGES.items()
            if page not in found.get(chip, {})
        ]
        line = f"{chip_view.GAPS.format(chip=chip)} {', '.join(gaps)}."
        assert (line in text) == bool(gaps), chip
    overview = rendered[chip_view.EVERY]
    for chip in chip_view.chip_names():
        cells = re.search(rf"^\| {chip} \|(.*)\|$", overview, flags=re.MULTILINE).group(1)
        counts = [cell.strip() for cell in cells.split("|")]
        expected = [
            str(len(found.get(chip, {}).get(page, []))) if found.get(chip, {}).get(page) else "–"
            for page in reference_figures.FACTOR_PAGES
        ]
        assert counts == expected, chip


def table_rows(panel_text: str) -> list[str]:
    """The figure rows of a panel's tables (not their headers or separators)."""
    return [
        line
        for line in panel_text.splitlines()
        if line.startswith("| ") and not line.startswith("| Hardware |")
    ]


def test_each_panels_headline_counts_the_figures_and_sources_its_tables_hold():
    """A figure listed under two factors is one figure: the headline counts distinct rows, and
    the sources its rows cite."""
    rendered = panels(chip_view.render(SOURCES))
    for chip in chip_view.chip_names():
        text = rendered[chip_view.slug(chip)]
        headline = re.search(r"\*\*[^*]+\*\*: (\d+) published figures? from (\d+) sources?", text)
        rows = set(table_rows(text))
        cited = {re.search(r"\]\((https://[^)]+)\) \(", row).group(1) for row in rows}
        assert (int(headline.group(1)), int(headline.group(2))) == (len(rows), len(cited)), chip


def test_a_sources_software_is_listed_once_under_each_table_not_in_its_rows():
    """A row cites its source by title and date; the source's software follows the table, once
    for each source the table cites, so a Source cell stays one short line."""
    by_url = {s["url"]: s for s in SOURCES}
    rendered = panels(chip_view.render(SOURCES))
    checked = 0
    for chip in chip_view.chip_names():
        for factor in rendered[chip_view.slug(chip)].split("\n*[")[1:]:
            rows = table_rows(factor)
            cited = {re.search(r"\]\((https://[^)]+)\) \(", row).group(1) for row in rows}
            assert not any("software:" in row.lower() for row in rows), chip
            for url in cited:
                software = reference_figures.cell_text(by_url[url]["software"])
                assert factor.count(f"]({url}). Software: {software}.\n") == 1, (chip, url)
                checked += 1
    assert checked, "no chip panel cites a source"


def test_the_overview_lists_every_run_of_apples_test_script_side_by_side():
    overview = panels(chip_view.render(SOURCES))[chip_view.EVERY]
    runs = [
        (chip_view.chip_of(row), row)
        for source in SOURCES
        for row in source["rows"]
        if chip_view.chip_of(row) and row["workload"].startswith(chip_view.APPLE_SCRIPT)
    ]
    assert len({chip for chip, _ in runs}) >= 4, "Apple's test script runs on too few chips"
    for chip, row in runs:
        cells = [reference_figures.cell_text(row[k]) for k in ("hardware", "workload", "batch")]
        assert f"| {chip} | {' | '.join(cells)} | " in overview, row


def test_a_figure_a_factor_page_cites_for_a_chip_is_on_the_page_or_named_as_left_out():
    """A factor page's table row that names a chip and cites a source either comes from the
    data file the chip panels show, or the by-chip page names that factor page among those
    whose figures it does not repeat; adding such a row elsewhere makes this fail."""
    ledger = sources.by_id(sources.load())
    shown = {s["url"] for s in SOURCES} | {
        row["link"] for s in SOURCES for row in s["rows"] if "link" in row
    }
    chips_page = (ROOT / "docs" / "chips.md").read_text(encoding="utf-8")
    chip = re.compile(r"\| (?:Apple )?M[1-9](?: (?:Pro|Max|Ultra))?\b[^|]*\|")
    for page, title in reference_figures.FACTOR_PAGES.items():
        text = sources.without_code((ROOT / "docs" / f"{page}.md").read_text(encoding="utf-8"))
        for line in text.splitlines():
            if not (line.startswith("|") and chip.search(line)):
                continue
            for _, name in sources.citations(line):
                if ledger[name]["url"] not in shown:
                    assert f"[{title}]({page}.md)" in chips_page, (page, name, line[:80])


def test_strings_from_the_data_file_are_escaped():
    hostile = copy.deepcopy(SOURCES)
    hostile[0]["rows"][0]["workload"] = "<script>alert(1)</script> | x"
    hostile[0]["rows"][0]["hardware"] = "Apple M2 Max <img src=x onerror=alert(1)>"
    rendered = chip_view.render(hostile)
    assert "<script>" not in rendered and "<img" not in rendered
    assert "&lt;script&gt;" in rendered


def test_the_stylesheet_shows_the_panel_of_every_chip_the_picker_offers():
    for value in [chip_view.EVERY, *(chip_view.slug(c) for c in chip_view.chip_names())]:
        rule = f'.chip-view:has(input[value="{value}"]:checked) #chip-panel-{value}'
        assert rule in CSS, value
    rendered = chip_view.render(SOURCES)
    values = re.findall(r'<input type="radio" name="chip" value="([a-z0-9-]+)"', rendered)
    assert values == [chip_view.EVERY, *(chip_view.slug(c) for c in chip_view.chip_names())]
    assert rendered.count(" checked>") == 1


def test_the_figures_stay_out_of_the_site_search(built_site):
    """Like every published-figure table: their numbers match nothing a reader types, and in
    the index every page downloads they would weigh as much as the symptom page."""
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["text"] for doc in index["docs"] if doc["location"].startswith("chips/"))
    assert "Pick your Mac's chip" in text  # the page's own prose is searchable
    assert chip_view.GAPS.format(chip="M1") not in text
    assert "Result as published" not in text


def test_a_gap_is_a_factor_with_no_figure_in_the_boxes_not_one_never_published():
    """The panels hold the factor pages' "Reported by others" boxes only, and the page says the
    factor pages cite other figures in their text: so the generated gap wording names the
    boxes, as the page's own text does, and never claims that nothing was published."""
    boxes = f'"{reference_figures.TITLE.split(",")[0]}" boxes'
    assert boxes in chip_view.GAPS
    rendered = chip_view.render(SOURCES)
    assert "no published figure" not in rendered
    assert f"(a dash is a gap: no figure in the factor pages' {boxes}):" in rendered
    assert boxes in (ROOT / "docs" / "chips.md").read_text(encoding="utf-8")
