"""Measure the snippets on this machine and record them in results/<machine-id>.json.

Each snippet runs in a child process (warm-up, repeated timed runs with results forced).
One run is one session of the machine's file: its entries go into that session, and every
earlier session is kept as it is. The file is rewritten atomically after each snippet, so an
interrupted run loses nothing measured.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from scripts.core import (
    catalog,
    claims,
    measured_stacks,
    provenance,
    software_stack,
    stack_probe,
)
from scripts.core import store as results
from scripts.measuring import (
    arguments,
    children,
    noise_check,
    results_entries,
    run_lock,
    run_summary,
    variant_processes,
)
from scripts.measuring.messages import ChildReport, Output

QUICK_RESULTS_DIR = catalog.ROOT / "build" / "quick-results"


def claim_variants(snippet: catalog.Snippet, claim_list: list[dict]) -> list[str]:
    """The variants this snippet's claim evidence compares (both sides), in no set order."""
    names = set()
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            for key in (evidence["variant"], evidence["baseline"]):
                entry_snippet, _, variant = key.partition(":")
                if entry_snippet == snippet.name:
                    names.add(variant)
    return sorted(names)


class Refused(Exception):
    """A run that cannot start; the message says why (empty when already said), exit status 2."""


@dataclass
class Plan:
    """What a run measures: the snippets, each one's skip reason on the stack (SKIP_ON_STACKS),
    and for --quick only the variants the claims compare."""

    selected: list[catalog.Snippet]
    skipped: dict[str, str | None]
    quick_choice: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class Run:
    """A started run: where it writes, on which machine and stack, its session and method."""

    args: argparse.Namespace
    method: dict
    software: dict
    machine: dict
    git: dict
    path: Path
    session: dict
    conditions: dict
    lock: object  # the machine-wide lock, held open until the run ends
    failures: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)


def plan_run(args: argparse.Namespace) -> Plan:
    """The snippets to measure; a snippet that cannot run on this stack is skipped by name."""
    try:
        selected = catalog.select(args.only, args.snippets_dir)
        skipped = {s.name: catalog.skip_reason(s, args.stack.id) for s in selected}
    except catalog.SnippetError as error:
        raise Refused(f"error: {error}") from error
    plan = Plan(selected, skipped)
    if args.quick and args.snippets_dir.resolve() == catalog.SNIPPETS_DIR.resolve():
        claim_list = claims.load()  # quick: only the variants the claims compare
        plan.quick_choice = {s.name: claim_variants(s, claim_list) for s in selected}
        plan.selected = [s for s in selected if plan.quick_choice[s.name]]
    if args.quick and not args.output:
        args.no_output = True
    return plan


def start_run(args: argparse.Namespace) -> Run:
    """Probe the stack, take the machine, and open this run's session in its results file."""
    try:
        software = stack_probe.probe(args.stack)  # what the stack's environment really loads
    except measured_stacks.StackError as error:
        raise Refused(f"error: {error}\nNothing was measured.") from error
    lock = run_lock.hold_run_lock()
    if lock is None:
        raise Refused("")  # hold_run_lock said why
    results_dir = args.results_dir or (QUICK_RESULTS_DIR if args.quick else results.RESULTS_DIR)
    machine, git = provenance.collect_machine(), provenance.git_state(catalog.ROOT)
    publishing = results_dir.resolve() == results.RESULTS_DIR.resolve()
    if publishing and git["dirty"] and not args.allow_dirty:
        raise Refused(DIRTY)
    # The id is decided against results/, so a scratch or reproducibility run of this machine
    # writes the file name its published results have (a second CPU of one model gets a suffix).
    machine["id"] = provenance.distinct_id(machine, results.RESULTS_DIR)
    if not publishing:  # and never over another machine's file in the folder written to
        machine["id"] = provenance.distinct_id(machine, results_dir)
    path = results_dir / f"{machine['id']}.json"
    try:
        existing = results.load_or_new(path, machine)
    except results.ResultsError as error:
        raise Refused(f"error: {error}\nFix or move that file; nothing was measured.") from error
    provenance.set_devices(machine, existing["machine"].get("tf_devices") or [])
    session = {
        "id": provenance.utc_now(precise=True),
        "stack": software_stack.name(software),
        "origin": "make measure --quick" if args.quick else "make measure",
        "boot": provenance.boot_tag(),
    }
    conditions = noise_check.snapshot()
    for warning in noise_check.warnings(conditions):
        print(f"warning: {warning}", file=sys.stderr)
    return Run(
        args, arguments.method_for(args), software, machine, git, path, session, conditions, lock
    )


DIRTY = (
    "error: the snippets or scripts have uncommitted changes, so results/ would record "
    "numbers that no commit can reproduce. Commit first (README: write, lint, test, "
    "commit, measure), or measure into a scratch folder with --results-dir, or pass "
    "--allow-dirty (entries are then marked on the pages). Nothing was measured."
)


