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

from scripts.core import plain_text, pooling, workload
from scripts.core import store as results
from scripts.core.catalog import ROOT, is_current
from scripts.core.stats import baseline_speedup

SCHEMA_PATH = ROOT / "data" / "results.schema.json"
SITE_DIR = "data"  # where the files go in the built site
CSV_NAME = "results.csv"
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


def pooled_columns(data: dict, key: str, entry: dict) -> dict:
    """The speed-up pooled over the machine's sessions (for entries of the latest version)."""
    latest = data["entries"].get(key)
    found = None
    if latest is not None and workload.same_workload(latest, entry):
        baseline_key = f"{entry['snippet']}:{entry['baseline']}"
        if baseline_key != key and not entry.get("reference"):
            found = pooling.speedup(data, baseline_key, key)
    if found is None:
        return dict.fromkeys(POOLED_COLUMNS)
    return dict(zip(POOLED_COLUMNS, (found.point, found.sessions, found.new_low, found.new_high,
                                     found.mean_low, found.mean_high), strict=True))  # fmt: skip


POOLED_COLUMNS = (
    "pooled_speedup", "sessions_pooled", "new_session_low", "new_session_high", "long_run_low",
    "long_run_high",
)  # fmt: skip


def rows(all_data: list[dict], root: Path = ROOT) -> list[dict]:
    """One row per entry of every session of every results file: the session's own speed-up
    against its baseline, and the speed-up pooled over the machine's sessions."""
    found = []
    for data in all_data:
        machine = data["machine"]
        for session, key in [(s, k) for s in data["sessions"] for k in sorted(s["entries"])]:
            entry = session["entries"][key]
            stats = entry["stats"]
            point, low, high = baseline_speedup(session["entries"], entry) or (None, None, None)
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
                    **pooled_columns(data, key, entry),
                    "schedule": entry["method"].get("schedule", "one variant after another"),
                    "current_snippet": is_current(entry, root),
                    "date": entry["date"], "commit": entry["commit"], "dirty": entry["dirty"],
                    **{k: software.get(k) for k in ("python", "tensorflow", "keras")},
                    "tensorflow_metal": software.get("tensorflow_metal"),
                }
            )  # fmt: skip
    return found


def csv_text(all_data: list[dict], root: Path = ROOT) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows(all_data, root):
        writer.writerow({k: cell(v) for k, v in row.items()})
    return out.getvalue()


def site_files(results_dir: Path = results.RESULTS_DIR) -> dict[str, bytes]:
    """{path in the site: bytes}: the results files as committed, the CSV and the schema."""
    paths = sorted(results_dir.glob("*.json"))
    files = {f"{SITE_DIR}/results/{p.name}": p.read_bytes() for p in paths}
    # Read as they are (make validate and the tests check them; the site build only
    # publishes), sorted by machine id as the pages are. The CSV is text, never markup.
    all_data = results.unchecked_views(json.loads(p.read_text()) for p in paths)
    files[f"{SITE_DIR}/{CSV_NAME}"] = csv_text(all_data).encode()
    files[f"{SITE_DIR}/{SCHEMA_PATH.name}"] = SCHEMA_PATH.read_bytes()
    return files


def download_links(all_data: list[dict]) -> str:
    """The Results page's list of downloads (descriptions escaped: they come from results)."""
    lines = [
        f"- [All entries of every machine, one row each (CSV)]({SITE_DIR}/{CSV_NAME})",
        f"- [The results format as a JSON Schema]({SITE_DIR}/{SCHEMA_PATH.name}): check a "
        "file against it with any JSON Schema validator; `make validate` checks more "
        "(snippet versions, statistics that agree, stored intervals the timings give)",
    ]
    for data in all_data:
        machine = data["machine"]
        lines.append(
            f"- [{plain_text.escape(machine['description'])}]"
            f"({SITE_DIR}/results/{machine['id']}.json) (`{machine['id']}.json`)"
        )
    return "\n".join(lines) + "\n"
