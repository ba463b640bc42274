"""Contribute this machine's results: a noise check, then measure, validate, render and test,
then the files to commit and a pull-request description to paste.

Usage: python -m scripts.contribute [--dry-run]      (make contribute, ARGS="--dry-run")
       python -m scripts.contribute --describe FILE [--note TEXT ...]
       python -m scripts.contribute --results-path   (the file make measure writes here)
The noise check only warns; it never refuses. --describe prints the description for a
results file that is already measured (the hosted Mac workflow uses it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from scripts.core import claims, measured_stacks, outcomes, provenance
from scripts.core import store as results
from scripts.core.catalog import ROOT
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings
from scripts.measuring import noise_check
from scripts.rendering import escaping, names, tables

COMMIT_PATHS = ("results", "docs/_generated")


# (what, command, stop if it fails): a failed measure keeps everything else it measured,
# and failing tests are reported in the description; an invalid file is never proposed.
def steps(stack: str = measured_stacks.DEFAULT) -> tuple:
    """The steps, measuring on the given stack (data/measured_stacks.yml)."""
    return (
        (f"Measure every snippet on this machine, stack {stack} (an hour or more)",
         ["make", "measure", f"STACK={stack}"], False),
        ("Validate the results files", ["make", "validate"], True),
        ("Render tables, charts and verdicts into docs/_generated/", ["make", "render"], True),
        ("Run the tests", ["make", "test"], False),
    )  # fmt: skip


def noise_warnings(
    probe: provenance.Probe | None = None,
    loadavg: Callable[[], tuple[float, float, float]] = os.getloadavg,
) -> list[str]:
    """What on this machine would slow or scatter the timings; never a reason to refuse."""
    return noise_check.warnings(noise_check.snapshot(probe, loadavg))


def this_machine_results(results_dir: Path = results.RESULTS_DIR) -> Path:
    """The file `make measure` writes on this machine (the same id logic as scripts.measure)."""
    machine = provenance.collect_machine()
    return results_dir / f"{provenance.distinct_id(machine, results_dir)}.json"


def claim_findings(data: dict, claim_list: list[dict], root: Path = ROOT) -> tuple[list, list]:
    """(contradicted, not measured): evidence whose range this machine's long-run interval lies
    outside, and evidence this machine has no current result for (untested here)."""
    contradicted, not_measured = [], []
    findings = Findings([data])
    for claim in sorted(claim_list, key=claims.claim_order):
        for evidence in claim.get("evidence", []):
            variant, baseline = (claims.short_name(evidence[k]) for k in ("variant", "baseline"))
            what = names.compared(evidence, variant, baseline)
            name = f"{claim['id']} ({claim['verdict']})"
            if evidence.get("analogue"):
                name += ", analogue evidence"
            found = claim_rows.evidence_finding(findings, data, evidence, root)
            if found is None:
                not_measured.append(f"{name}: {what}")
            elif found.outcome(evidence) == outcomes.CONTRADICTED:
                contradicted.append(
                    f"{name}: {what} is {found.point:.2f}× ({found.low:.2f}–{found.high:.2f}) "
                    f"on this machine; the verdict needs {claims.expectation_words(evidence)}"
                )
    return contradicted, not_measured


def guide_view(path: Path) -> dict:
    """A results file as the pages would read it, widened by the guide's between-session
    spread (results_views.view, pooling)."""
    guide = results_views.load_all()
    return results_views.view(results.read(path), guide[0]["spread"] if guide else None)


def machine_rows(data: dict) -> list[tuple[str, str]]:
    """The machine summary as (field, value) rows, values escaped (the file is untrusted)."""
    machine, entries = data["machine"], list(data["entries"].values())
    rows = _about_the_machine(machine, entries) + _about_the_entries(data, entries)
    rows.append(("Results file", f"`results/{machine['id']}.json`"))
    return rows


def _about_the_machine(machine: dict, entries: list[dict]) -> list[tuple[str, str]]:
    text = escaping.escape
    rows = [("Machine", text(machine["description"])), ("OS", text(machine["os_version"]))]
    rows.append(("TensorFlow devices", text(", ".join(machine.get("tf_devices") or []) or "?")))
    if entries:
        rows.append(("Software", text(tables.software_words(entries[0]["software"]))))
    if machine.get("power_source") is not None:
        rows.append(("Power", text(machine["power_source"])))
    if machine.get("low_power_mode") is not None:
        rows.append(("Low Power Mode", "on" if machine["low_power_mode"] else "off"))
    if machine.get("hosted_runner"):
        rows.append(("Hosted runner", text(machine["hosted_runner"])))
    return rows


def _about_the_entries(data: dict, entries: list[dict]) -> list[tuple[str, str]]:
    text = escaping.escape
    sessions = data.get("sessions", [])
    marked = sum(1 for s in sessions if s["marked_noisy"])
    rows = [("Sessions", f"{len(sessions)}" + (f", {marked} marked noisy" if marked else ""))]
    snippets = {e["snippet"] for e in entries}
    noisy = sum(1 for e in entries if e["stats"].get("noisy"))
    rows.append(
        ("Entries", f"{len(entries)} variants of {len(snippets)} snippets, {noisy} marked noisy")
    )
    dates = sorted({e["date"][:10] for e in entries})
    if dates:
        rows.append(
            ("Measured", text(dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}"))
        )
    commits = sorted(
        {(e["commit"] or "unknown")[:7] + (" (uncommitted changes)" if e["dirty"] else "")
         for e in entries}
    )  # fmt: skip
    if commits:
        rows.append(("Commit", text(", ".join(commits))))
    return rows


def pr_description(
    data: dict, claim_list: list[dict], root: Path = ROOT, notes: list[str] | tuple = ()
) -> str:
    """The pull request's description: the machine, and what its numbers say about the claims."""
    lines = [f"## Results from {escaping.escape(data['machine']['description'])}", ""]
    lines += ["| | |", "|---|---|"]
    lines += [f"| {field} | {value} |" for field, value in machine_rows(data)]
    contradicted, not_measured = claim_findings(data, claim_list, root)
    lines += ["", "### Claims this machine contradicts", ""]
    if contradicted:
        lines.append("These verdicts' evidence ranges do not hold here; `make test` fails on them:")
        lines.append("")
        lines += [f"- {item}" for item in contradicted]
    else:
        lines.append("None: every claim measured here agrees with its verdict's range.")
    lines += ["", "### Claims this machine has no current result for", ""]
    if not_measured:
        lines.append("Their verdicts are untested on this machine (not measured, or measured on "
                     "an earlier version of the snippet):")  # fmt: skip
        lines.append("")
        lines += [f"- {item}" for item in not_measured]
    else:
        lines.append("None.")
    if notes:
        lines += ["", "### Notes", ""] + [f"- {note}" for note in notes]  # ours, not the file's
    return "\n".join(lines) + "\n"


