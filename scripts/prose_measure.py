"""Sentence length of the site's prose, page by page, with the generated fragments each page
includes: words per sentence, the longest sentences, and the words a reader meets before a
page's first explanation; and the words in each table cell.

    python -m scripts.prose_measure             # every page in mkdocs.yml's nav
    python -m scripts.prose_measure --long 30   # also list the sentences over 30 words

What counts as prose: paragraphs, list items and admonition bodies. Code (fenced or included
from a snippet), tables, headings, HTML lines, comments and link definitions are left out.
Inline links and emphasis are reduced to their text; inline code counts as one word.
A sentence ends at '.', '!' or '?' followed by a space and a capital, a digit, a quote, a
bracket or code; a paragraph or list item always ends one. Words inside quotation marks are
a source's own and are never shortened: they count towards the average, but a sentence's
length against the longest-sentence limit counts only the words outside them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scripts.core import site_nav

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

INCLUDE = re.compile(r'^(\s*)--8<--\s+"([^"]+)"\s*$')
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
SKIPPED_LINE = re.compile(
    r"^\s*(#{1,6}\s|!!!|\?\?\?|===|\||\[[^\]]+\]:\s|!\[|</?[a-zA-Z][^>]*>\s*$|---\s*$)"
)
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "No.", "et al.")
BOUNDARY = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+(?=[\"'“‘(\[A-Z0-9\u2063])")
# Curly quotation marks pair first: a quote may hold straight ones (code, an inch mark).
QUOTED = (re.compile(r"“[^”]*”"), re.compile(r"\"[^\"]*\""))
DOT = "\u2024"  # one dot leader: a full stop that ends no sentence
CODE = "\u2063"  # marks where inline code stood, so a sentence may start with it


@dataclass(frozen=True)
class Sentence:
    words: int
    text: str
    origin: str  # the page, or the generated file the sentence came from
    own: int  # the words outside quotation marks


def nav_pages(mkdocs: Path = ROOT / "mkdocs.yml") -> list[str]:
    """The pages in mkdocs.yml's nav, in order ('index.md', ...)."""
    return [page for _, page in site_nav.entries(mkdocs)]


def expanded(path: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """The page's lines with each generated markdown include replaced by its text, each line
    with its origin; a snippet include becomes a code line."""
    lines: list[tuple[str, str]] = []
    origin = path.relative_to(root).as_posix()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = INCLUDE.match(line)
        if not match:
            lines.append((line, origin))
            continue
        indent, target = match.groups()
        if ":" in target or not target.endswith(".md") or not (root / target).is_file():
            lines.append((indent + "```", origin))
            lines.append((indent + "```", origin))
            continue
        for sub, sub_origin in expanded(root / target, root):
            lines.append((indent + sub if sub.strip() else "", sub_origin))
    return lines


def plain(text: str) -> str:
    """Inline markdown reduced to what a reader reads."""
    text = re.sub(r"<!--.*?-->", " ", text)
    text = re.sub(r"\{[:#.][^}]*\}|\{\s*data-[^}]*\}", " ", text)
    text = re.sub(
        r"`+([^`]*)`+", lambda m: CODE + m.group(1).replace(".", DOT).replace(" ", "_"), text
    )
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", text)
    text = re.sub(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])", r"\1", text)
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"https?://\S+", " ", text)
    return text.replace("**", "").replace("*", "").replace("&quot;", '"').replace("&amp;", "&")


def outside_code(lines: list[tuple[str, str]]) -> Iterator[tuple[str | None, str]]:
    """(line, origin) of every line outside fenced code blocks; (None, origin) where a block
    starts, since it ends the paragraph before it."""
    fence: str | None = None
    for line, origin in lines:
        mark = FENCE.match(line)
        if fence:
            if mark and mark.group(1)[0] == fence:
                fence = None
            continue
        if mark:
            fence = mark.group(1)[0]
            yield None, origin
            continue
        yield line, origin


