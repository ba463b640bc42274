"""The source ledger, data/sources.yml: every external source the site cites, once, with the
source's own words for each statement of the site that rests on it.

An entry holds the source's id, its link (a permalink or a commit-pinned link where the
source can change), title, author or publisher, publication date, the date it was last read,
its kind, the software and hardware it concerns, and `supports`: one item per statement of
the site that rests on it, with the file that makes the statement and a short exact quote.
`not_sources` lists the few external addresses that are not citations (a local preview
server, a package page used as an install pointer), each with its reason.

Prose cites by id, `[text][id]` (pages, and Markdown strings inside data files); the site
build supplies each `[id]: url "title"` (scripts/rendering/citations.py). Data fields whose
whole value is an address (a symptom's source `url`, a claim's source, a published figure's
`link`, the doctor's JSON files) keep the address, which must be a ledger address.

This module loads and checks the ledger (its shape is data/sources.schema.json's), and finds
where each entry is used.
"""

from __future__ import annotations

import ast
import datetime
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from scripts.core import data_formats, yaml_files
from scripts.core.catalog import ROOT

LEDGER = ROOT / "data" / "sources.yml"

# Kinds, in the order the Sources page shows them, with that page's heading for each.
KINDS = {
    "documentation": "Official documentation",
    "code": "Source code",
    "issue": "Issue and pull-request threads",
    "forum": "Forum threads",
    "benchmark": "Benchmark repositories",
    "article": "Articles and papers",
    "package": "Package pages",
}
# Any external address in a file (what a citation check must account for).
RAW_URL = re.compile(r"https?://[^\s)\"'>`<\]]+")
# [text][id]: link text may wrap over lines and hold code spans and one level of brackets.
CITATION = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])+)\]\[([^\[\]\s]+)\]")
INLINE_LINK = re.compile(r"\]\((https?://[^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
INCLUDE = re.compile(r'^[ \t]*--8<--[ \t]+"([^"]+)"', re.MULTILINE)
GENERATED = "docs/_generated/"

# Which generated fragments (under docs/_generated/) each data file is rendered into; a page
# that includes one of them draws on that data file. data/claims/<page>.yml is rendered into
# claims/<page>.md and the table of all claims.
DATA_FRAGMENTS = {
    "data/symptoms.yml": ("symptoms/",),
    "data/mac_recipes.json": ("setup/",),
    "data/compatibility.json": ("versions/compatibility.md",),
    "data/reference_results.yml": ("reported/", "results/reported.md"),
}
# Fields of data files that hold code or output shown verbatim: no citations are looked for
# there (an address in them still has to be in the ledger).
CODE_FIELDS = {"fix_code", "what_you_see", "code", "command", "output", "pattern"}


class SourcesError(ValueError):
    """The ledger is not valid; the message names every entry and field at fault."""


# --- loading and checking -----------------------------------------------------------------


def date_text(value) -> str | None:
    """A date as the ledger writes it: YAML reads 2024-03-20 as a date and 2024 as a number."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) else None


def calendar_problem(value) -> str | None:
    """Why a date the schema's pattern admits is no calendar date (2024-13-01), or None
    (the schema names text that is no date at all)."""
    text = date_text(value)
    if not re.fullmatch(r"\d{4}(-\d{2}){0,2}", text or ""):
        return None
    try:
        datetime.date.fromisoformat((text + "-01-01")[:10])
    except (TypeError, ValueError):
        return f"is not a calendar date ({text!r})"
    return None


def with_dates_as_text(data: dict) -> dict:
    """The ledger with each `published` and `read` as the text the file holds (YAML reads
    2024-03-20 as a date and 2024 as a number), ready for the schema."""
    entries = [
        {**e, **{k: date_text(e[k]) for k in ("published", "read") if e.get(k) is not None}}
        if isinstance(e, dict) else e
        for e in data["sources"]
    ]  # fmt: skip
    return {**data, "sources": entries}


def named(problem: str, data: dict) -> str:
    """A schema problem with its entry named by id: 'source tf-63854 (sources[3]).url: ...'."""
    found = re.match(r"sources\[(\d+)\]", problem)
    if not found:
        return problem
    entry = data["sources"][int(found.group(1))]
    name = entry.get("id") if isinstance(entry, dict) else None
    return f"source {name} ({found.group(0)})" + problem[found.end() :] if name else problem


def problems(data, root: Path | None = None) -> list[str]:
    """Every problem of a loaded ledger; [] when it is valid. The shape is
    data/sources.schema.json's; this adds calendar dates, ids and addresses listed once,
    allowed addresses that are no source's, and (with `root`) `where` files that exist."""
    if not isinstance(data, dict) or not isinstance(data.get("sources"), list):
        return ["the ledger must be a mapping with a `sources:` list"]
    data = with_dates_as_text(data)
    found = [named(problem, data) for problem in data_formats.problems(data, "sources")]
    entries = [entry for entry in data["sources"] if isinstance(entry, dict)]
    urls: dict[str, str] = {}
    found += _listed_once(entries, urls)
    for entry in entries:
        found += _calendar_problems(entry)
        if root is not None:
            found += _where_problems(entry, root)
    for index, item in enumerate(data.get("not_sources") or []):
        if isinstance(item, dict) and item.get("url") in urls:
            found.append(
                f"not_sources[{index}]: {item['url']} is also the url of source {urls[item['url']]}"
            )
    return found


def _listed_once(entries: list[dict], urls: dict[str, str]) -> list[str]:
    """Ids and addresses listed twice; fills urls with {address: the source's id}."""
    found, ids = [], {}
    for index, entry in enumerate(entries):
        name, url = entry.get("id"), entry.get("url")
        if isinstance(name, str):
            if name in ids:
                found.append(f"source {name}: id defined twice (entries {ids[name]} and {index})")
            ids.setdefault(name, index)
        if isinstance(url, str):
            if url in urls:
                found.append(f"source {name}: url {url} is already the url of {urls[url]}")
            urls.setdefault(url, str(name))
    return found


def _calendar_problems(entry: dict) -> list[str]:
    found = []
    for key in ("published", "read"):
        problem = isinstance(entry.get(key), str) and calendar_problem(entry[key])
        if problem:
            found.append(f"source {entry.get('id')}: `{key}` {problem}")
    return found


def _where_problems(entry: dict, root: Path) -> list[str]:
    """Each `where` of the entry's supports that is no file of the repository at root."""
    found = []
    for number, item in enumerate(entry.get("supports") or [], 1):
        where = item.get("where") if isinstance(item, dict) else None
        if not isinstance(where, str) or not where.strip():
            continue
        if where.startswith("/") or ".." in Path(where).parts or not (root / where).is_file():
            found.append(
                f"source {entry.get('id')}: supports item {number}: `where` {where!r} is not a "
                "file of this repository"
            )
    return found


def load(path: Path = LEDGER, root: Path | None = ROOT) -> dict:
    """The ledger, checked; raises SourcesError listing every problem."""
    path = Path(path)
    try:
        data = yaml_files.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise SourcesError(f"{path.name}: not valid YAML ({error})") from error
    found = problems(data, root)
    if found:
        raise SourcesError(f"{path.name}: " + "\n  ".join(["not valid:", *found]))
    return data


def by_id(ledger: dict) -> dict[str, dict]:
    return {entry["id"]: entry for entry in ledger["sources"]}


def by_url(ledger: dict) -> dict[str, dict]:
    return {entry["url"]: entry for entry in ledger["sources"]}


def allowed(ledger: dict, url: str) -> bool:
    """Whether url is on the `not_sources` allow-list (exactly, or under a `prefix: true`)."""
    for item in ledger.get("not_sources") or []:
        if url == item["url"] or (item.get("prefix") and url.startswith(item["url"])):
            return True
    return False


# --- finding citations and addresses ----------------------------------------------------


def without_code(markdown: str) -> str:
    """The text outside fenced code blocks, with code spans kept as `code` (lines kept)."""
    lines, fence = [], None
    for line in markdown.split("\n"):
        opened = FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            lines.append("")
        elif fence is not None:
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                fence = None
            lines.append("")
        else:
            lines.append(line)
    return CODE_SPAN.sub(lambda m: "`code`" if "\n" not in m.group() else "", "\n".join(lines))


def citations(markdown: str) -> list[tuple[str, str]]:
    """(text, id) of every `[text][id]` outside code."""
    found = CITATION.finditer(without_code(markdown))
    return [(m.group(1), m.group(2)) for m in found if "\n\n" not in m.group(1)]


def raw_urls(text: str) -> list[str]:
    """Every http(s) address in text, trailing punctuation dropped."""
    return [m.group().rstrip(".,;:") for m in RAW_URL.finditer(text)]


def inline_links(markdown: str) -> list[str]:
    """Addresses of inline Markdown links, `[text](https://...)`, outside code."""
    return [m.group(1) for m in INLINE_LINK.finditer(without_code(markdown))]


def python_strings(source: str) -> str:
    """The string constants of a Python file, one a line: an address split over adjacent
    literals ("https://.../blob/" "<commit>/path") is one string once parsed."""
    return "\n".join(
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def _data_strings(value, key: str | None = None):
    """(field name, string) for every string in a loaded YAML or JSON document."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _data_strings(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _data_strings(v, key)
    elif isinstance(value, str):
        yield key, value


def cited_files(root: Path = ROOT) -> list[Path]:
    """The files whose external addresses must all be in the ledger (or allowed): the pages,
    the data files (not the ledger itself), and the doctor, which prints the
    addresses it reads. Notebooks are left out: their outputs are TensorFlow's own messages.
    """
    data = [
        p
        for p in sorted((root / "data").rglob("*"))
        if p.suffix in (".yml", ".yaml", ".json") and p != root / "data" / "sources.yml"
    ]
    return [
        *sorted((root / "docs").glob("*.md")),
        *data,
        *sorted((root / "scripts/doctor").glob("*.py")),
    ]


@dataclass
class Usage:
    """Where the files use sources: ids cited, addresses written, inline links made."""

    cited: dict[str, set[str]] = field(default_factory=dict)  # id -> files citing it
    urls: dict[str, set[str]] = field(default_factory=dict)  # address -> files writing it
    inline: list[tuple[str, str]] = field(default_factory=list)  # (file, url) of [text](url)

    def add(self, table: dict[str, set[str]], key: str, file: str) -> None:
        table.setdefault(key, set()).add(file)


def file_usage(path: Path, root: Path = ROOT, usage: Usage | None = None) -> Usage:
    """Add one file's citations and addresses to usage."""
    usage = usage if usage is not None else Usage()
    name = path.relative_to(root).as_posix()
    text = path.read_text(encoding="utf-8")
    for url in raw_urls(python_strings(text) if path.suffix == ".py" else text):
        usage.add(usage.urls, url, name)
    if path.suffix == ".md":
        prose = [text]
        usage.inline += [(name, url) for url in inline_links(text)]
    elif path.suffix in (".yml", ".yaml", ".json"):
        loaded = json.loads(text) if path.suffix == ".json" else yaml_files.safe_load(text)
        prose = [s for key, s in _data_strings(loaded) if key not in CODE_FIELDS]
    else:
        prose = []
    for string in prose:
        for _, name_id in citations(string):
            usage.add(usage.cited, name_id, name)
        if path.suffix != ".md":
            usage.inline += [(name, url) for url in inline_links(string)]
    return usage


def usage(root: Path = ROOT) -> Usage:
    """Citations and addresses in every file that cites (cited_files)."""
    found = Usage()
    for path in cited_files(root):
        file_usage(path, root, found)
    return found


def users(entry: dict, found: Usage) -> set[str]:
    """The files that use an entry, by id or by its address."""
    return found.cited.get(entry["id"], set()) | found.urls.get(entry["url"], set())


# --- pages: their included fragments, and the data files behind them ---------------------


def includes(markdown: str) -> list[str]:
    """Generated fragments a page includes (pymdownx.snippets lines), as docs/_generated/ paths."""
    names = [m.group(1).split(":", 1)[0] for m in INCLUDE.finditer(markdown)]
    return [n for n in names if n.startswith(GENERATED) and n.endswith(".md")]


def expanded(markdown: str, root: Path = ROOT, fragments: dict[str, str] | None = None) -> str:
    """A page with the text of its generated fragments added (fragments: rendered text by
    path under docs/_generated/, read from disk where not given)."""
    parts = [markdown]
    for name in includes(markdown):
        relative = name.removeprefix(GENERATED)
        if fragments is not None and relative in fragments:
            parts.append(fragments[relative])
        elif (root / name).is_file():
            parts.append((root / name).read_text(encoding="utf-8"))
    return "\n\n".join(parts)


def data_files_of(markdown: str, root: Path = ROOT) -> list[str]:
    """The data files whose fragments a page includes (DATA_FRAGMENTS, claim files)."""
    found = []
    for name in includes(markdown):
        fragment = name.removeprefix(GENERATED)
        for data, prefixes in DATA_FRAGMENTS.items():
            if fragment.startswith(prefixes) and data not in found:
                found.append(data)
        if fragment.startswith("claims/"):
            stem = Path(fragment).stem
            claim_files = [f"data/claims/{stem}.yml"]
            if stem == "all":
                claims_dir = root / "data" / "claims"
                claim_files = sorted(f"data/claims/{p.name}" for p in claims_dir.glob("*.yml"))
            found += [f for f in claim_files if f not in found]
    return found


def quotes(item: dict) -> list[str]:
    """A supports item's quotes: `quote`, then quote_2, quote_3... in order."""
    more = sorted(
        (int(k.split("_")[1]), v) for k, v in item.items() if re.fullmatch(r"quote_\d+", str(k))
    )
    return [item["quote"], *(v for _, v in more)]


def fold(text: str) -> str:
    """Whitespace (line breaks included) folded to single spaces."""
    return " ".join(str(text).split())
