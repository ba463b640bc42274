"""The source ledger (data/sources.yml, scripts/core/sources.py) and the citations built from it.

Every external link in docs/ and data/ (and the doctor's messages) resolves through the ledger
or its short, explained allow-list; every `[text][id]` names a ledger id; every entry is used,
has a quote, a date read and a kind; no id or address is there twice; and the built site shows
each source's words in its links' titles. Bad entries are refused with messages that name the
entry and the field.
"""

from __future__ import annotations

import copy
import html
import itertools
import json
import re
from pathlib import Path

import markdown as python_markdown
import pytest
import yaml

from scripts.core import sources
from scripts.rendering import citations, sources_page

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def ledger() -> dict:
    assert sources.LEDGER.exists(), "data/sources.yml is missing"
    return sources.load()


@pytest.fixture(scope="module")
def usage() -> sources.Usage:
    return sources.usage(ROOT)


# --- the schema: a table of bad entries and the messages they get ------------------------

GOOD = {
    "id": "tf-63854",
    "url": "https://github.com/tensorflow/tensorflow/issues/63854",
    "title": "Keras 3 is slow on Metal",
    "author": "GitHub user example",
    "published": "2024-03-20",
    "read": "2026-11-24",
    "kind": "issue",
    "concerns": {"software": ["tensorflow 2.16.1"], "hardware": ["M1 Max"]},
    "checked": "search",
    "supports": [
        {"where": "docs/versions.md", "statement": "Keras 3 is slower", "quote": "it is slow"}
    ],
}


def changed(**fields) -> dict:
    entry = copy.deepcopy(GOOD)
    for key, value in fields.items():
        if value is None:
            entry.pop(key, None)
        else:
            entry[key] = value
    return entry


def with_support(**fields) -> dict:
    item = dict(GOOD["supports"][0])
    for key, value in fields.items():
        if value is None:
            item.pop(key, None)
        else:
            item[key] = value
    return changed(supports=[item])


ENTRY = "source tf-63854 (sources[0])"
SUPPORT = f"{ENTRY}.supports[0]"
# The shape's problems are data/sources.schema.json's, with the entry named by its id.
BAD_ENTRIES = {
    "no url": (changed(url=None), f"{ENTRY}: missing field(s) url"),
    "http url": (changed(url="http://example.org/a"), f"{ENTRY}.url: 'http://example.org/a' does not match"),
    "url with a space": (changed(url="https://example.org/a b"), f"{ENTRY}.url: 'https://example.org/a b' does not match"),
    "url with a parenthesis": (changed(url="https://example.org/a)"), f"{ENTRY}.url: 'https://example.org/a)' does not match"),
    "no title": (changed(title=""), f"{ENTRY}.title: '' does not match"),
    "no author": (changed(author=None), f"{ENTRY}: missing field(s) author"),
    "bad published": (changed(published="March 2024"), f"{ENTRY}.published: 'March 2024' does not match"),
    "impossible date": (changed(published="2024-13-01"), "`published` is not a calendar date"),
    "no read": (changed(read=None), f"{ENTRY}: missing field(s) read"),
    "read not full": (changed(read="2026-11"), f"{ENTRY}.read: '2026-11' does not match"),
    "unknown kind": (changed(kind="blog"), f"{ENTRY}.kind: expected one of 'documentation', 'code'"),
    "no kind": (changed(kind=None), f"{ENTRY}: missing field(s) kind"),
    "concerns not split": (changed(concerns=["M1"]), f"{ENTRY}.concerns: expected an object, got list"),
    "concerns not a list": (
        changed(concerns={"software": "tf", "hardware": []}),
        f"{ENTRY}.concerns.software: expected a list, got 'tf'",
    ),
    "no supports": (changed(supports=[]), f"{ENTRY}.supports: expected at least 1 item(s), got 0"),
    "no quote": (with_support(quote=None), f"{SUPPORT}: missing field(s) quote"),
    "empty quote": (with_support(quote="  "), f"{SUPPORT}.quote: '  ' does not match"),
    "no statement": (with_support(statement=None), f"{SUPPORT}: missing field(s) statement"),
    "where not a file": (with_support(where="docs/nowhere.md"), "`where` 'docs/nowhere.md' is not"),
    "empty second quote": (with_support(quote_2=""), f"{SUPPORT}.quote_2: '' does not match"),
    "unknown support field": (with_support(source="x"), f"{SUPPORT}: unknown field(s) 'source'"),
    "unknown field": (changed(colour="red"), f"{ENTRY}: unknown field(s) 'colour'"),
    "bad id": (changed(id="TF 63854"), "source TF 63854 (sources[0]).id: 'TF 63854' does not match"),
}  # fmt: skip


