"""What a reader does in Chromium: search, copy code, switch colours, use a phone, look."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path


def test_search_finds_the_input_pipeline_page_for_prefetch(page, base_url):
    page.goto(base_url)
    page.locator(".md-search__input").click()
    page.keyboard.type("prefetch")
    hit = page.locator('.md-search-result__list a[href*="input-pipeline/"]').first
    hit.wait_for(state="visible")
    notebooks = page.locator('.md-search-result__list a[href*="notebooks/"]')
    assert notebooks.count() == 0, "notebooks are indexed (scripts/site_hooks.py leaves them out)"
    hit.click()
    page.wait_for_url("**/input-pipeline/**")
    assert page.locator("article h1").first.is_visible()


def appears_in(code: str, source: str) -> bool:
    """True when `code` is a run of consecutive lines of `source`, indentation removed."""
    wanted = code.strip("\n").splitlines()
    lines = source.splitlines()
    return any(
        textwrap.dedent("\n".join(lines[i : i + len(wanted)])).splitlines() == wanted
        for i in range(len(lines) - len(wanted) + 1)
    )


def test_copy_buttons_copy_exactly_the_code(page, context, base_url, factor_page, root):
    """Every titled code block on a factor page: the clipboard gets its code, as in the file."""
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url.rstrip("/"))
    page.goto(base_url + factor_page)
    blocks = page.locator("article div.highlight:has(> span.filename)")
    assert blocks.count() > 0, f"/{factor_page} shows no titled code block"
    for index in range(blocks.count()):
        block = blocks.nth(index)
        title = block.locator("> span.filename").inner_text().strip()
        shown = block.locator("code").inner_text()
        page.evaluate("navigator.clipboard.writeText('')")
        block.hover()
        block.locator("button[data-clipboard-target]").click()  # the copy button
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.strip() and copied.strip("\n") == shown.strip("\n"), (
            f"{title}: clipboard != code"
        )
        source = root / title
        if source.is_file():
            assert appears_in(copied, source.read_text(encoding="utf-8")), (
                f"{title}: the copied code is not a section of the file"
            )


def test_light_dark_toggle_switches_the_colour_scheme(page, base_url):
    page.goto(base_url)
    body = page.locator("body")
    toggle = page.locator('form[data-md-component="palette"] label:visible').first

    def scheme_and_background():
        return body.get_attribute("data-md-color-scheme"), body.evaluate(
            "b => getComputedStyle(b).backgroundColor"
        )

    light = scheme_and_background()
    assert light[0] == "default"
    toggle.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    dark = scheme_and_background()
    assert dark[1] != light[1], "the background colour did not change"
    page.locator('form[data-md-component="palette"] label:visible').first.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'default'")
    assert scheme_and_background() == light
    page.evaluate("localStorage.clear()")  # the choice is remembered: forget it for other tests


def test_navigation_works_at_phone_size(page, base_url, factor_page, viewports):
    page.set_viewport_size(viewports["phone"])
    page.goto(base_url)
    drawer = page.locator("nav.md-nav--primary")
    assert not drawer.is_visible() or drawer.bounding_box()["x"] < 0, "drawer open on load"
    page.locator('header label[for="__drawer"]').click()
    page.wait_for_function(
        "document.querySelector('nav.md-nav--primary').getBoundingClientRect().x >= 0"
    )
    link = drawer.locator(f'a.md-nav__link[href="{factor_page}"]').first
    # Open each nested section that holds the link, outermost first, as a reader taps them.
    toggles = link.evaluate(
        """a => { const ids = []; for (let li = a.closest('li.md-nav__item--nested'); li;
                 li = li.parentElement.closest('li.md-nav__item--nested')) {
                 const box = li.querySelector(':scope > input.md-nav__toggle');
                 if (box) ids.unshift(box.id); } return ids; }"""
    )
    for toggle_id in toggles:
        drawer.locator(f'label.md-nav__link[for="{toggle_id}"]').first.click()
        page.wait_for_function(f"document.getElementById('{toggle_id}').checked")
    link.wait_for(state="visible")
    link.click()
    page.wait_for_url(f"**/{factor_page}")
    assert page.locator("article h1").first.is_visible()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"/{factor_page} is {overflow} px wider than a phone screen"


def test_screenshots_of_home_and_a_factor_page(
    page, base_url, factor_page, viewports, screenshot_dir
):
    """Saved under test-output/screenshots/ for a person to look at."""
    slug = factor_page.strip("/").replace("/", "-")

    def shoot(name: str) -> None:
        path = screenshot_dir / f"{name}.png"
        page.screenshot(path=str(path))
        assert path.stat().st_size > 10_000, f"{path} looks empty"

    for size_name, size in viewports.items():
        page.set_viewport_size(size)
        page.goto(base_url)
        shoot(f"home-{size_name}")
        page.goto(base_url + factor_page)
        shoot(f"{slug}-{size_name}")
        page.locator("article img[src$='.svg']").first.scroll_into_view_if_needed()
        page.wait_for_timeout(500)  # let the header finish swapping its title after the scroll
        shoot(f"{slug}-{size_name}-chart")


def test_the_factor_page_offers_its_notebook_for_download(page, base_url, factor_page):
    page.goto(base_url + factor_page)
    link = page.locator('article a[download][href$=".ipynb"]').first
    with page.expect_download() as download_info:
        link.click()
    notebook = json.loads(Path(download_info.value.path()).read_text(encoding="utf-8"))
    assert notebook["nbformat"] == 4 and notebook["cells"], "the download is not a notebook"
    outputs = [o for c in notebook["cells"] if c["cell_type"] == "code" for o in c["outputs"]]
    assert outputs, "the downloaded notebook has no outputs: it was not executed"
