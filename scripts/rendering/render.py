"""Render tables, SVG charts, snippet outputs and claim verdicts from committed results.

Deterministic: the same results files give the same bytes. Nothing is measured here.
`python -m scripts.render --check` exits 1 and lists the files that differ from a fresh render.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.core import (
    claims,
    compatibility,
    mac_recipes,
    measured_stacks,
    sources,
    stack_changes,
)
from scripts.core import store as results
from scripts.core.catalog import ROOT
from scripts.findings import results_views
from scripts.findings.pairs import Findings
from scripts.rendering import (
    batch_fit,
    calibration_page,
    charts,
    chip_view,
    claim_boxes,
    compat_table,
    cpu_features,
    escaping,
    mac_recipes_page,
    names,
    published_data,
    reference_figures,
    results_page,
    sources_page,
    stack_changes_page,
    stack_comparison,
    stack_matrix,
    symptoms,
    tables,
)
from scripts.rendering import (
    reproducibility as reproducibility_page,
)

GENERATED_DIR = ROOT / "docs" / "_generated"


# Measured tables and captured outputs stay out of the site search: their numbers match
# nothing a reader types, and in the index, which every page downloads, they would make up
# most of its weight (Material skips any element marked data-search-exclude).
SEARCH_EXCLUDED = (".table.md", ".first-call.md", ".overlap.md", ".fit.md", ".output.md")


def out_of_search(markdown: str) -> str:
    return f"<div markdown data-search-exclude>\n\n{markdown.rstrip()}\n\n</div>\n"


def snippets_in(all_data: list[dict]) -> list[str]:
    return sorted({e["snippet"] for data in all_data for e in data["entries"].values()})


def render_all(
    all_data: list[dict],
    claim_list: list[dict],
    reference: list[dict],
    root: Path = ROOT,
    stack_data: list[dict] | None = None,
    causes: list[stack_changes.Cause] | None = None,
) -> dict[str, str]:
    """Every generated file, as {path relative to docs/_generated: text}.

    all_data: the default stack's view of every file (what the factor pages show);
    stack_data: a view per (machine, stack) (results_views.stack_views; default: all_data);
    causes: data/stack_changes.yml (default: read it).
    Strings from results files are untrusted: pages get them escaped (escaping.escaped_results),
    and charts get them raw, because the SVG writer escapes text itself.
    """
    raw_data, all_data = all_data, [escaping.escaped_results(data) for data in all_data]
    stack_data = [
        escaping.escaped_results({"stack": measured_stacks.DEFAULT, **data})
        for data in (raw_data if stack_data is None else stack_data)
    ]
    causes = stack_changes.load() if causes is None else causes
    # Every speed-up, interval and outcome the pages show is decided once, here.
    findings = Findings([*all_data, *stack_data])
    files: dict[str, str] = {
        "machines.md": tables.machines_table(all_data, stack_data),
        "machine-key.md": "The tables name the machines by these short names:\n\n"
        + names.machine_key(all_data)
        + "\n",
        "results/measured.md": results_page.measured_section(all_data, root, findings),
        "results/reported.md": results_page.reported_section(reference),
        "results/downloads.md": published_data.download_links(raw_data),
        "claims/all.md": claim_boxes.summary_table(
            claim_list, all_data, root, findings, stack_data
        ),
        "cpu-features.md": cpu_features.table(all_data),
    }
    for page in reference_figures.FACTOR_PAGES:  # each factor page's published Mac figures
        files[f"{reference_figures.OUTPUT_DIR}/{page}.md"] = reference_figures.page_fragment(
            reference, page
        )
    files[chip_view.OUTPUT] = chip_view.render(reference)
    for snippet in snippets_in(all_data):
        tables_md, overlap_md, outputs_md, series = [], [], [], []
        for data, raw in zip(all_data, raw_data, strict=True):
            entries = tables.snippet_entries(data, snippet)
            if not entries:
                continue
            tables_md.append(tables.comparison_table(data, entries, root, findings))
            overlap = tables.overlap_table(data, entries)
            if overlap:
                overlap_md.append(overlap)
            output = tables.output_block(data, snippet)
            if output:
                outputs_md.append(output)
            rows = [
                (e["variant"], e["stats"]["median_s"], e["stats"]["q1_s"], e["stats"]["q3_s"])
                for e in entries
            ]
            series.append((raw["machine"]["description"], rows))
        files[f"{snippet}.table.md"] = "\n".join(tables_md)
        files[f"{snippet}.first-call.md"] = tables.snippet_first_call_table(all_data, snippet)
        files[f"{snippet}.svg"] = charts.median_chart(f"snippets/{snippet}.py", series)
        if overlap_md:
            files[f"{snippet}.overlap.md"] = "\n".join(overlap_md)
        if outputs_md:
            files[f"{snippet}.output.md"] = "\n".join(outputs_md)
        fit = batch_fit.fit_fragment(all_data, snippet) if snippet in batch_fit.SNIPPETS else None
        if fit:
            files[f"{snippet}.fit.md"] = fit
    files["reproducibility.md"] = reproducibility(all_data, claim_list)
    files["calibration.md"] = calibration_page.table(stack_data)
    for page in sorted({c["page"] for c in claim_list}):
        name = Path(page).with_suffix("").as_posix()
        files[f"claims/{name}.md"] = claim_boxes.page_fragment(
            claim_list, all_data, page, root, stack_data, findings
        )
        files[stack_comparison.output_name(page)] = stack_comparison.page_fragment(
            claim_list, stack_data, page, root, findings
        )
    files[stack_matrix.MATRIX_OUTPUT] = stack_matrix.matrix(stack_data)
    files[stack_matrix.GLANCE_OUTPUT] = stack_matrix.at_a_glance(
        claim_list, stack_data, root, findings
    )
    files[stack_matrix.VERDICTS_OUTPUT] = stack_matrix.verdicts(
        claim_list, stack_data, root, findings
    )
    files[stack_changes_page.OUTPUT] = stack_changes_page.render(
        claim_list, stack_data, causes, root, findings
    )
    if compatibility.DATA.exists():  # the versions page's table, from data/compatibility.json
        files[compat_table.OUTPUT] = compat_table.render()
    if mac_recipes.DATA.exists():  # the Set up page's recipes, from data/mac_recipes.json
        files[mac_recipes_page.OUTPUT] = mac_recipes_page.render()
        files[mac_recipes_page.RECOMMENDATION_OUTPUT] = mac_recipes_page.render_recommendation()
    files[symptoms.OUTPUT], files[symptoms.TOP_OUTPUT] = symptoms.render(), symptoms.render_top()
    files[sources_page.OUTPUT] = sources_page.render(  # the Sources page's list
        sources.load(root / "data" / "sources.yml", root), files, root
    )
    # Published figures (reported/<page>.md, results/reported.md) are tables of other
    # sources' numbers: out of search for the same reason as measured tables.
    reported = [n for n in files if n.startswith("reported/") or n == "results/reported.md"]
    for name in (
        [n for n in files if n.endswith(SEARCH_EXCLUDED)]
        + reported
        + [
            "results/measured.md",
            "reproducibility.md",
            "calibration.md",
        ]
    ):
        files[name] = out_of_search(files[name])
    return files


def reproducibility(all_data: list[dict], claim_list: list[dict]) -> str:
    """Each machine with two or more sessions: its latest against the one before."""
    sections = [
        section
        for data in all_data
        for section in reproducibility_page.machine_sections(data, claim_list)
    ]
    return "\n".join(sections) if sections else "No machine has two sessions committed yet.\n"


def render_from_disk() -> dict[str, str]:
    """Render from the committed results, claims and reference files."""
    files = results.read_all()
    return render_all(
        results_views.unchecked_views(files),
        claims.load(),
        results_page.load_reference(),
        stack_data=results_views.stack_views(files),
    )


def stale_files(rendered: dict[str, str], out_dir: Path) -> list[str]:
    """Generated files that differ from the rendering, are missing, or are left over."""
    on_disk = {p.relative_to(out_dir).as_posix() for p in out_dir.rglob("*") if p.is_file()}
    # written by the commands that ran on the machine: scripts.doctor, scripts.tune
    on_disk -= {p for p in on_disk if p.startswith(("doctor/", "tune/"))}
    differ = [
        name
        for name, text in rendered.items()
        if not (out_dir / name).exists() or (out_dir / name).read_text(encoding="utf-8") != text
    ]
    return sorted(set(differ) | (on_disk - set(rendered)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.render", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    try:
        rendered = render_from_disk()
    except (
        results.ResultsError,
        claims.ClaimsError,
        sources.SourcesError,
        stack_changes.StackChangesError,
    ) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    stale = stale_files(rendered, GENERATED_DIR)
    if args.check:
        for name in stale:
            print(f"docs/_generated/{name} differs from a fresh render")
        return 1 if stale else 0
    for name in stale:
        path = GENERATED_DIR / name
        if name in rendered:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(rendered[name], encoding="utf-8")
        else:
            path.unlink()
    print(f"rendered {len(rendered)} files into docs/_generated/ ({len(stale)} changed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
