"""The site search finds pages for the guide's own subject words.

One ordinary word added to a page once emptied the search for "Keras": with the token
"autograph" in the index, the search worker (lunr, which adds a wildcard to each term) threw
and showed "No matching documents" for "Keras" and for any message containing it. The symptom
tests caught it through a pasted warning; this checks the words themselves."""

from __future__ import annotations

import re

from tests.browser.settled_read import settled_read

# Words every reader searches for; each is on many of the guide's pages.
WORDS = ["TensorFlow", "Keras", "tf.keras", "GPU", "Metal", "batch", "threads", "oneDNN"]

META = ".md-search-result__meta"


def settled_meta(page) -> str:
    """The search's "N matching documents" line once it stops changing."""
    read = f"() => document.querySelector('{META}')?.textContent || ''"
    return settled_read(page, read, "the search's result count", limit_ms=20_000)


def test_each_subject_word_finds_pages(page, base_url):
    page.goto(base_url)
    search = page.locator(".md-search__input")
    search.click()
    found = {}
    for number, word in enumerate(WORDS):
        # The first word is typed (the index loads on the first query); the others replace
        # it, their last character typed so that each is searched once.
        search.fill("" if number == 0 else word[:-1])
        page.keyboard.type(word if number == 0 else word[-1])
        if number == 0:  # the whole site is indexed on the first query
            page.locator(".md-search-result__list a").first.wait_for(
                state="attached", timeout=45_000
            )
        meta = settled_meta(page)
        count = re.search(r"(\d+) matching document", meta)
        found[word] = int(count.group(1)) if count else 0
    assert all(found.values()), f"words the search found nothing for: {found}"