def test_the_kinds_the_schema_allows_are_the_sources_pages_headings():
    schema = json.loads((ROOT / "data" / "sources.schema.json").read_text(encoding="utf-8"))
    ledger_entry = schema["properties"]["sources"]["items"]
    assert ledger_entry["properties"]["kind"]["enum"] == list(sources.KINDS)


@pytest.mark.parametrize("name", BAD_ENTRIES)
def test_a_bad_entry_is_refused_with_a_message_naming_it(name):
    entry, message = BAD_ENTRIES[name]
    found = sources.problems({"sources": [entry]}, ROOT)
    assert any(message in problem for problem in found), found


def test_a_good_entry_passes_and_yaml_dates_are_read_as_dates():
    assert sources.problems({"sources": [GOOD]}, ROOT) == []
    loaded = yaml.safe_load(yaml.safe_dump({"sources": [changed(published="2024")]}))
    loaded["sources"][0].update(published=2024, read=yaml.safe_load("2026-11-24"))
    assert sources.problems(loaded, ROOT) == []


def test_an_undated_source_and_more_quotes_for_one_statement_are_allowed():
    entry = with_support(quote_2="and more words", quote_2_checked="FACTS.md", note="why")
    entry.update(published=None, published_note="the page shows no date")
    assert sources.problems({"sources": [entry]}, ROOT) == []
    assert sources.quotes(entry["supports"][0]) == ["it is slow", "and more words"]
    missing = changed(published=None)  # the key left out, not null
    assert sources.problems({"sources": [missing]}) == [
        "source tf-63854 (sources[0]): missing field(s) published"
    ]


def test_an_id_or_an_address_twice_is_refused():
    twice = sources.problems({"sources": [GOOD, changed(url="https://example.org/x")]})
    assert any("id defined twice" in p for p in twice), twice
    same_url = sources.problems({"sources": [GOOD, changed(id="other")]})
    assert any("is already the url of tf-63854" in p for p in same_url), same_url


def test_an_allowed_address_needs_a_reason():
    found = sources.problems({"sources": [], "not_sources": [{"url": "http://127.0.0.1:8000"}]})
    assert found == ["not_sources[0]: missing field(s) reason"], found


def test_load_raises_with_every_problem(tmp_path):
    path = tmp_path / "sources.yml"
    path.write_text(yaml.safe_dump({"sources": [changed(kind="blog", read=None)]}), "utf-8")
    with pytest.raises(sources.SourcesError) as error:
        sources.load(path, None)
    assert ".kind: expected one of" in str(error.value)
    assert "missing field(s) read" in str(error.value)


# --- finding citations ----------------------------------------------------------------------


def test_citations_are_found_outside_code_only():
    text = (
        "See [the thread][tf-1] and [`tf.function`][tf-2], and the\n"
        "[wrapped\ntext][tf-3].\n\n"
        "```python\nx = table[0][1]  # [not][a-citation]\n```\n\n"
        "Inline `a[0][1]` is code too."
    )
    assert [name for _, name in sources.citations(text)] == ["tf-1", "tf-2", "tf-3"]


# --- the ledger as committed --------------------------------------------------------------


def test_the_ledger_is_in_alphabetical_order_of_id(ledger):
    """A reader finds an entry where its id sorts, and two branches that add sources add
    them at different places instead of both at the end."""
    ids = [entry["id"] for entry in ledger["sources"]]
    misplaced = [(a, b) for a, b in itertools.pairwise(ids) if a > b]
    assert not misplaced, (
        f"data/sources.yml: these ids come before ones they sort after: {misplaced}"
    )


