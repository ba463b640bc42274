"""Every run of every planted case, appended, never replaced (issue 37's re-run rule).

docs/_generated/tune/truth_runs.json holds {"cases": {model file: [run, ...]}}. A run keeps
its provenance (date, machine, software, commit, load at its start and end), its sitting
(scripts/core/sittings.py: the recorded boot, else the UTC date), its truth as per-round
[as given, arm] times per sample, and tune's rows for the case's experiment.

The runs of 2026-11-27 come from the committed run docs/_generated/tune/ground_truth.json
(`converted`): it recorded no boot, so their sitting is their UTC date, by the project's rule;
its per_sample_s lists were stored in process-round order, one time per process, so round i
pairs as_given[i] with arm[i]. A replaced run there (its "earlier" list) is a run here too.
"""

from __future__ import annotations

import math
from pathlib import Path

from benchmarks.tune import committed_run
from scripts.core import data_formats, json_files, project_files, provenance, sittings
from scripts.tuning import runner

RUNS_JSON = project_files.ROOT / "docs" / "_generated" / "tune" / "truth_runs.json"
PROVENANCE = ("tool", "date", "machine", "software", "git", "budget_s",
              "load_average_start", "load_average_end")  # fmt: skip


def sitting_now(date: str) -> tuple[str, str]:
    """(boot tag, sitting) for a run measured now, recorded as sessions are."""
    boot = provenance.boot_tag()
    return boot, sittings.sitting_of({"boot": boot, "id": date})


def converted(found: dict) -> dict:
    """The committed run of 2026-11-27 as runs: each case's runs, earlier ones first."""
    cases: dict[str, list[dict]] = {}
    for entry in found["cases"]:
        file = Path(entry["file"]).name
        for measured in [*entry.get("earlier", []), entry]:
            own = measured.get("added") or {key: found[key] for key in PROVENANCE}
            base = measured["truth"]["per_sample_s"]["as_given"]
            arm = measured["truth"]["per_sample_s"]["arm"]
            if len(base) != len(arm):
                raise ValueError(f"{file}: per_sample_s lists of unequal length")
            design = runner.DESIGNS[0] if entry["experiment"] == "input" else "fresh"
            tune = next((m for m in measured["tune"] if m["design"] == design), None)
            cases.setdefault(file, []).append(
                {
                    **{key: own[key] for key in PROVENANCE},
                    "boot": None,
                    "sitting": sittings.sitting_of({"id": own["date"]}),
                    "steps": measured["steps"],
                    "runs_per_process": found["truth_method"]["runs_per_process"],
                    "source": "docs/_generated/tune/ground_truth.json",
                    "truth": {"rounds": [[b, a] for b, a in zip(base, arm, strict=True)]},
                    "tune": tune,
                }
            )
    return {"cases": cases}


def appended(found: dict, file: str, run: dict) -> dict:
    """found with run added at the end of file's runs; no earlier run is touched."""
    cases = {key: list(runs) for key, runs in found["cases"].items()}
    cases.setdefault(file, []).append(run)
    return {**found, "cases": cases}


def append_and_write(path: Path, file: str, run: dict) -> dict:
    """Read the file again, append the run and replace the file atomically, once the whole
    holds its format: an interrupted command, or a run that breaks the format, leaves every
    run written before it."""
    found = load(path) if path.exists() else {"cases": {}}
    found = appended(found, file, run)
    data_formats.check(found, path, "tune_truth_runs")  # a run that breaks it never lands
    check_run(f"{path}: {file}[{len(found['cases'][file]) - 1}]", run)
    json_files.write_json_atomic(path, found)
    return found


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def check_run(where: str, run: dict) -> None:
    """Raise ValueError naming where unless the run's numbers are finite and its sitting is its
    boot's or its date's: what its schema cannot say."""
    committed_run.check(Path(where), run, [], [])
    if not all(_number(t) for pair in run["truth"]["rounds"] for t in pair):
        raise ValueError(f"{where}: truth.rounds: a time is not a finite number")
    share = run.get("other_cpu_share")
    if share is not None and not _number(share):
        raise ValueError(f"{where}: other_cpu_share is not a finite number")
    boot = run.get("boot")
    if run["sitting"] != sittings.sitting_of({"boot": boot, "id": run["date"]}):
        raise ValueError(f"{where}: sitting {run['sitting']!r} is not its boot's or its date's")
    if run.get("tune") is not None:
        check_tune(where, run["tune"])


def check_tune(where: str, tune: dict) -> None:
    """Raise ValueError naming where unless a run's tune row has finite numbers and a design
    tune has (runner.DESIGNS)."""
    if tune.get("seconds") is not None and not _number(tune["seconds"]):
        raise ValueError(f"{where}: tune.seconds is not a finite number")
    if tune["design"] not in runner.DESIGNS:
        raise ValueError(f"{where}: unknown design {tune['design']!r}")
    for row in tune["rows"]:
        keys = [k for k in ("point", "low", "high", "round_low", "round_high", "new_low",
                            "new_high") if row.get(k) is not None]  # fmt: skip
        if not all(_number(row[k]) for k in keys):
            raise ValueError(f"{where}: {row['arm']}: a number is not a finite number")


def load(path: Path = RUNS_JSON) -> dict:
    """The runs, held to their format (data/tune_truth_runs.schema.json), then each run's
    numbers and sitting checked."""
    found = data_formats.read(path, "tune_truth_runs")
    for file, runs in found["cases"].items():
        for number, run in enumerate(runs):
            check_run(f"{path}: {file}[{number}]", run)
    return found
