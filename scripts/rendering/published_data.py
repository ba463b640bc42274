"""The data behind the pages, published with the site: every results file, one flat CSV of
all entries, and the JSON Schema of the results format (data/results.schema.json).

The site build (the mkdocs_hooks module) calls site_files(); the Results page links to
them through download_links(). Results files are untrusted, so CSV cells that a spreadsheet
would read as a formula are written with a leading apostrophe.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from scripts.core import claims, workload
from scripts.core import store as results
from scripts.core.catalog import ROOT, is_current
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings, session_speedup
from scripts.rendering import names

SCHEMA_PATH = ROOT / "data" / "results.schema.json"
SITE_DIR = "data"  # where the files go in the built site
CSV_NAME = "results.csv"
FINDINGS_CSV_NAME = "findings.csv"
FINDINGS_COLUMNS = (
    "claim", "variant", "baseline", "baseline_stat", "analogue", "machine_id", "machine",
    "stack", "point", "long_run_low", "long_run_high", "next_run_low", "next_run_high",
    "sessions", "sittings", "stratum", "at_least", "below", "outcome",
)  # fmt: skip
COLUMNS = (
    "machine_id", "machine", "snippet", "variant", "baseline", "reference", "size",
    "median_s", "q1_s", "q3_s", "min_s", "max_s", "rounds", "iqr_over_median", "noisy",
    "examples_per_s", "gflops_per_s", "session", "session_marked_noisy", "speedup",
    "speedup_low", "speedup_high", "pooled_speedup", "sessions_pooled", "new_session_low",
    "new_session_high", "long_run_low", "long_run_high", "schedule",
    "current_snippet", "date", "commit", "dirty", "python", "tensorflow", "keras",
    "tensorflow_metal",
)  # fmt: skip
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A value for the CSV; text a spreadsheet would run as a formula gets an apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return "" if value is None else value


def pooled_columns(data: dict, key: str, entry: dict, findings: Findings) -> dict:
    """The speed-up's finding over the machine's sittings (for entries of the latest version)."""
    latest = data["entries"].get(key)
    found = None
    if latest is not None and workload.same_workload(latest, entry):
        baseline_key = f"{entry['snippet']}:{entry['baseline']}"
        if baseline_key != key and not entry.get("reference"):
            found = findings.pair(data, baseline_key, key)
    if found is None:
        return dict.fromkeys(POOLED_COLUMNS)
    return dict(zip(POOLED_COLUMNS, (found.point, found.sessions, found.band_low, found.band_high,
                                     found.low, found.high), strict=True))  # fmt: skip


POOLED_COLUMNS = (
    "pooled_speedup", "sessions_pooled", "new_session_low", "new_session_high", "long_run_low",
    "long_run_high",
)  # fmt: skip


def rows(all_data: list[dict], root: Path = ROOT, findings: Findings | None = None) -> list[dict]:
    """One row per entry of every session of every results file: the session's own speed-up
    against its baseline as the results file stores it, and the finding over the machine's
    sittings."""
    findings = findings or Findings(all_data)
    found = []
    for data in all_data:
        machine = data["machine"]
        for session, key in [(s, k) for s in data["sessions"] for k in sorted(s["entries"])]:
            entry = session["entries"][key]
            stats = entry["stats"]
            point, low, high = session_speedup(session["entries"], entry)
            software = entry["software"]
            found.append(
                {
                    "machine_id": machine["id"], "machine": machine["description"],
                    "snippet": entry["snippet"], "variant": entry["variant"],
                    "baseline": entry["baseline"], "reference": bool(entry.get("reference")),
                    "size": entry["size"],
                    **{k: stats[k] for k in ("median_s", "q1_s", "q3_s", "min_s", "max_s")},
                    "rounds": stats["rounds"], "iqr_over_median": stats["iqr_over_median"],
                    "noisy": bool(stats.get("noisy")),
                    "examples_per_s": stats.get("throughput_per_s"),
                    "gflops_per_s": stats.get("gflops_per_s"),
                    "session": session["id"], "session_marked_noisy": session["marked_noisy"],
                    "speedup": point, "speedup_low": low, "speedup_high": high,
                    **pooled_columns(data, key, entry, findings),
                    "schedule": entry["method"].get("schedule", "one variant after another"),
                    "current_snippet": is_current(entry, root),
                    "date": entry["date"], "commit": entry["commit"], "dirty": entry["dirty"],
                    **{k: software.get(k) for k in ("python", "tensorflow", "keras")},
                    "tensorflow_metal": software.get("tensorflow_metal"),
                }
            )  # fmt: skip
    return found


def csv_text(all_data: list[dict], root: Path = ROOT, findings: Findings | None = None) -> str:
    return _csv(COLUMNS, rows(all_data, root, findings))


def _csv(columns: tuple[str, ...], found: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in found:
        writer.writerow({k: cell(v) for k, v in row.items()})
    return out.getvalue()


def findings_rows(
    claim_list: list[dict], stack_data: list[dict], root: Path = ROOT, findings=None
) -> list[dict]:
    """One row per claim evidence x machine x stack: the finding and its outcome."""
    findings = findings or Findings(stack_data)
    return [
        {
            "claim": row.claim["id"],
            "variant": row.evidence["variant"],
            "baseline": row.evidence["baseline"],
            "baseline_stat": row.evidence.get("baseline_stat", "median_s"),
            "analogue": row.analogue,
            "machine_id": row.machine,
            "machine": row.description,
            "stack": row.stack,
            "point": row.found.point,
            "long_run_low": row.found.low,
            "long_run_high": row.found.high,
            "next_run_low": row.found.band_low,
            "next_run_high": row.found.band_high,
            "sessions": row.found.sessions,
            "sittings": row.found.sittings,
            "stratum": row.found.stratum,
            "at_least": row.evidence.get("at_least"),
            "below": row.evidence.get("below"),
            "outcome": row.outcome,
        }  # fmt: skip
        for row in claim_rows.rows(
            sorted(claim_list, key=claims.claim_order), findings, stack_data, root
        )
    ]


def findings_csv_text(
    claim_list: list[dict], stack_data: list[dict], root: Path = ROOT, findings=None
) -> str:
    return _csv(FINDINGS_COLUMNS, findings_rows(claim_list, stack_data, root, findings))


def site_files(results_dir: Path = results.RESULTS_DIR) -> dict[str, bytes]:
    """{path in the site: bytes}: the results files as committed, the CSV and the schema."""
    paths = sorted(results_dir.glob("*.json"))
    files = {f"{SITE_DIR}/results/{p.name}": p.read_bytes() for p in paths}
    # Read as they are (make validate and the tests check them; the site build only
    # publishes), sorted by machine id as the pages are. The CSV is text, never markup.
    parsed = [json.loads(p.read_text()) for p in paths]
    all_data = results_views.unchecked_views(parsed)
    files[f"{SITE_DIR}/{CSV_NAME}"] = csv_text(all_data).encode()
    stack_data = results_views.stack_views(parsed)
    files[f"{SITE_DIR}/{FINDINGS_CSV_NAME}"] = findings_csv_text(claims.load(), stack_data).encode()
    files[f"{SITE_DIR}/{SCHEMA_PATH.name}"] = SCHEMA_PATH.read_bytes()
    return files


def download_links(all_data: list[dict]) -> str:
    """The Results page's list of downloads (descriptions escaped: they come from results)."""
    lines = [
        f"- [The findings: every claim's evidence on every machine and stack, with its "
        f"long-run interval, the band for a next run and the outcome (CSV)]"
        f"({SITE_DIR}/{FINDINGS_CSV_NAME})",
        f"- [All entries of every machine, one row each (CSV)]({SITE_DIR}/{CSV_NAME})",
        f"- [The results format as a JSON Schema]({SITE_DIR}/{SCHEMA_PATH.name}): check a "
        "file against it with any JSON Schema validator; `make validate` checks more "
        "(snippet versions, statistics that agree, stored intervals the timings give)",
    ]
    for data in all_data:
        machine = data["machine"]
        lines.append(
            f"- [{names.of(machine)}]"
            f"({SITE_DIR}/results/{machine['id']}.json) (`{machine['id']}.json`)"
        )
    return "\n".join(lines) + "\n"