def test_every_external_link_resolves_through_the_ledger(ledger, usage):
    known = sources.by_url(ledger)
    loose = [
        f"{file}: {url}"
        for url, files in sorted(usage.urls.items())
        if url not in known and not sources.allowed(ledger, url)
        for file in sorted(files)
    ]
    assert not loose, (
        "external links that are neither ledger sources nor on its not_sources list "
        "(add the source to data/sources.yml and cite it by id):\n  " + "\n  ".join(loose)
    )


def test_every_citation_names_a_ledger_id(ledger, usage):
    ids = sources.by_id(ledger)
    unknown = [
        f"{file}: [...][{name}]"
        for name, files in sorted(usage.cited.items())
        if name not in ids
        for file in sorted(files)
    ]
    assert not unknown, "citations of ids data/sources.yml does not define:\n  " + "\n  ".join(
        unknown
    )


def test_pages_cite_ledger_sources_by_id_not_by_inline_link(ledger, usage):
    known = sources.by_url(ledger)
    inline = [
        f"{file}: ({url}) -> [...][{known[url]['id']}]"
        for file, url in usage.inline
        if url in known
    ]
    assert not inline, "write these links as citations, [text][id]:\n  " + "\n  ".join(inline)


def test_every_entry_is_used(ledger, usage):
    unused = [entry["id"] for entry in ledger["sources"] if not sources.users(entry, usage)]
    assert not unused, f"ledger entries that no page or data file uses: {unused}"


def test_every_allowed_address_is_used(ledger, usage):
    unused = [
        item["url"]
        for item in ledger.get("not_sources") or []
        if not any(
            url == item["url"] or (item.get("prefix") and url.startswith(item["url"]))
            for url in usage.urls
        )
    ]
    assert not unused, f"not_sources entries no file writes: {unused}"


def test_every_file_that_cites_a_source_has_a_statement_of_its_own(ledger, usage):
    """The other direction: a file citing [text][id] has a supports item whose `where` is that
    file, so the citation's hover shows the words behind this file's sentence, not another
    page's quote."""
    entries = sources.by_id(ledger)
    missing = [
        f"{file}: [...][{name}]"
        for name, files in sorted(usage.cited.items())
        if name in entries
        for file in sorted(files)
        if file not in {item["where"] for item in entries[name]["supports"]}
    ]
    assert not missing, (
        "citations whose file has no statement in the source's supports (add one, with the "
        "source's words for that file's sentence):\n  " + "\n  ".join(missing)
    )


def test_every_statement_is_made_where_the_source_is_used(ledger, usage):
    """A supports item's `where` is a file that uses the source (or a page that shows a data
    file that does): a quote for a statement that is not there is a stale quote."""
    pages = sources_page.page_texts(ROOT)
    shown = sources_page.pages_using(ledger, pages, None, ROOT)
    stale = []
    for entry in ledger["sources"]:
        files = sources.users(entry, usage) | set(shown[entry["id"]])
        stale += [
            f"{entry['id']}: {item['where']} ({item['statement']})"
            for item in entry["supports"]
            if item["where"] not in files
        ]
    assert not stale, "statements in files that do not use their source:\n  " + "\n  ".join(stale)


# --- the build: definitions, titles, the Sources page ------------------------------------

HOSTILE = {
    **GOOD,
    "id": "hostile",
    "url": "https://example.org/hostile",
    "title": 'A <script>alert(1)</script> [link](https://evil.example) & "title"',
    "author": "*someone* | `x`",
    "supports": [
        {
            "where": "docs/versions.md",
            "statement": "<b>bold</b> claim",
            "quote": 'it\'s "slow" & <img src=x onerror=alert(1)> `code`\nsecond line',
        }
    ],
}


def test_a_definition_gives_the_link_the_quote_and_date_as_its_title():
    ledger = {"sources": [GOOD, HOSTILE]}
    page = "See [the thread][tf-63854] and [this][hostile].\n"
    text = citations.definitions(page, "docs/versions.md", ledger, ROOT)
    built = python_markdown.markdown(text, extensions=["attr_list", "md_in_html", "toc"])
    titles = re.findall(r'<a href="([^"]+)" title="([^"]*)">', built)
    assert [url for url, _ in titles] == [GOOD["url"], HOSTILE["url"]]
    # Material's tooltip reads the title as HTML: unescaping twice gives the text shown.
    shown = [html.unescape(html.unescape(title)) for _, title in titles]
    assert shown[0] == "“it is slow” (read 2026-11-24)"
    assert (
        shown[1]
        == '“it\'s "slow" & <img src=x onerror=alert(1)> `code` second line” (read 2026-11-24)'
    )
    assert "<img" not in html.unescape(titles[1][1]), "the tooltip would make an element"


