"""The chip picker of Published figures by chip: choosing a chip shows its figures and gaps,
with JavaScript turned off, and hides every other chip's."""

from __future__ import annotations

import pytest

from scripts.rendering import chip_view, reference_figures

FOUND = chip_view.figures(reference_figures.load())
WITH_FIGURES = [chip for chip in chip_view.chip_names() if chip in FOUND]
WITHOUT_FIGURES = [chip for chip in chip_view.chip_names() if chip not in FOUND]


@pytest.fixture
def chips_page(context, base_url):
    """The page with script execution turned off in the browser (DevTools' emulation)."""
    page = context.new_page()
    session = context.new_cdp_session(page)
    session.send("Emulation.setScriptExecutionDisabled", {"value": True})
    page.goto(f"{base_url}chips/")
    yield page
    page.close()


def visible_panels(page) -> list[str]:
    return [
        panel.get_attribute("id")
        for panel in page.locator(".chip-panel").all()
        if panel.is_visible()
    ]


def test_the_page_opens_on_the_overview_of_every_chip(chips_page):
    assert visible_panels(chips_page) == [f"chip-panel-{chip_view.EVERY}"]
    overview = chips_page.locator(f"#chip-panel-{chip_view.EVERY}").inner_text()
    for chip in chip_view.chip_names():
        assert f"\n{chip}\t" in overview, chip


@pytest.mark.parametrize("chip", WITH_FIGURES[:3] + WITH_FIGURES[-1:])
def test_choosing_a_chip_shows_its_figures_and_no_other_chips(chips_page, chip):
    chips_page.get_by_label(chip, exact=True).check()
    assert visible_panels(chips_page) == [f"chip-panel-{chip_view.slug(chip)}"]
    shown = chips_page.locator(f"#chip-panel-{chip_view.slug(chip)}").inner_text()
    rows = [row for by_page in FOUND[chip].values() for _, row in by_page]
    for row in rows:
        assert str(row["workload"]).strip() in shown, row
    gaps = [t for p, t in reference_figures.FACTOR_PAGES.items() if p not in FOUND[chip]]
    if gaps:
        assert f"{chip_view.GAPS.format(chip=chip)} {', '.join(gaps)}." in shown


def test_a_chip_without_figures_shows_every_factor_as_a_gap(chips_page):
    assert WITHOUT_FIGURES, "every chip has figures: nothing to show as a gap"
    chip = WITHOUT_FIGURES[0]
    chips_page.get_by_label(chip, exact=True).check()
    shown = chips_page.locator(f"#chip-panel-{chip_view.slug(chip)}").inner_text()
    assert f"{chip}: 0 published figures" in shown
    every_factor = ", ".join(reference_figures.FACTOR_PAGES.values())
    assert f"{chip_view.GAPS.format(chip=chip)} {every_factor}." in shown


def test_going_back_to_every_chip_shows_the_overview_again(chips_page):
    chips_page.get_by_label(WITH_FIGURES[0], exact=True).check()
    chips_page.get_by_label("Every chip", exact=True).check()
    assert visible_panels(chips_page) == [f"chip-panel-{chip_view.EVERY}"]