def blocks(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(text, origin) of every paragraph and list item."""
    found: list[tuple[str, str]] = []
    current: list[str] = []
    origin = ""
    comment = False

    def close() -> None:
        nonlocal current
        if current:
            found.append((" ".join(current), origin))
        current = []

    for line, line_origin in outside_code(lines):
        if line is None:  # a code block starts: it ends the paragraph
            close()
            continue
        stripped = line.strip()
        if comment:
            comment = "-->" not in stripped
            continue
        if stripped.startswith("<!--"):
            comment = "-->" not in stripped
            close()
            continue
        if not stripped or SKIPPED_LINE.match(line):
            close()
            continue
        if LIST_ITEM.match(line):
            close()
            stripped = LIST_ITEM.sub("", line, count=1).strip()
        text = plain(stripped).strip()
        if text:
            if not current:
                origin = line_origin
            current.append(text)
    close()
    return found


def words(text: str) -> int:
    return sum(1 for token in text.split() if re.search(r"[A-Za-z0-9]", token))


def table_cells(lines: list[tuple[str, str]]) -> list[tuple[int, str, str]]:
    """(words, text, origin) of every cell of every markdown table outside code, header
    cells included; a '|' inside inline code or escaped as '\\|' does not split a cell."""
    found = []
    for line, origin in outside_code(lines):
        row = (line or "").strip()
        if not row.startswith("|") or set(row) <= set("|-: "):
            continue
        shielded = re.sub(r"`[^`]*`|\\\|", lambda m: m.group(0).replace("|", "\0"), row)
        for cell in shielded.strip("|").split("|"):
            text = cell.replace("\0", "|").strip()
            found.append((words(plain(text)), text, origin))
    return found


def sentences(lines: list[tuple[str, str]]) -> list[Sentence]:
    found = []
    for text, origin in blocks(lines):
        for abbreviation in ABBREVIATIONS:
            text = text.replace(abbreviation, abbreviation.replace(".", DOT))
        # Quotation marks pair over the whole paragraph: a quoted passage of several sentences
        # is split like other text, and each of its parts stays quoted.
        unquoted = text
        for quoted in QUOTED:
            unquoted = quoted.sub(lambda m: " " * len(m.group(0)), unquoted)
        start = 0
        for end, after in [(m.start(), m.end()) for m in BOUNDARY.finditer(text)] + [
            (len(text), len(text))
        ]:
            part = text[start:end]
            own = words(unquoted[start:end])
            start = after
            count = words(part)
            if count:
                found.append(Sentence(count, part.strip(), origin, own))
    return found


@dataclass(frozen=True)
class PageMeasure:
    page: str
    words: int
    sentences: int
    longest: list[Sentence]  # longest first, by the words outside quotes

    @property
    def per_sentence(self) -> float:
        return self.words / self.sentences if self.sentences else 0.0


def measure(page: str, docs: Path = DOCS) -> PageMeasure:
    found = sentences(expanded(docs / page, docs.parent))
    longest = sorted(found, key=lambda s: -s.own)
    return PageMeasure(page, sum(s.words for s in found), len(found), longest)


def words_before_explanation(page: str, docs: Path = DOCS) -> int:
    """Prose words from the end of the page's In short box to its first section that
    explains: the first '## ' heading that is not 'What to do' and not the claims."""
    lines = expanded(docs / page, docs.parent)
    start = next(
        (i for i, (line, _) in enumerate(lines) if line.strip() == '!!! abstract "In short"'),
        None,
    )
    if start is None:
        raise ValueError(f"{page}: no In short box")
    end = start + 1
    while end < len(lines) and (not lines[end][0].strip() or lines[end][0].startswith("    ")):
        end += 1
    stop = end
    for stop in range(end, len(lines)):
        line = lines[stop][0]
        if line.startswith("## ") and not re.match(r"## (What to do|The claims)", line):
            break
    return sum(s.words for s in sentences(lines[end:stop]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.prose_measure", description=__doc__)
    parser.add_argument("--long", type=int, default=0, help="list sentences over this many words")
    args = parser.parse_args(argv)
    total_words = total_sentences = 0
    for page in nav_pages():
        found = measure(page)
        total_words += found.words
        total_sentences += found.sentences
        top = found.longest[0].own if found.longest else 0
        print(f"{page:26} {found.words:7} words {found.per_sentence:5.1f} w/s  longest {top}")
        for sentence in found.longest:
            if args.long and sentence.own > args.long:
                print(f"    {sentence.own:3}  {sentence.origin}: {sentence.text[:160]}")
    print(f"{'all pages':26} {total_words:7} words {total_words / total_sentences:5.1f} w/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
