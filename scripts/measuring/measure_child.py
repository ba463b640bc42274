"""Measure one snippet's variants in this process; the harness runs one child per snippet.

The variants are timed in interleaved rounds: every variant's workload is built and warmed
up first, then each round runs every variant once, in an order shuffled per round (seeded,
and recorded), so a drift of the machine's speed during the run lands on all variants alike.
A child keeps crashes and thread settings of one snippet away from the others. Once the
minimum rounds are done it writes what it has to --out after every round, so a crash loses
only the round at hand; a variant that fails is reported and the others go on.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

from scripts.core import catalog, provenance, stats
from scripts.core import store as results
from scripts.core.rounds import first_calls, interleaved_rounds
from scripts.measuring.messages import ChildReport


def tf_devices() -> list[str]:
    """The physical devices TensorFlow sees (none listed if the snippet does not use TensorFlow)."""
    if "tensorflow" not in sys.modules:
        return []
    import tensorflow as tf

    return provenance.tf_device_names(tf)


def summary_of(module, variant: str, args, times, positions, examples, first) -> dict:
    """One variant's statistics, with its work rate and memory where known."""
    summary = stats.summarize(times, examples)
    summary["round_positions"] = list(positions)
    summary["first_call_s"] = first
    summary["peak_rss_bytes"] = provenance.peak_rss_bytes()
    flops = module.flops(variant, args.size) if hasattr(module, "flops") else None
    if flops:
        stats.add_flops(summary, flops)
    return {"stats": summary}


def failure(error: BaseException) -> dict:
    return {
        "error": f"{type(error).__name__}: {error}",
        "traceback": traceback.format_exc(limit=5),
    }


def main(argv: list[str] | None = None) -> int:
    """Read a ChildRequest from the command line; write a ChildReport to --out
    (scripts/measuring/messages.py)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--snippet", required=True, help="e.g. input_pipeline/feeding")
    parser.add_argument("--size", default="full")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-rounds", type=int, default=7)
    parser.add_argument("--max-rounds", type=int, default=30)
    parser.add_argument(
        "--budget", type=float, default=8.0, help="seconds of timed runs per variant"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the order of each round")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--snippets-dir", type=Path, default=catalog.SNIPPETS_DIR)
    parser.add_argument("--variant", action="append", help="only these variants (repeatable)")
    args = parser.parse_args(argv)

    snippet = catalog.Snippet(args.snippet, args.snippets_dir / f"{args.snippet}.py")
    report: ChildReport = {"snippet": args.snippet, "variants": {}, "devices": None, "error": None}
    try:
        module = catalog.load(snippet)
    except catalog.SnippetError as error:
        report["error"] = str(error)
        results.write_json_atomic(args.out, report)
        return 2
    report["devices"] = tf_devices()
    report["variant_labels"] = dict(module.VARIANTS)
    report["variant_order"] = list(module.VARIANTS)
    report["baseline"] = module.BASELINE
    report["references"] = list(getattr(module, "REFERENCE_VARIANTS", ()))
    report["schedule"] = {"order_seed": args.seed, "run_started": provenance.utc_now()}
    chosen = [v for v in module.VARIANTS if not args.variant or v in args.variant]
    results.write_json_atomic(args.out, report)  # a crash from here on still names the variants
    runs, examples, first = {}, {}, {}
    for index, variant in enumerate(chosen, 1):
        print(f"  [{index}/{len(chosen)}] {args.snippet}:{variant}: warm-up", file=sys.stderr)
        try:
            runs[variant], examples[variant] = module.make_workload(variant, args.size)
            first[variant] = first_calls(runs[variant], args.warmup)
        except Exception as error:  # a failing variant is reported; the others still run
            runs.pop(variant, None)
            report["variants"][variant] = failure(error)
    results.write_json_atomic(args.out, report)

    def record(times: dict, positions: dict) -> None:
        rounds = len(next(iter(times.values()), []))
        print(f"  {args.snippet}: round {rounds} done ({len(times)} variant(s))", file=sys.stderr)
        if rounds < args.min_rounds:
            return
        for name in times:
            report["variants"][name] = summary_of(
                module, name, args, times[name], positions[name], examples[name], first[name]
            )
        results.write_json_atomic(args.out, report)

    def drop(name: str, error: Exception) -> None:
        report["variants"][name] = failure(error)
        results.write_json_atomic(args.out, report)

    interleaved_rounds(runs, args.min_rounds, args.max_rounds, args.budget, args.seed, record, drop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
