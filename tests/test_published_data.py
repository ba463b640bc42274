"""The data behind the pages is published with the site: results files, a CSV, the schema."""

from __future__ import annotations

import copy
import csv
import io
import json

import jsonschema
import pytest

from scripts.core import pooling
from scripts.core.stats import entry_speedup
from scripts.rendering import published_data


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(published_data.SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_every_committed_results_file_meets_the_schema(validator, committed_files):
    for data in committed_files:
        errors = [e.message for e in validator.iter_errors(data)]
        assert errors == [], data["machine"]["id"]


def test_the_schema_refuses_an_interleaved_entry_without_its_round_order(
    validator, committed_files
):
    data = copy.deepcopy(
        next(
            d
            for d in committed_files
            if any(e["method"].get("schedule") for e in d["sessions"][-1]["entries"].values())
        )
    )
    entries = data["sessions"][-1]["entries"]
    entry = next(e for e in entries.values() if e["method"].get("schedule"))
    del entry["stats"]["round_positions"]
    messages = [e.message for e in validator.iter_errors(data)]
    assert any("'round_positions' is a required property" in m for m in messages), messages
    data["schema_version"] = 3
    assert not validator.is_valid(data)


@pytest.mark.parametrize(
    "mutate, words",
    [
        (lambda d: d.update(notes="x"), "Additional properties are not allowed ('notes'"),
        (lambda d: d["machine"].update(physical_cores=10**30), "is greater than the maximum"),
        (lambda d: next(iter(d["entries"].values())).update(commit="main"), "does not match"),
    ],
    ids=["unknown top-level key", "absurd core count", "commit not a hash"],
)
def test_the_schema_says_what_validation_refuses(validator, committed_results, mutate, words):
    """Issue 21 item 5: the published schema refuses what `make validate` refuses, where a
    schema can say it (not duplicate keys, nor an id that names another machine)."""
    data = copy.deepcopy(committed_results[0])
    mutate(data)
    messages = [e.message for e in validator.iter_errors(data)]
    assert any(words in m for m in messages), messages


def test_the_csv_has_a_row_per_entry_with_the_tables_speedups(committed_results):
    """A row for every entry of every session: the session's own speed-up, and the speed-up
    pooled over the machine's sessions that the tables show."""
    text = published_data.csv_text(committed_results)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(len(s["entries"]) for d in committed_results for s in d["sessions"])
    assert tuple(rows[0]) == published_data.COLUMNS
    by_key = {(r["machine_id"], r["session"], f"{r['snippet']}:{r['variant']}"): r for r in rows}
    checked = pooled_checked = 0
    for data in committed_results:
        for session in data["sessions"]:
            entries = session["entries"]
            for key, entry in entries.items():
                base = entries.get(f"{entry['snippet']}:{entry['baseline']}")
                row = by_key[(data["machine"]["id"], session["id"], key)]
                assert float(row["median_s"]) == entry["stats"]["median_s"]
                if base is not None and base is not entry and not entry.get("reference"):
                    point, low, _ = entry_speedup(base, entry)
                    assert float(row["speedup"]) == point
                    assert (row["speedup_low"] == "") == (low is None)
                    checked += 1
                if row["pooled_speedup"]:
                    pooled = pooling.speedup(data, f"{entry['snippet']}:{entry['baseline']}", key)
                    assert float(row["pooled_speedup"]) == pooled.point
                    assert float(row["new_session_low"]) == pooled.new_low
                    assert float(row["long_run_high"]) == pooled.mean_high
                    pooled_checked += 1
    assert checked > 50 and pooled_checked > 50


@pytest.mark.parametrize("text", ["=HYPERLINK(1)", "+1", "-2+3", "@SUM(A1)"])
def test_csv_cells_that_a_spreadsheet_would_run_are_defused(text):
    assert published_data.cell(text) == "'" + text
    assert published_data.cell("Linux x86-64") == "Linux x86-64"


def test_the_built_site_serves_the_data(built_site, root, committed_results):
    data_dir = built_site / published_data.SITE_DIR
    for path in sorted((root / "results").glob("*.json")):
        assert (data_dir / "results" / path.name).read_bytes() == path.read_bytes()
    assert (data_dir / "results.csv").read_text() == published_data.csv_text(committed_results)
    assert (data_dir / "results.schema.json").read_bytes() == (
        published_data.SCHEMA_PATH.read_bytes()
    )
    page = (built_site / "results" / "index.html").read_text()
    for data in committed_results:
        assert f'href="../data/results/{data["machine"]["id"]}.json"' in page
    assert 'href="../data/results.csv"' in page


def test_the_findings_csv_has_a_row_per_claim_evidence_machine_and_stack(committed_files):
    """Issue 34: the findings published as they decide the pages, linked from Results."""
    from scripts.core import claims
    from scripts.findings import claim_rows, results_views
    from scripts.findings.pairs import Findings

    views = results_views.stack_views(committed_files)
    found = claim_rows.rows(claims.load(), Findings(views), views)
    text = published_data.findings_csv_text(claims.load(), views)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == published_data.FINDINGS_COLUMNS and len(rows) == len(found)
    keyed = {
        (r["claim"], r["variant"], r["baseline"], r["machine_id"], r["stack"]): r for r in rows
    }
    for row in found:
        evidence = row.evidence
        line = keyed[
            (row.claim["id"], evidence["variant"], evidence["baseline"], row.machine, row.stack)
        ]
        assert line["outcome"] == row.outcome
        assert float(line["long_run_low"]) == row.found.low
        assert float(line["next_run_high"]) == row.found.band_high
    assert {r["stack"] for r in rows} == {v["stack"] for v in views}
    links = published_data.download_links(views)
    assert f"({published_data.SITE_DIR}/{published_data.FINDINGS_CSV_NAME})" in links
