"""Every page in the navigation shows its answer on the first screen (1280x800), and every
factor page its "What to do" by the second: the reader asks, the page answers, then explains."""

from __future__ import annotations

from tests.browser.conftest import DESKTOP

SCREEN = DESKTOP["height"]
FIRST_LINE = 40  # px of the answer that must show: a title or a first line, not just an edge

# The answer of a page that has no "In short" box: what its reader came for.
ANSWERS = {
    "": "#if-training-is-slow-check-these-first",
    "symptoms/": "article .admonition.tip",
    "setup/": "article table",
    "doctor/": "article pre",  # the tool's command
    "tune/": "article pre",  # the tool's command
    "tune-validation/": "article p",
    "results/": "article table",  # At a glance
    "chips/": ".chip-picker",
    "claims/": "article table",
    "contribute/": "article p code",  # make contribute, in the first paragraph
    "sources/": "article ul, article ol",
}

IN_SHORT = """() => {
    const title = Array.from(document.querySelectorAll("article .admonition-title"))
        .find((t) => t.textContent.trim() === "In short");
    return title ? title.parentElement.getBoundingClientRect().top + window.scrollY : null;
}"""

TOP_OF = """(selector) => {
    const found = document.querySelector(selector);
    return found ? found.getBoundingClientRect().top + window.scrollY : null;
}"""


def answer_top(page, path: str) -> tuple[str, float | None]:
    """Where the page's answer starts, in px from the top of the page."""
    if path in ANSWERS:
        return ANSWERS[path], page.evaluate(TOP_OF, ANSWERS[path])
    return "the In short box", page.evaluate(IN_SHORT)


def test_every_page_answers_on_its_first_screen(context, base_url, nav_pages):
    page = context.new_page()
    late = {}
    for path in nav_pages:
        page.goto(base_url + path, wait_until="load")
        what, top = answer_top(page, path)
        if top is None:
            late[path] = f"no {what} found"
        elif top + FIRST_LINE > SCREEN:
            late[path] = f"{what} starts at {top:.0f} px; the first screen ends at {SCREEN}"
    page.close()
    assert not late, "\n".join(f"/{path}: {why}" for path, why in late.items())


def test_factor_pages_show_what_to_do_by_the_second_screen(context, base_url, nav_pages, root):
    factor_pages = sorted(
        p.stem + "/"
        for p in (root / "docs").glob("*.md")
        if '--8<-- "docs/_generated/claims/' in p.read_text(encoding="utf-8") and p.stem != "claims"
    )
    assert len(factor_pages) >= 10, factor_pages
    assert set(factor_pages) <= set(nav_pages), set(factor_pages) - set(nav_pages)
    page = context.new_page()
    late = {}
    for path in factor_pages:
        page.goto(base_url + path, wait_until="load")
        top = page.evaluate(TOP_OF, "#what-to-do")
        if top is None or top + FIRST_LINE > 2 * SCREEN:
            late[path] = "no What to do" if top is None else f"What to do at {top:.0f} px"
    page.close()
    assert not late, late
