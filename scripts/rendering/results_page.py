"""The Results page: every machine side by side per comparison, published numbers kept apart."""

from __future__ import annotations

import re
from pathlib import Path

from scripts.core import catalog
from scripts.core.catalog import ROOT
from scripts.findings import noisy as noisy_rule
from scripts.findings.pairs import Findings
from scripts.rendering import names, reference_figures, tables

STALE_MARK = " †"


def topic_pages(root: Path = ROOT) -> dict[str, str]:
    """Which page shows each snippet topic: {topic: 'input-pipeline.md'} (first page found)."""
    pages: dict[str, str] = {}
    for page in sorted((root / "docs").glob("*.md")):
        for topic in re.findall(r'--8<-- "snippets/([a-z0-9_]+)/', page.read_text("utf-8")):
            pages.setdefault(topic, page.name)
    return pages


def topic_title(topic: str) -> str:
    return topic.replace("_", " ").capitalize()


def cell(
    data: dict,
    entry: dict,
    baseline: dict | None,
    ceiling: float | None,
    root: Path,
    findings: Findings | None = None,
) -> str:
    """A variant's speed-up (its finding, pooled over the machine's sittings) and its latest
    median."""
    stats = entry["stats"]
    text = tables.format_seconds(stats["median_s"])
    if baseline is not None and entry is not baseline and not entry.get("reference"):
        keys = [f"{e['snippet']}:{e['variant']}" for e in (baseline, entry)]
        found = (findings or Findings([data])).pair(data, *keys)
        text = f"{names.speedup(found.point)} ({text})" if found else f"– ({text})"
    if stats.get("gflops_per_s") and ceiling:
        text += f", {stats['gflops_per_s'] / ceiling * 100:.0f}% of ceiling"
    if noisy_rule.entry_noisier(data, f"{entry['snippet']}:{entry['variant']}"):
        text += tables.NOISY_MARK
    if not catalog.is_current(entry, root):
        text += STALE_MARK
    return text


def snippet_table(
    all_data: list[dict], snippet: str, root: Path, findings: Findings | None = None
) -> str:
    """One row per machine; a column per variant: speed-up vs the baseline (median)."""
    variants: list[str] = []
    for data in all_data:
        for entry in tables.snippet_entries(data, snippet):
            if entry["variant"] not in variants:
                variants.append(entry["variant"])
    header = "| Machine | Software | Measured | " + " | ".join(f"`{v}`" for v in variants) + " |"
    lines = [header, "|---|---|---|" + "---:|" * len(variants)]
    for data in all_data:
        entries = {e["variant"]: e for e in tables.snippet_entries(data, snippet)}
        if not entries:
            continue
        first = next(iter(entries.values()))
        baseline = entries.get(first["baseline"])
        ceiling = tables.ceiling_gflops(data)
        cells = [
            cell(data, entries[v], baseline, ceiling, root, findings) if v in entries else "–"
            for v in variants
        ]
        dates = sorted({e["date"][:10] for e in entries.values()})
        lines.append(
            f"| {names.of(data['machine'])} "
            f"| {tables.software_words(first['software'])} "
            f"| {', '.join(dates)} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def measured_section(
    all_data: list[dict], root: Path = ROOT, findings: Findings | None = None
) -> str:
    """Tabs by topic; in each, every snippet's chart (one series per machine) and table."""
    snippets = sorted({e["snippet"] for d in all_data for e in d["entries"].values()})
    pages = topic_pages(root)
    blocks = []
    for topic in sorted({s.split("/")[0] for s in snippets}):
        body = []
        if topic in pages:
            body.append(f"Explained on [{topic_title(topic)}]({pages[topic]}).")
        for snippet in (s for s in snippets if s.startswith(topic + "/")):
            body += [
                f"**`snippets/{snippet}.py`**",
                f"![Median time per run for snippets/{snippet}.py, one series per machine]"
                # Lazy: only the open tab's charts load, so the page's weight stays flat as
                # snippets and machines are added.
                f"(_generated/{snippet}.svg){{ loading=lazy }}",
                snippet_table(all_data, snippet, root, findings or Findings(all_data)),
            ]
        indented = "\n".join(
            f"    {line}" if line else "" for line in "\n\n".join(body).splitlines()
        )
        blocks.append(f'=== "{topic_title(topic)}"\n\n{indented}')
    legend = (
        "Cells show the speed-up over the snippet's baseline (above 1 is faster) with the "
        "median time per run in brackets; the baseline's cell is its median. "
        f"A{STALE_MARK} marks a result measured on an earlier version of the snippet: kept, "
        "but not comparable with the others."
    )
    return "\n\n".join(blocks) + "\n\n" + legend + "\n"


def load_reference(path: Path = reference_figures.REFERENCE_FILE) -> list[dict]:
    """The published sources, checked against their schema (reference_figures.check)."""
    return reference_figures.load(path)


def reported_section(sources: list[dict]) -> str:
    """Published numbers, grouped by source, each with its link, hardware, software and date."""
    return reference_figures.results_section(sources)
