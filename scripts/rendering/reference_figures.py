"""Published numbers from others (data/reference_results.yml): checked, then shown apart.

Each factor page gets a fragment, `docs/_generated/reported/<page>.md`, with the figures
published for that factor; the Results page lists every source. Every string from the YAML is
escaped for Markdown and HTML (escaping.escape); URLs are checked to be https instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from scripts.core import data_formats, yaml_files
from scripts.core.catalog import ROOT
from scripts.rendering import escaping, names

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

PLACE = re.compile(r"sources\[(\d+)\]")  # a source's place in a schema message
# A figure from an Apple-silicon Mac names its chip first: "Apple M1 Max, 32-core GPU".
APPLE_SILICON = re.compile(r"Apple M\d")
RESULTS_LINK = "results.md#reported-elsewhere-not-measured-by-this-project"
TITLE = "Reported by others, not measured here"


class ReferenceDataError(ValueError):
    """data/reference_results.yml breaks its schema or a rule between fields; the message
    names the file, the source (its place and id) and the field."""


def load(path: Path = REFERENCE_FILE) -> list[dict]:
    try:
        data = yaml_files.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ReferenceDataError(f"{path.name}: cannot read it: {error}") from error
    check_file(data, path.name)
    return data["sources"]


def check(sources: list[dict], where: str = REFERENCE_FILE.name) -> None:
    """check_file for a list of sources, as the file holds them under `sources`."""
    check_file({"sources": sources}, where)


def check_file(data: object, where: str) -> None:
    """Each field as data/reference_results.schema.json defines it; then what a schema cannot
    say: ids listed once, pages that are factor pages, each row's pages among its source's,
    and a row for each page a source names."""
    try:
        data_formats.check(data, Path(where), "reference_results")
    except data_formats.FormatError as error:
        listed = data.get("sources") if isinstance(data, dict) else None
        sources = listed if isinstance(listed, list) else []
        ids = [s.get("id", "?") if isinstance(s, dict) else "?" for s in sources]
        named = PLACE.sub(lambda m: f"{m.group(0)} ({ids[int(m.group(1))]})", str(error))
        raise ReferenceDataError(named) from error
    seen: set[str] = set()
    for number, source in enumerate(data["sources"]):
        at = f"{where}: sources[{number}] ({source['id']})"
        if source["id"] in seen:
            raise ReferenceDataError(f"{at}: id used twice")
        seen.add(source["id"])
        unknown = set(source["pages"]) - set(FACTOR_PAGES)
        if unknown:
            raise ReferenceDataError(f"{at}.pages: unknown pages {sorted(unknown)}")
        for index, row in enumerate(source["rows"]):
            if not set(row.get("pages", source["pages"])) <= set(source["pages"]):
                raise ReferenceDataError(
                    f"{at}.rows[{index}].pages: must be among the source's pages"
                )
        for page in source["pages"]:
            if not rows_for(source, page):
                raise ReferenceDataError(f"{at}: no row for page {page}")


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
    return escaping.escape(str(value).strip())


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
