"""A child's report as results entries: each measured variant's entry (what ran, how it was
timed, its statistics) and this session's speed-up against the snippet's baseline."""

from __future__ import annotations

from scripts.core import provenance, stats
from scripts.measuring.messages import ChildReport


def make_entry(snippet, variant, report: ChildReport, method, software, git, date) -> dict:
    """One measured variant as a results entry: the snippet and its hash, the commit, the
    software, the method with its schedule, and the statistics."""
    outcome = report["variants"][variant]  # a variant measured again says how, else its report
    source = {key: outcome.get(key, report.get(key)) for key in ("schedule", "isolated")}
    return {
        "snippet": snippet.name,
        "snippet_path": snippet.relpath,
        "snippet_sha256": provenance.file_sha256(snippet.path),
        "variant": variant,
        "order": report["variant_order"].index(variant),
        "label": report["variant_labels"][variant],
        "baseline": report["baseline"],
        "reference": variant in report.get("references", ()),
        "size": method["size"],
        "date": date,
        "commit": git["commit"],
        "dirty": git["dirty"],
        "software": software,
        "method": {
            **{k: v for k, v in method.items() if k != "process_rounds"},
            **schedule_fields(source),
            "timer": "time.perf_counter",
            "process": "one child per variant"
            if source.get("isolated")
            else "one child per snippet",
        },
        "stats": outcome["stats"],
    }


def schedule_fields(report: ChildReport) -> dict:
    """The interleaving a report was measured with, as an entry's method records it."""
    schedule = report.get("schedule") or {}
    if not schedule.get("run_started"):
        return {}  # no schedule reported: nothing to pair its timings by
    fields = {
        "schedule": schedule.get("kind", "interleaved rounds"),
        "order_seed": schedule.get("order_seed", 0),
        "run_started": schedule.get("run_started"),
    }
    for key in ("process_rounds", "runs_per_process"):
        if key in schedule:
            fields[key] = schedule[key]
    return fields


def store_speedups(entries: dict[str, dict]) -> None:
    """Give every entry measured against its snippet's baseline this run's speed-up and the
    95% interval of this session's timings alone (stats.baseline_speedup), which
    scripts/results/validate.py checks against them. The tables show something else: the
    findings stage's speed-up pooled over sittings, with its long-run interval
    (scripts/findings/pairs.py)."""
    for entry in entries.values():
        point, low, high = stats.baseline_speedup(entries, entry) or (None, None, None)
        if low is not None:
            entry["speedup"] = {"vs": entry["baseline"], "point": point, "low": low, "high": high}