def test_the_quote_for_the_page_is_chosen_over_another_files():
    entry = changed(
        supports=[
            {"where": "data/mac_recipes.json", "statement": "s", "quote": "from the stacks"},
            {"where": "docs/versions.md", "statement": "s", "quote": "from versions"},
        ]
    )
    assert "from versions" in citations.tooltip(entry, ["docs/versions.md"])
    assert "from the stacks" in citations.tooltip(entry, ["docs/setup.md", "data/mac_recipes.json"])
    assert "from the stacks" in citations.tooltip(entry, ["docs/index.md"])  # the first


def test_a_page_including_a_fragment_draws_on_its_data_file():
    page = '--8<-- "docs/_generated/setup/recommendation.md"\n--8<-- "docs/_generated/claims/memory.md"\n'
    assert sources.data_files_of(page, ROOT) == ["data/mac_recipes.json", "data/claims/memory.yml"]


def test_an_unknown_id_stops_the_build():
    with pytest.raises(citations.CitationError, match=r"cites \[…\]\[no-such-id\]"):
        citations.definitions("See [this][no-such-id].", "docs/x.md", {"sources": [GOOD]}, ROOT)


def test_links_from_data_fields_get_the_same_title():
    page_html = (
        f'<p><a href="{GOOD["url"]}">#63854</a> <a href="{GOOD["url"]}" title="kept">x</a></p>'
    )
    out = citations.titled(page_html, "docs/versions.md", "", {"sources": [GOOD]}, ROOT)
    assert out.count('title="“it is slow” (read 2026-11-24)"') == 1 and 'title="kept"' in out


def test_the_sources_page_escapes_every_string_from_the_ledger():
    fragment = sources_page.render({"sources": [GOOD, HOSTILE]}, None, ROOT)
    built = python_markdown.markdown(fragment, extensions=["attr_list", "md_in_html", "toc"])
    assert "<script" not in built and "<img" not in built and "<b>" not in built
    assert 'href="https://evil.example"' not in built
    assert f'<a href="{HOSTILE["url"]}" id="hostile">' in built


def test_the_sources_page_groups_by_kind_in_order(ledger):
    fragment = sources_page.render(ledger, None, ROOT)
    headings = re.findall(r"^## .+ \{#(\w+)\}$", fragment, re.MULTILINE)
    kinds = {entry["kind"] for entry in ledger["sources"]}
    assert headings == [kind for kind in sources.KINDS if kind in kinds]
    for entry in ledger["sources"]:
        assert f"{{#{entry['id']}}}" in fragment


def test_the_built_site_shows_a_sources_words_in_its_links_title(built_site, ledger, usage):
    """One source cited on a page by id: the built page's link carries the quote for that page."""
    cited = sorted(
        (file, name)
        for name, files in usage.cited.items()
        for file in files
        if file.startswith("docs/")
    )
    assert cited, "no page cites a source by id yet: run the rewrite of inline links"
    entries = sources.by_id(ledger)
    for file, name in cited:
        entry = entries[name]
        items = [item for item in entry["supports"] if item["where"] == file]
        if items:
            break
    else:
        pytest.fail("no page citing a source has a supports item of its own")
    page = built_site / Path(file).relative_to("docs").with_suffix("") / "index.html"
    titles = [
        html.unescape(html.unescape(m.group(1)))
        for m in re.finditer(
            r'<a href="' + re.escape(html.escape(entry["url"])) + r'" title="([^"]*)"',
            page.read_text("utf-8"),
        )
    ]
    want = f"“{sources.fold(items[0]['quote'])}” (read {sources.date_text(entry['read'])})"
    assert want in titles, (file, name, titles)


def test_the_built_sources_page_lists_every_source(built_site, ledger):
    page = (built_site / "sources" / "index.html").read_text(encoding="utf-8")
    missing = [e["id"] for e in ledger["sources"] if f'id="{e["id"]}"' not in page]
    assert not missing, missing
