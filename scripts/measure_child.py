"""Measure one snippet's variants in this process; `scripts.measure` runs one child per snippet.

A child keeps crashes and thread settings of one snippet away from the others. It writes what
it has measured so far to --out after every variant, so a crash loses only the variant at hand.
"""

from __future__ import annotations

import argparse
import platform
import resource
import sys
import time
import traceback
from pathlib import Path

from scripts import catalog, results, stats


def force(value: object) -> None:
    """Wait for a result to exist: asynchronous device work must finish inside the timing."""
    if isinstance(value, (list, tuple)):
        for item in value:
            force(item)
    elif hasattr(value, "numpy"):
        value.numpy()


def time_workload(run, warmup: int, min_rounds: int, max_rounds: int, budget_s: float):
    """Warm up, then time whole runs until min_rounds are done and the budget is spent."""
    first_call_s = None
    for _ in range(warmup):
        start = time.perf_counter()
        force(run())
        if first_call_s is None:
            first_call_s = time.perf_counter() - start
    times: list[float] = []
    while len(times) < min_rounds or (len(times) < max_rounds and sum(times) < budget_s):
        start = time.perf_counter()
        force(run())
        times.append(time.perf_counter() - start)
    return times, first_call_s


def peak_rss_bytes() -> int:
    """This process's peak resident memory so far (the kernel's own high-water mark)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024  # Linux reports KiB


def tf_devices() -> list[str]:
    """The physical devices TensorFlow sees (none listed if the snippet does not use TensorFlow)."""
    if "tensorflow" not in sys.modules:
        return []
    import tensorflow as tf

    return [
        f"{d.device_type}:{d.name.rsplit(':', 1)[-1]}" for d in tf.config.list_physical_devices()
    ]


def measure_variant(module, variant: str, args: argparse.Namespace) -> dict:
    """Time one variant and summarise it, with its work rate and memory where known."""
    run, examples = module.make_workload(variant, args.size)
    times, first = time_workload(run, args.warmup, args.min_rounds, args.max_rounds, args.budget)
    summary = stats.summarize(times, examples)
    summary["first_call_s"] = first
    summary["peak_rss_bytes"] = peak_rss_bytes()
    flops = module.flops(variant, args.size) if hasattr(module, "flops") else None
    if flops:
        summary["flops_per_run"] = float(flops)
        summary["gflops_per_s"] = flops / summary["median_s"] / 1e9
    return {"stats": summary}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--snippet", required=True, help="e.g. input_pipeline/feeding")
    parser.add_argument("--size", default="full")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-rounds", type=int, default=7)
    parser.add_argument("--max-rounds", type=int, default=30)
    parser.add_argument("--budget", type=float, default=8.0, help="seconds of timed runs")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--snippets-dir", type=Path, default=catalog.SNIPPETS_DIR)
    parser.add_argument("--variant", action="append", help="only these variants (repeatable)")
    args = parser.parse_args(argv)

    snippet = catalog.Snippet(args.snippet, args.snippets_dir / f"{args.snippet}.py")
    report: dict = {"snippet": args.snippet, "variants": {}, "devices": None, "error": None}
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
    chosen = [v for v in module.VARIANTS if not args.variant or v in args.variant]
    for index, variant in enumerate(chosen, 1):
        print(f"  [{index}/{len(chosen)}] {args.snippet}:{variant} ...", file=sys.stderr)
        try:
            report["variants"][variant] = measure_variant(module, variant, args)
        except Exception as error:  # a failing variant is reported; the others still run
            report["variants"][variant] = {
                "error": f"{type(error).__name__}: {error}",
                "traceback": traceback.format_exc(limit=5),
            }
        results.write_json_atomic(args.out, report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
