"""The Sources page's list (docs/_generated/sources.md): every source in data/sources.yml,
grouped by kind, with its author, dates, what it concerns, the source's words for each
statement that rests on it, and the pages that use it.

Every string from the ledger is escaped for Markdown and HTML (escaping.escape); addresses
are checked by the ledger's own validation (https, nothing that ends a link). The lists stay
out of the site search, like the measured tables: the search index is downloaded by every
page, and the quotes would add to it what the citing pages already hold.
"""

from __future__ import annotations

import re
from pathlib import Path

from scripts.core import site_nav, sources
from scripts.rendering import escaping

OUTPUT = "sources.md"  # under docs/_generated/
PAGE = "docs/sources.md"  # the page that includes it, which is not a page that uses sources
DOCTOR_FILES = "scripts/doctor/"
SEARCH_EXCLUDED = "<div markdown data-search-exclude>"
HEADING = re.compile(r"^# (.+?)\s*(?:\{[^}]*\})?\s*$", re.MULTILINE)


def escaped(value: str) -> str:
    """A ledger string folded to one line and escaped for a Markdown page."""
    return escaping.escape(sources.fold(value))


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
    """The list, deterministic: kinds in KINDS order, sources by title then id.

    Kept light, since one page carries every source: each source's pages are links once, in
    "Used on"; each quote names the page of its statement in plain words.
    """
    pages = page_texts(root)
    # A page goes by its title in the site's navigation, shorter than some headings.
    nav = {f"docs/{page}": title for title, page in site_nav.entries(root / "mkdocs.yml")}
    titles = {
        file: escaped(nav.get(file) or page_title(text, file)) for file, text in pages.items()
    }
    using = pages_using(ledger, pages, fragments, root)
    rendered_into = data_pages(pages, root)
    doctor = sources.Usage()  # which sources the doctor's messages print
    for path in sorted((root / DOCTOR_FILES).glob("*.py")):
        sources.file_usage(path, root, doctor)

    def page_link(file: str) -> str:
        return f"[{titles[file]}]({file.removeprefix('docs/')})"

    def where_text(where: str, name: str) -> str:
        """Where a statement is made, as a sentence of its own (a list of pages can be long)."""
        if where in titles:
            return f"On {titles[where]}."
        if where in rendered_into:  # the pages showing this data file that show this source
            shown = [f for f in rendered_into[where] if f in using[name]] or rendered_into[where]
            return f"On {', '.join(titles[f] for f in shown)}."
        if where.startswith(DOCTOR_FILES):
            return "In the doctor's messages."
        return f"In {escaped(where)}."

    by_kind: dict[str, list[dict]] = {kind: [] for kind in sources.KINDS}
    for entry in ledger["sources"]:
        by_kind[entry["kind"]].append(entry)
    kinds = [kind for kind in sources.KINDS if by_kind[kind]]
    total = len(ledger["sources"])
    jump = " · ".join(f"[{sources.KINDS[kind]}](#{kind}) ({len(by_kind[kind])})" for kind in kinds)
    lines = [f"{total} sources, by kind: {jump}.", ""]
    for kind in kinds:
        lines += [f"## {sources.KINDS[kind]} {{#{kind}}}", "", SEARCH_EXCLUDED, ""]
        for entry in sorted(by_kind[kind], key=by_title):
            used = [page_link(file) for file in using[entry["id"]]]
            if any(f.startswith(DOCTOR_FILES) for f in sources.users(entry, doctor)):
                used.append("[the doctor](doctor.md)'s messages")
            lines += source_lines(entry, used, lambda where, e=entry: where_text(where, e["id"]))
        lines += ["</div>", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def source_lines(entry: dict, used: list[str], where_text) -> list[str]:
    """One source: linked title (its anchor is its id), author and dates, what it concerns,
    the pages using it, then each quote with the statement it supports."""
    published = sources.date_text(entry["published"])
    facts = [
        escaped(entry["author"]),
        f"published {published}" if published else "no publication date given",
        f"read {sources.date_text(entry['read'])}",
    ]
    head = f"- **[{escaped(entry['title'])}]({entry['url']}){{#{entry['id']}}}** · " + " · ".join(
        facts
    )
    concerns = "; ".join(
        ", ".join(escaped(value) for value in entry["concerns"][key])
        for key in ("software", "hardware")
        if entry["concerns"][key]
    )
    about = f"Concerns {concerns}. " if concerns else ""
    lines = [head, "", f"    {about}Used on {', '.join(used) if used else 'no page'}.", ""]
    for item in entry["supports"]:
        words = " … ".join(f"“{escaped(quote)}”" for quote in sources.quotes(item))
        statement = escaped(item["statement"])
        end = "" if statement.endswith((".", "!", "?")) else "."
        lines.append(f"    - {words} {statement}{end} {where_text(item['where'])}")
    lines.append("")
    return lines