def files_to_commit(root: Path = ROOT) -> list[str]:
    """Changed and new files under results/ and docs/_generated/, as git lists them."""
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all", "--",
             *COMMIT_PATHS],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(line[3:].strip() for line in done.stdout.splitlines() if len(line) > 3)


def shown(path: Path) -> str:
    """The path relative to the project, as a reader types it there."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def plan(path: Path, stack: str = measured_stacks.DEFAULT) -> str:
    """What `make contribute` does, step by step (the --dry-run output)."""
    lines = [
        f"make contribute would, for {shown(path)}:",
        "  1. Check for noise: the load average, and on a Mac the power source and Low Power "
        "Mode (warnings only, never a refusal).",
    ]
    for number, (what, command, stops) in enumerate(steps(stack), 2):
        after = " (stops here if it fails)" if stops else ""
        lines.append(f"  {number}. {' '.join(command):14s} {what}{after}")
    lines.append(
        f"  {len(steps(stack)) + 2}. Print the files to commit (results/ and docs/_generated/) "
        "and a pull-request description: the machine, and any claim this machine contradicts or "
        "has no current result for."
    )
    lines.append("Nothing was run (--dry-run).")
    return "\n".join(lines)


def run_steps(path: Path, stack: str = measured_stacks.DEFAULT) -> tuple[int, list[str], bool]:
    """Run the steps: (exit status, notes for the description, whether it stopped early)."""
    notes: list[str] = []
    for number, (what, command, stops) in enumerate(steps(stack), 2):
        print(f"\n== {number}. {what}: {' '.join(command)}", flush=True)
        code = subprocess.run(command, cwd=ROOT, check=False).returncode
        if code == 0:
            continue
        message = f"`{' '.join(command)}` failed (exit status {code}) on this machine."
        if stops:
            print(f"\n{message} Fix it before contributing: an invalid file is not accepted.")
            return code, notes, True
        notes.append(message)
        if not path.exists():
            print(f"\n{message} Nothing was written to {shown(path)}.", file=sys.stderr)
            return code, notes, True
    return (1 if notes else 0), notes, False


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m scripts.contribute", description=__doc__)
    parser.add_argument("--dry-run", action="store_true", help="print the steps, run nothing")
    parser.add_argument(
        "--describe", nargs="+", type=Path, metavar="FILE",
        help="print the pull-request description for these results files",
    )  # fmt: skip
    parser.add_argument(
        "--note", action="append", default=[], help="a line for the description's notes"
    )
    parser.add_argument(
        "--results-path", action="store_true", help="print this machine's results file and stop"
    )
    parser.add_argument(
        "--stack",
        default=measured_stacks.DEFAULT,
        choices=[stack.id for stack in measured_stacks.load()],
        help="the software stack to measure (data/measured_stacks.yml; default %(default)s)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.describe:
        try:
            files = [guide_view(path) for path in args.describe]
        except results.ResultsError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        claim_list = claims.load()
        print("\n".join(pr_description(data, claim_list, notes=args.note) for data in files))
        return 0
    path = this_machine_results()
    if args.results_path:
        print(shown(path))
        return 0
    if args.dry_run:
        print(plan(path, args.stack))
        return 0
    print("== 1. Noise check")
    warnings = noise_warnings()
    for warning in warnings:
        print(f"WARNING: {warning}")
    if not warnings:
        print("Nothing found that would slow the timings.")
    status, notes, stopped = run_steps(path, args.stack)
    if stopped:
        return status
    notes = [f"Before measuring: {w}" for w in warnings] + notes + args.note
    print("\n== Files to commit")
    for name in files_to_commit() or [f"{p}/" for p in COMMIT_PATHS]:
        print(f"  {name}")
    print(
        f"\n  git checkout -b results-{path.stem}\n"
        f"  git add {shown(path)} docs/_generated/\n"
        f'  git commit -m "Results from {results.read(path)["machine"]["description"]}"'
    )
    print("\n== Pull-request description (paste it into the pull request)\n")
    print(pr_description(guide_view(path), claims.load(), notes=notes))
    return status


if __name__ == "__main__":
    sys.exit(main())
