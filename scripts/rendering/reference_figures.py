"""Published numbers from others (data/reference_results.yml): checked, then shown apart.

Each factor page gets a fragment, `docs/_generated/reported/<page>.md`, with the figures
published for that factor; the Results page lists every source. Every string from the YAML is
escaped for Markdown and HTML (plain_text.escape); URLs are checked to be https instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from scripts.core import plain_text
from scripts.core.catalog import ROOT
from scripts.rendering import names

REFERENCE_FILE = ROOT / "data" / "reference_results.yml"
OUTPUT_DIR = "reported"  # under docs/_generated/

# The factor pages (file name: title), each with a Mac part that includes its fragment.
FACTOR_PAGES = {
    "input-pipeline": "Input pipeline",
    "graph-execution": "Graph execution",
    "threads": "CPU threads",
    "measuring": "Measuring correctly",
    "ceiling": "Compute ceiling",
    "batch-size": "Batch size",
    "mixed-precision": "Mixed precision",
    "transfer-learning": "Transfer learning",
    "device-placement": "Device placement",
    "memory": "Memory",
    "rosetta": "Rosetta 2",
    "neural-engine": "Neural Engine",
    "versions": "Versions",
}

SOURCE_KEYS = ("id", "title", "url", "date", "hardware", "software", "pages", "rows")
ROW_KEYS = ("hardware", "workload", "batch", "value", "unit")
# The other files of a source that its provenance was read in (the machine's description, the
# script, a README), each with its own link, so every fact opens the file it was read in.
ALSO_READ_KEYS = ("file", "url", "for")
# https, a host, then only characters that cannot end a Markdown link or open markup.
URL = re.compile(r"https://[A-Za-z0-9.-]+(/[A-Za-z0-9._~%!$&'*+,;=:@/?#-]*)?")
DATE = re.compile(r"\d{4}(-\d{2}){0,2}")
# A figure from an Apple-silicon Mac names its chip first: "Apple M1 Max, 32-core GPU".
APPLE_SILICON = re.compile(r"Apple M\d")
RESULTS_LINK = "results.md#reported-elsewhere-not-measured-by-this-project"
TITLE = "Reported by others, not measured here"


class ReferenceDataError(ValueError):
    """data/reference_results.yml breaks its schema; the message names the source and field."""


def load(path: Path = REFERENCE_FILE) -> list[dict]:
    sources = yaml.safe_load(path.read_text(encoding="utf-8"))["sources"]
    check(sources)
    return sources


def check(sources: list[dict]) -> None:
    """Raise ReferenceDataError on the first source or row that breaks the schema."""
    seen: set[str] = set()
    for source in sources:
        name = source.get("id", "?")
        missing = [key for key in SOURCE_KEYS if source.get(key) in (None, "", [])]
        if missing:
            raise ReferenceDataError(f"source {name}: missing {', '.join(missing)}")
        if name in seen:
            raise ReferenceDataError(f"source {name}: id used twice")
        seen.add(name)
        if not URL.fullmatch(source["url"]):
            raise ReferenceDataError(f"source {name}: url must be a plain https URL")
        if not DATE.fullmatch(str(source["date"])):
            raise ReferenceDataError(f"source {name}: date must be YYYY, YYYY-MM or YYYY-MM-DD")
        unknown = set(source["pages"]) - set(FACTOR_PAGES)
        if unknown:
            raise ReferenceDataError(f"source {name}: unknown pages {sorted(unknown)}")
        check_also_read(source.get("also_read", []), name)
        for index, row in enumerate(source["rows"]):
            where = f"source {name}, row {index + 1}"
            missing = [key for key in ROW_KEYS if row.get(key) in (None, "")]
            if missing:
                raise ReferenceDataError(f"{where}: missing {', '.join(missing)}")
            if not set(row.get("pages", source["pages"])) <= set(source["pages"]):
                raise ReferenceDataError(f"{where}: pages must be among the source's pages")
            if "link" in row and not URL.fullmatch(row["link"]):
                raise ReferenceDataError(f"{where}: link must be a plain https URL")
        for page in source["pages"]:
            if not rows_for(source, page):
                raise ReferenceDataError(f"source {name}: no row for page {page}")


def check_also_read(files: object, name: str) -> None:
    """also_read: a list of {file, url, for}, each url a plain https address."""
    if not isinstance(files, list):
        raise ReferenceDataError(f"source {name}: also_read must be a list of {{file, url, for}}")
    for index, item in enumerate(files):
        where = f"source {name}, also_read item {index + 1}"
        if not isinstance(item, dict) or set(item) != set(ALSO_READ_KEYS):
            raise ReferenceDataError(f"{where}: must have exactly {', '.join(ALSO_READ_KEYS)}")
        if not all(isinstance(item[key], str) and item[key].strip() for key in ALSO_READ_KEYS):
            raise ReferenceDataError(f"{where}: file, url and for must be text")
        if not URL.fullmatch(item["url"]):
            raise ReferenceDataError(f"{where}: url must be a plain https URL")


def rows_for(source: dict, page: str) -> list[dict]:
    """The source's rows that inform page (rows without `pages` inform all the source's)."""
    if page not in source["pages"]:
        return []
    return [row for row in source["rows"] if page in row.get("pages", source["pages"])]


def is_apple_silicon(row: dict) -> bool:
    return bool(APPLE_SILICON.match(str(row["hardware"])))


def counts(sources: list[dict], page: str) -> tuple[int, int]:
    """(sources, rows) of figures from Apple-silicon Macs that page shows."""
    apple = [[row for row in rows_for(s, page) if is_apple_silicon(row)] for s in sources]
    return sum(1 for rows in apple if rows), sum(len(rows) for rows in apple)


def cell_text(value: object) -> str:
    return plain_text.escape(str(value).strip())


def result_cell(row: dict) -> str:
    text = f"{names.as_published(row['value'])} {cell_text(row['unit'])}"
    return f"{text} ([source]({row['link']}))" if "link" in row else text


def source_block(source: dict, rows: list[dict], heading: str = "") -> list[str]:
    """A source as Markdown lines: linked title, provenance, notes, then its rows as a table."""
    title = f"[{cell_text(source['title'])}]({source['url']})"
    lines = [f"{heading} {title}" if heading else f"**{title}**", ""]
    provenance = (
        f"Published {cell_text(source['date'])}. Hardware: {cell_text(source['hardware'])}. "
        f"Software: {cell_text(source['software'])}."
    )
    if source.get("notes"):
        provenance += f" {cell_text(source['notes'])}"
    if source.get("also_read"):
        files = "; ".join(
            f"[{cell_text(item['file'])}]({item['url']}) ({cell_text(item['for'])})"
            for item in source["also_read"]
        )
        provenance += f" Also read in: {files}."
    lines += [provenance, "", "| Hardware | Workload | Batch | Result as published |"]
    lines.append("|---|---|---:|---:|")
    for row in rows:
        cells = [cell_text(row[key]) for key in ("hardware", "workload", "batch")]
        lines.append(f"| {' | '.join(cells)} | {result_cell(row)} |")
    return lines


def results_section(sources: list[dict]) -> str:
    """Every source on the Results page, with the factor pages it informs."""
    blocks = []
    for source in sources:
        lines = source_block(source, source["rows"], heading="####")
        pages = ", ".join(f"[{FACTOR_PAGES[page]}]({page}.md)" for page in source["pages"])
        blocks.append("\n".join([*lines, "", f"Informs: {pages}."]))
    return "\n\n".join(blocks) + "\n"


def page_fragment(sources: list[dict], page: str) -> str:
    """The admonition a factor page includes: its published Apple-silicon figures, or none."""
    shown = [(s, rows_for(s, page)) for s in sources if rows_for(s, page)]
    apple = [(s, rows) for s, rows in shown if any(is_apple_silicon(r) for r in rows)]
    others = [(s, rows) for s, rows in shown if not any(is_apple_silicon(r) for r in rows)]
    n_sources, n_rows = counts(sources, page)
    if apple:
        lines = [
            f"Published figures from Apple-silicon Macs for this factor: "
            f"{n_sources} {'source' if n_sources == 1 else 'sources'}, "
            f"{n_rows} {'row' if n_rows == 1 else 'rows'}. Each value is copied as its "
            "source published it (not converted, rounded or re-measured here). The models, "
            "data and settings are the sources', not this page's snippets: read them as "
            "context, not as a comparison with this project's measurements.",
        ]
    else:
        lines = [
            "No published TensorFlow figure from an Apple-silicon Mac was found for this "
            "factor. Measurements from your Mac would be the first: see "
            "[Contribute your results](contribute.md).",
        ]
    for source, rows in apple:
        lines += ["", *source_block(source, rows)]
    if others:
        lines += ["", "Published for other hardware, as context:"]
        for source, rows in others:
            lines += ["", *source_block(source, rows)]
    lines += ["", f"Every published source, with the pages it informs: [Results]({RESULTS_LINK})."]
    body = "\n".join(f"    {line}" if line else "" for line in lines)
    return f'!!! quote "{TITLE}"\n\n{body}\n'