def entries_of(run: Run, snippet: catalog.Snippet, report: ChildReport, chosen, date) -> dict:
    """The report's measured variants as results entries, each row printed; failures noted."""
    entries: dict[str, dict] = {}
    for variant in [v for v in report.get("variant_order", []) if not chosen or v in chosen]:
        outcome = report["variants"].get(variant, {"error": "not measured (child stopped)"})
        key = f"{snippet.name}:{variant}"
        if "error" in outcome:
            run.failures.append(f"{key}: {outcome['error']}")
            continue
        entries[key] = results_entries.make_entry(
            snippet, variant, report, run.method, run.software, run.git, date
        )
        entries[key]["conditions"] = run.conditions
        run.summary.append(run_summary.format_row(key, outcome["stats"]))
        print("    " + run.summary[-1], flush=True)
    results_entries.store_speedups(entries)
    return entries


def output_of(run: Run, snippet: catalog.Snippet, report: ChildReport, date) -> Output | None:
    """The snippet's own printed output, unless the run leaves it out or the snippet failed."""
    if report.get("error"):
        run.failures.append(report["error"])
        return None
    if run.args.no_output:
        return None
    output = children.capture_output(snippet, run.method["size"], run.args.timeout, run.args.stack)
    if "error" in output:
        run.failures.append(f"{snippet.relpath} (run directly): {output['error']}")
        return None
    output.update(snippet_sha256=provenance.file_sha256(snippet.path), date=date)
    return output


def measure_into_file(run: Run, snippet: catalog.Snippet, chosen: list[str] | None) -> bool:
    """Measure one snippet and add it to the run's session; False when writing failed."""
    report = variant_processes.measure_snippet(snippet, run.method, run.args, chosen)
    if report.get("devices"):  # a Mac's description says whether the Metal GPU was used
        provenance.set_devices(run.machine, report["devices"])
    date = provenance.utc_now()
    entries = entries_of(run, snippet, report, chosen, date)
    output = output_of(run, snippet, report, date)
    if not (entries or output):
        return True
    try:
        results.merge_snippet(run.path, run.machine, run.session, entries,
                              (snippet.name, output) if output else None)  # fmt: skip
    except results.ResultsError as error:
        run.failures.append(f"{error}; measuring stopped, earlier snippets are kept")
        return False
    return True


def measure_all(run: Run, plan: Plan) -> None:
    """Every selected snippet in turn, skipped ones named; stops only if writing fails."""
    stack = run.args.stack
    print(
        f"Measuring {len(plan.selected)} snippet(s) on {run.machine['description']}, stack "
        f"{stack.id} (TensorFlow {run.software['tensorflow']}, {run.software['keras_package']} "
        f"{run.software['keras']}) -> {run.path}"
    )
    for number, snippet in enumerate(plan.selected, 1):
        print(f"[{number}/{len(plan.selected)}] {snippet.relpath}", flush=True)
        if plan.skipped[snippet.name]:
            print(f"    skipped on stack {stack.id}: {plan.skipped[snippet.name]}", flush=True)
        elif not measure_into_file(run, snippet, plan.quick_choice.get(snippet.name)):
            break


def report_run(run: Run, plan: Plan, minutes: float) -> int:
    """The summary, the session's noise, a quick run's comparison, the failures; exit status."""
    print(f"\nSummary ({minutes:.1f} min, medians of timed runs; NOISY = IQR/median > 10%):")
    print("\n".join(run.summary) or "  (nothing measured)")
    for snippet in [s for s in plan.selected if plan.skipped[s.name]]:
        print(
            f"  {snippet.name}: skipped on stack {run.args.stack.id}: {plan.skipped[snippet.name]}"
        )
    if run.path.exists():
        print(run_summary.noise_words(results.read(run.path), run.session["id"]))
    if run.args.quick and plan.quick_choice and run.path.exists():
        print("\n" + run_summary.versus_the_guide_on(run.args.stack.id, run.path))
    if not run.failures:
        return 0
    print(f"\n{len(run.failures)} failure(s); the other results were kept:", file=sys.stderr)
    for failure in run.failures:
        print(f"  - {failure}", file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    """Plan the run, start it, measure every snippet into the session, then report."""
    args = arguments.parse_args(argv, description=__doc__)
    try:
        plan = plan_run(args)
        if args.list:
            print("\n".join(s.name for s in plan.selected))
            return 0
        run = start_run(args)
    except Refused as refused:
        if str(refused):
            print(refused, file=sys.stderr)
        return 2
    started = time.perf_counter()
    measure_all(run, plan)
    return report_run(run, plan, (time.perf_counter() - started) / 60)


if __name__ == "__main__":
    sys.exit(main())
