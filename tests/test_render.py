"""Rendered pages match the committed results byte for byte, and show what the results hold."""

from __future__ import annotations

import copy

from scripts.core import catalog, claims, pooling, store
from scripts.findings import noisy, results_views
from scripts.rendering import names, render, results_page, tables


def test_committed_fragments_equal_a_fresh_render(fresh_render):
    stale = render.stale_files(fresh_render, render.GENERATED_DIR)
    assert not stale, (
        f"docs/_generated/ differs from the results for {stale}: run `make render` and commit "
        "(never edit generated files by hand)"
    )


def test_render_is_deterministic(committed_results, fresh_render):
    """A second render (here; the first may have been another process's) gives the same
    files, and leaves the results it was given as they were."""
    data = copy.deepcopy(committed_results)
    files = [store.read(path) for path in sorted(store.RESULTS_DIR.glob("*.json"))]
    stacks = results_views.stack_views(files)
    kept = copy.deepcopy(stacks)
    second = render.render_all(
        data, claims.load(), results_page.load_reference(), stack_data=stacks
    )
    assert second == fresh_render
    assert data == committed_results, "render_all changed the results it was given"
    assert stacks == kept, "render_all changed the stacks' views it was given"


def test_tables_show_each_median_and_speedup_faithfully(committed_results, root):
    for data in committed_results:
        snippets = {e["snippet"] for e in data["entries"].values()}
        for snippet in snippets:
            entries = tables.snippet_entries(data, snippet)
            table = tables.comparison_table(data, entries, root)
            assert f"**{names.machine(data['machine']['id'])}**" in table
            baseline = next(e for e in entries if e["variant"] == e["baseline"])
            for entry in entries:
                row = next(line for line in table.splitlines() if f"`{entry['variant']}`" in line)
                assert tables.format_seconds(entry["stats"]["median_s"]) in row
                if entry is not baseline and not entry.get("reference"):
                    keys = [f"{e['snippet']}:{e['variant']}" for e in (baseline, entry)]
                    pooled = pooling.speedup(data, *keys)
                    if pooled is None:
                        assert "| – |" in row
                        continue
                    shown = names.speedup(pooled.point, pooled.mean_low, pooled.mean_high)
                    assert shown in row
                    holds_one = pooled.mean_low <= 1.0 <= pooled.mean_high
                    assert ("no clear difference" in row) == holds_one
                key = f"{entry['snippet']}:{entry['variant']}"
                assert (tables.NOISY_MARK in row) == noisy.entry_noisier(data, key)


def test_stale_entries_are_labelled_not_mixed_in(committed_results, root):
    data = copy.deepcopy(committed_results[0])
    entry = next(iter(data["entries"].values()))
    entry["snippet_sha256"] = "0" * 64
    table = tables.comparison_table(data, tables.snippet_entries(data, entry["snippet"]), root)
    row = next(line for line in table.splitlines() if f"`{entry['variant']}`" in line)
    # The row carries the mark; the caveat is said once, above the table, not on each row.
    assert tables.EARLIER_MARK in row
    assert "earlier version" not in row
    assert table.count("measured on an earlier version of this snippet") == 1
    head = table.split("| Variant |")[0]
    assert f"Rows marked {tables.EARLIER_MARK} were measured on an earlier version" in head
    others = [line for line in table.splitlines() if line.startswith("| `") and line != row]
    assert others and not any(tables.EARLIER_MARK in line for line in others)


def test_charts_are_svg_without_dates(fresh_render):
    charts = {name: text for name, text in fresh_render.items() if name.endswith(".svg")}
    assert charts
    for name, text in charts.items():
        assert text.lstrip().startswith("<?xml") and "<svg" in text, name
        assert "dc:date" not in text, name


def test_flop_rate_share_of_ceiling_and_memory_columns(committed_results, root):
    data = copy.deepcopy(committed_results[0])
    entries = tables.snippet_entries(data, next(iter(data["entries"].values()))["snippet"])
    ceiling = copy.deepcopy(entries[0])
    ceiling.update(snippet="ceiling/matmul", variant="float32")
    ceiling["stats"]["gflops_per_s"] = 200.0
    data["entries"][catalog.CEILING_KEY] = ceiling
    for entry in entries:
        entry["stats"]["gflops_per_s"] = 10.0
        entry["stats"]["peak_rss_bytes"] = 300 * 2**20
        entry["method"]["process"] = "one child per variant"
    table = tables.comparison_table(data, entries, root)
    assert "Share of this machine's FP32 ceiling" in table and "Peak memory (RSS)" in table
    row = next(line for line in table.splitlines() if f"`{entries[0]['variant']}`" in line)
    assert "| 10.0 | 5.0% |" in row and "300 MiB" in row
    assert "(200.0 GFLOP/s)" in table


def test_table_note_gives_the_number_of_timed_runs(committed_results, root):
    data = copy.deepcopy(committed_results[0])
    entries = tables.snippet_entries(data, next(iter(data["entries"].values()))["snippet"])
    for entry in entries:
        entry["stats"]["rounds"] = 12
    assert "; 12 timed runs per variant." in tables.comparison_table(data, entries, root)
    entries[0]["stats"]["rounds"] = 7
    assert "; 7–12 timed runs per variant." in tables.comparison_table(data, entries, root)
