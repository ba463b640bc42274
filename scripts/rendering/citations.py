"""Citations in the built site: `[text][id]` becomes a link whose hover text is the source's words.

A page (or a Markdown string of a data file rendered into it) cites a source by its ledger
id, `[text][id]` (scripts/core/sources.py, data/sources.yml). Before MkDocs converts a page,
`definitions` appends `[id]: url "title"` for every id the page and its included fragments
cite: pymdownx.snippets, which includes the fragments, is a Markdown preprocessor, so
definitions added to the page's text apply to the fragments' text too. The title is the
quote whose `where` is this page (or a data file rendered into it), else the entry's first,
then the date it was read. Material shows link titles as tooltips (`content.tooltips`),
as HTML (title_attribute).

Links rendered from data fields that hold an address (a symptom's sources, a claim's
sources, the published figures) are plain links; `titled` gives each link to a ledger
address the same title in the page's HTML, unless it has one already.

An id that is not in the ledger stops the build (CitationError): it would otherwise show as
literal brackets.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from scripts.core import sources
from scripts.rendering.sources_page import PAGE as SOURCES_PAGE

ANCHOR = re.compile(r"<a\s[^>]*>", re.IGNORECASE)
HREF = re.compile(r'\shref="([^"]*)"', re.IGNORECASE)
HAS_TITLE = re.compile(r"\stitle=", re.IGNORECASE)


class CitationError(ValueError):
    """A page cites an id the ledger does not have."""


def page_files(page_file: str, markdown: str, root: Path = sources.ROOT) -> list[str]:
    """The files a page's statements come from: the page, then the data rendered into it."""
    return [page_file, *sources.data_files_of(markdown, root)]


def quote_for(entry: dict, files: list[str]) -> dict:
    """The supports item to show on a page: the first whose `where` is one of the page's
    files (the page, then the data files rendered into it), else the entry's first."""
    for file in files:
        for item in entry["supports"]:
            if item.get("where") == file:
                return item
    return entry["supports"][0]


def tooltip(entry: dict, files: list[str]) -> str:
    """A link's hover text: the source's words for this page, and when they were read."""
    item = quote_for(entry, files)
    return f"“{sources.fold(item['quote'])}” (read {sources.date_text(entry['read'])})"


def title_attribute(entry: dict, files: list[str]) -> str:
    """The hover text as a title attribute's value, for a Markdown link title or HTML.

    Escaped twice: Material's tooltip (content.tooltips) puts the title into the page as
    HTML (innerHTML), so the attribute must hold the text as HTML, `<` as `&lt;`; that HTML
    is then escaped for the attribute. Python-Markdown keeps entities in a title as they
    are. (A browser without JavaScript shows the title itself: `&lt;` for a quote's `<`.)
    """
    as_html = html.escape(tooltip(entry, files), quote=False)
    return html.escape(as_html, quote=True)


def cited_ids(markdown: str, root: Path = sources.ROOT) -> list[str]:
    """Ids the page and its included fragments cite, in order of first use."""
    found: list[str] = []
    for _, name in sources.citations(sources.expanded(markdown, root)):
        if name not in found:
            found.append(name)
    return found


def definitions(markdown: str, page_file: str, ledger: dict, root: Path = sources.ROOT) -> str:
    """The page's Markdown with a reference definition for every ledger id it cites."""
    entries = sources.by_id(ledger)
    ids = cited_ids(markdown, root)
    unknown = [name for name in ids if name not in entries]
    if unknown:
        raise CitationError(
            f"{page_file}: cites {', '.join(f'[…][{n}]' for n in unknown)}, "
            "which data/sources.yml does not define"
        )
    if not ids:
        return markdown
    files = page_files(page_file, markdown, root)
    lines = [
        f'[{name}]: {entries[name]["url"]} "{title_attribute(entries[name], files)}"'
        for name in ids
    ]
    return markdown.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def titled(
    page_html: str, page_file: str, markdown: str, ledger: dict, root: Path = sources.ROOT
) -> str:
    """The page's HTML with a title on every link to a ledger address that has none."""
    entries = sources.by_url(ledger)
    if not entries or page_file == SOURCES_PAGE:  # the Sources page shows the quotes itself
        return page_html
    files = page_files(page_file, markdown, root)

    def add_title(match: re.Match) -> str:
        tag = match.group()
        href = HREF.search(tag)
        if not href or HAS_TITLE.search(tag):
            return tag
        entry = entries.get(html.unescape(href.group(1)))
        if entry is None:
            return tag
        return f'{tag[:-1]} title="{title_attribute(entry, files)}">'

    return ANCHOR.sub(add_title, page_html)
