"""The Sources page's list (docs/_generated/sources.md): every source in data/sources.yml,
grouped by kind, with its author, dates, what it concerns, the source's words for each
statement that rests on it, and the pages that use it.

Every string from the ledger is escaped for Markdown and HTML (plain_text.escape); addresses
are checked by the ledger's own validation (https, nothing that ends a link). The lists stay
out of the site search, like the measured tables: the search index is downloaded by every
page, and the quotes would add to it what the citing pages already hold.
"""

from __future__ import annotations

import re
from pathlib import Path

from scripts import sources
from scripts.results import plain_text

OUTPUT = "sources.md"  # under docs/_generated/
PAGE = "docs/sources.md"  # the page that includes it, which is not a page that uses sources
DOCTOR_FILES = "scripts/doctor/"
SEARCH_EXCLUDED = "<div markdown data-search-exclude>"
HEADING = re.compile(r"^# (.+?)\s*(?:\{[^}]*\})?\s*$", re.MULTILINE)


def _text(value) -> str:
    return plain_text.escape(sources.fold(value))


def page_title(markdown: str, file: str) -> str:
    found = HEADING.search(markdown)
    return found.group(1) if found else Path(file).stem


def page_texts(root: Path = sources.ROOT) -> dict[str, str]:
    """Every page's Markdown by its file (docs/<name>.md), the Sources page left out."""
    return {
        f"docs/{p.name}": p.read_text(encoding="utf-8")
        for p in sorted((root / "docs").glob("*.md"))
        if f"docs/{p.name}" != PAGE
    }


def pages_using(
    ledger: dict, pages: dict[str, str], fragments: dict[str, str] | None, root: Path
) -> dict[str, list[str]]:
    """For each source id, the pages whose text or included fragments cite it or link to it."""
    found: dict[str, list[str]] = {entry["id"]: [] for entry in ledger["sources"]}
    urls = sources.by_url(ledger)
    for file, markdown in pages.items():
        text = sources.expanded(markdown, root, fragments)
        used = {name for _, name in sources.citations(text)}
        used |= {urls[url]["id"] for url in sources.raw_urls(text) if url in urls}
        for name in sorted(used & set(found)):
            found[name].append(file)
    return found


def data_pages(pages: dict[str, str], root: Path) -> dict[str, list[str]]:
    """For each data file, the pages it is rendered into."""
    found: dict[str, list[str]] = {}
    for file, markdown in pages.items():
        for data in sources.data_files_of(markdown, root):
            found.setdefault(data, []).append(file)
    return found


def by_title(entry: dict) -> tuple[str, str]:
    return sources.fold(entry["title"]).casefold(), entry["id"]


def render(ledger: dict, fragments: dict[str, str] | None = None, root: Path = sources.ROOT) -> str:
    """The list, deterministic: kinds in KINDS order, sources by title then id."""
    pages = page_texts(root)
    titles = {file: _text(page_title(text, file)) for file, text in pages.items()}
    using = pages_using(ledger, pages, fragments, root)
    rendered_into = data_pages(pages, root)
    usage = sources.usage(root)

    def page_link(file: str) -> str:
        return f"[{titles[file]}]({file.removeprefix('docs/')})"

    def where_text(where: str, name: str) -> str:
        if where in titles:
            return page_link(where)
        if where in rendered_into:  # the pages showing this data file that show this source
            shown = [f for f in rendered_into[where] if f in using[name]] or rendered_into[where]
            return ", ".join(page_link(f) for f in shown)
        if where.startswith(DOCTOR_FILES):
            return "[the doctor](doctor.md)"
        return f"`{where}`" if "`" not in where else _text(where)

    by_kind: dict[str, list[dict]] = {kind: [] for kind in sources.KINDS}
    for entry in ledger["sources"]:
        by_kind[entry["kind"]].append(entry)
    kinds = [kind for kind in sources.KINDS if by_kind[kind]]
    total = len(ledger["sources"])
    jump = " · ".join(f"[{sources.KINDS[kind]}](#{kind}) ({len(by_kind[kind])})" for kind in kinds)
    lines = [f"{total} sources, by kind: {jump}.", ""]
    for kind in kinds:
        lines += [
            f"## {sources.KINDS[kind]} {{#{kind}}}",
            "",
            "<div markdown data-search-exclude>",
            "",
        ]
        for entry in sorted(
            by_kind[kind], key=lambda e: (sources.fold(e["title"]).casefold(), e["id"])
        ):
            lines += source_lines(entry, using[entry["id"]], usage, page_link, where_text)
        lines += ["</div>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def source_lines(entry: dict, pages: list[str], usage, page_link, where_text) -> list[str]:
    name = entry["id"]
    facts = [
        _text(entry["author"]),
        f"published {sources.date_text(entry['published'])}",
        f"read {sources.date_text(entry['read'])}",
        f"id `{name}`",
    ]
    head = f"- **[{_text(entry['title'])}]({entry['url']}){{#{name}}}**: " + ", ".join(facts) + "."
    software, hardware = entry["concerns"]["software"], entry["concerns"]["hardware"]
    concerns = "; ".join(
        part
        for part in (
            ", ".join(_text(s) for s in software),
            ", ".join(_text(h) for h in hardware),
        )
        if part
    )
    lines = [head]
    if concerns:
        lines += ["", f"    Concerns: {concerns}."]
    used = [page_link(file) for file in pages]
    if any(f.startswith(DOCTOR_FILES) for f in sources.users(entry, usage)):
        used.append("[the doctor](doctor.md)'s messages")
    lines += ["", f"    Used by: {', '.join(used) if used else 'no page'}."]
    lines.append("")
    for item in entry["supports"]:
        lines.append(
            f"    - “{_text(item['quote'])}”: {_text(item['statement'])} "
            f"({where_text(item['where'], name)})"
        )
    lines.append("")
    return lines
