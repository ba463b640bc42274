"""Which processes measure a snippet's variants: one child, interleaving them in rounds; or,
for ISOLATE_VARIANTS and after a crash, fresh processes per variant in process rounds."""

from __future__ import annotations

import argparse
import statistics
import sys

from scripts.core import catalog, provenance, stats
from scripts.core.rounds import process_rounds
from scripts.measuring import children
from scripts.measuring.messages import ChildReport


def measure_snippet(
    snippet: catalog.Snippet,
    method: dict,
    args: argparse.Namespace,
    variants: list[str] | None = None,
) -> ChildReport:
    """One child for the snippet (its variants interleaved in rounds), or, when it sets
    ISOLATE_VARIANTS = True, alternating processes; only the named variants when given
    (measure-quick: the claims' pairs).

    Isolation is for settings that only take effect before TensorFlow's runtime starts
    (thread pools, visible devices): each variant then gets fresh processes.
    """
    found = catalog.constants(snippet.path)
    if not found.get("ISOLATE_VARIANTS") or not isinstance(found.get("VARIANTS"), dict):
        report = children.run_child(
            snippet, method, args.timeout, args.snippets_dir, variants, args.stack
        )
        report["schedule"] = {**report.get("schedule", {}), "kind": "interleaved rounds"}
        return rerun_after_crash(snippet, report, method, args, variants)
    chosen = [v for v in found["VARIANTS"] if not variants or v in variants]
    return alternating_processes(snippet, chosen, method, args)


def rerun_after_crash(
    snippet: catalog.Snippet,
    report: ChildReport,
    method: dict,
    args: argparse.Namespace,
    variants: list[str] | None,
) -> ChildReport:
    """When the child died before it had measured its variants (one of them took the
    process down), measure those again, each in its own processes, so the one that crashes
    fails alone and the others are still measured."""
    order = report.get("variant_order")
    if not report.get("error") or not order:
        return report  # finished, or the snippet did not even load
    missing = [v for v in order if (not variants or v in variants) and v not in report["variants"]]
    if not missing:
        return report
    print(f"  {report['error']}; measuring {', '.join(missing)} one process each", file=sys.stderr)
    again = alternating_processes(snippet, missing, method, args)
    for variant, outcome in again["variants"].items():  # each says how it was measured
        report["variants"][variant] = {**outcome, "schedule": again["schedule"], "isolated": True}
    report["error"] = None
    return report


def alternating_processes(
    snippet: catalog.Snippet, chosen: list[str], method: dict, args: argparse.Namespace
) -> ChildReport:
    """Each variant in its own processes, in process rounds: one process per variant per
    round, the order shuffled per round (seeded), each process warming up and then timing
    its share of the runs. A variant's rounds are its timed runs in process-round order.
    """
    rounds = method.get("process_rounds", 1)
    # Every variant gets the same number of runs per process (the full run's round cap split
    # over the process rounds), so their timings pair round by round.
    per_process = max(1, -(-method["max_rounds"] // rounds))
    child_method = {**method, "min_rounds": per_process, "max_rounds": per_process}
    merged: ChildReport = {
        "variants": {},
        "error": None,
        "isolated": True,
        "schedule": {
            "kind": "alternating processes",
            "order_seed": method.get("order_seed", 0),
            "run_started": provenance.utc_now(),
            "process_rounds": rounds,
            "runs_per_process": per_process,
        },
    }
    parts: dict[str, list[dict]] = {v: [] for v in chosen}

    def announce(number: int, order: list[str]) -> None:
        print(f"  process round {number + 1}/{rounds}: {', '.join(order)}", file=sys.stderr)

    def run_one(variant: str, position: int) -> bool:
        report = children.run_child(
            snippet, child_method, args.timeout, args.snippets_dir, [variant], args.stack
        )
        for key in ("devices", "variant_labels", "variant_order", "baseline", "references"):
            if key in report:
                merged[key] = report[key]
        outcome = report.get("variants", {}).get(variant)
        if outcome is None:
            outcome = {"error": report.get("error") or "not measured (child stopped)"}
        if "error" in outcome:  # it drops out of the rounds that follow
            merged["variants"][variant] = outcome
            parts.pop(variant, None)
            return False
        parts[variant].append({**outcome["stats"], "position": position})
        return True

    process_rounds(chosen, rounds, method.get("order_seed", 0), run_one, announce)
    for variant, pieces in parts.items():
        if pieces:
            merged["variants"][variant] = {"stats": joined_stats(pieces)}
    if "variant_order" not in merged:  # no child could even load the snippet
        merged["error"] = next(iter(merged["variants"].values()), {}).get("error")
    return merged


def joined_stats(pieces: list[dict]) -> dict:
    """One variant's statistics from the processes it ran in (process-round order)."""
    times = [t for piece in pieces for t in piece["times_s"]]
    positions = [piece["position"] for piece in pieces for _ in piece["times_s"]]
    first = pieces[0]
    joined = stats.summarize(times, first.get("examples_per_run"))
    joined["round_positions"] = positions
    calls = [p["first_call_s"] for p in pieces if p.get("first_call_s") is not None]
    if calls:  # a first call per fresh process; the median of them stands for the variant
        joined["first_calls_s"] = calls
        joined["first_call_s"] = statistics.median(calls)
    peaks = [p["peak_rss_bytes"] for p in pieces if p.get("peak_rss_bytes")]
    if peaks:
        joined["peak_rss_bytes"] = max(peaks)
    if first.get("flops_per_run"):
        stats.add_flops(joined, first["flops_per_run"])
    return joined
