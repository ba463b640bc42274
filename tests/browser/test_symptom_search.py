"""Site search finds the Symptoms and fixes page for exact error messages readers paste in."""

from __future__ import annotations

import pytest

from scripts import symptoms

# (entry id, a line of its verbatim `what_you_see`): the text a reader copies from a terminal.
MESSAGES = [
    ("symbol-not-found-tsl-logmessage", "Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii"),
    ("no-matching-distribution-tensorflow-metal", "No matching distribution found for tensorflow-metal"),
    ("xla-no-compiler-for-metal", "UNIMPLEMENTED: Could not find compiler for platform METAL"),
    (
        "no-registered-rngreadandskip-opkernel",
        "NotFoundError: No registered 'RngReadAndSkip' OpKernel for 'GPU' devices",
    ),
    (
        "adamw-str-object-has-no-attribute-minimize",
        "AttributeError: 'str' object has no attribute 'minimize'",
    ),
]  # fmt: skip


def test_the_messages_are_the_ones_on_the_symptom_page():
    entries = {entry["id"]: entry for entry in symptoms.load()["symptoms"]}
    for entry_id, message in MESSAGES:
        assert entries[entry_id]["verbatim"], entry_id
        assert message in entries[entry_id]["what_you_see"], entry_id


@pytest.mark.parametrize("entry_id, message", MESSAGES, ids=[i for i, _ in MESSAGES])
def test_search_finds_the_symptom_for_an_exact_error(page, base_url, entry_id, message):
    page.goto(base_url)
    page.locator(".md-search__input").click()
    page.keyboard.type(message)
    results = page.locator(".md-search-result__list a")
    entry = page.locator(f'.md-search-result__list a[href*="symptoms/"][href$="#{entry_id}"]')
    entry.first.wait_for(state="attached")
    assert "symptoms/" in (results.first.get_attribute("href") or ""), (
        f"the first result for {message!r} is not the symptom page"
    )
    # An entry ranked below the first few of its page sits in a closed "more" list: open it.
    entry.first.evaluate("a => { const more = a.closest('details'); if (more) more.open = true; }")
    entry.first.click()
    page.wait_for_url(f"**/symptoms/**#{entry_id}")
    assert page.locator(f"#{entry_id}").is_visible()
