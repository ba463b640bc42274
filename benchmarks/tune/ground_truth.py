"""tune against planted models whose answer is measured end to end (issues 27 and 37).

Each case is a model file in tests/tune_models/ built to have a known answer for one of
tune's arms (the input is the bottleneck, or it is not; a larger batch helps, or it does not;
...). The truth is measured without tune: model.fit for a fixed number of steps, back to back,
the model as given and the arm's change (benchmarks/tune/truth_child.py), each in processes
of its own, in process rounds, each in a seeded shuffled order (scripts/core/rounds.py). Then
tune runs on the same file (only the case's experiment).

`--sitting` measures this sitting: every case's truth and one tune run, each case APPENDED to
its runs in docs/_generated/tune/truth_runs.json (truth_runs.py) as soon as it is done, then
the pages are rendered again. The rules that judge the runs (truth_rules.py), the sets
(truth_sets.py) and the pooling (truth_pool.py) were written before the second sitting.

The committed run of 2026-11-27 (ground_truth.json) is kept as it was: its first judgement,
by the criterion before issue 37, and the design table that chose how dataset variants are
timed are still rendered from it (ground_truth.md, ground_truth_designs.md).

Usage: python -m benchmarks.tune.ground_truth --sitting [--set design|validation]
           [--only FILE ...] [--rounds N] [--budget S]
       python -m benchmarks.tune.ground_truth --estimate | --render
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.tune import (
    committed_run,
    machine_share,
    truth_child,
    truth_page,
    truth_rules,
    truth_runs,
    truth_sets,
)
from scripts.core import data_formats, outcomes, project_files, rounds, stats, typed_json
from scripts.rendering import escaping
from scripts.tuning import analysis, experiments, runner

MODELS = project_files.ROOT / "tests" / "tune_models"
OUT_DIR = project_files.ROOT / "docs" / "_generated" / "tune"
RUN_JSON = OUT_DIR / "ground_truth.json"
TABLE_MD = OUT_DIR / "ground_truth.md"
DESIGNS_MD = OUT_DIR / "ground_truth_designs.md"
TRUTH_MD = OUT_DIR / "truth.md"  # each case's sittings, pooled truth, tune and judgement
REPEAT_MD = OUT_DIR / "repeat.md"  # tune's row in one sitting against another
FULL_BUDGET_S = 60.0  # tune's budget per case, as in the run of 2026-11-27
TRUTH_ROUNDS, RUNS_PER_PROCESS = 5, 3  # per sitting: ten rounds in all over two sittings
GAIN, NONE, LOSS = truth_rules.GAIN, truth_rules.NONE, truth_rules.LOSS
# The guide's one vocabulary (scripts/core/outcomes.py).
FASTER, SLOWER, SAME = outcomes.FASTER, outcomes.SLOWER, outcomes.NO_CLEAR_DIFFERENCE


@dataclass(frozen=True)
class Case:
    name: str  # the planted model, in the table's words
    file: str  # in tests/tune_models/
    experiment: str
    arm: str  # tune's arm whose answer was planted
    planted: str  # GAIN or NONE
    steps: int  # fit steps per timed run of the truth


CASES = (
    Case("from_generator, NumPy work per example, no prefetch (issue 27)",
         "truth_generator.py", "input", "in_memory", GAIN, 32),
    Case("the same with prefetch(AUTOTUNE) written",
         "truth_generator_prefetch.py", "input", "in_memory", GAIN, 32),
    Case("the same work in a parallel map, then prefetch",
         "truth_generator_parallel_map.py", "input", "in_memory", GAIN, 32),
    Case("already cheap: from_tensor_slices, batch, cache, prefetch",
         "truth_cached.py", "input", "in_memory", NONE, 32),
    Case("retracing on Python scalars, run eagerly",
         "truth_retracing.py", "graph", "graph", GAIN, 40),
    Case("many small ops, run eagerly",
         "truth_small_ops_eager.py", "graph", "graph", GAIN, 20),
    Case("tiny model: one intra-op thread",
         "truth_threads_tiny.py", "threads", "intra_1", GAIN, 200),
    Case("CNN at a batch of 256: one intra-op thread",
         "truth_threads_cnn.py", "threads", "intra_1", LOSS, 8),
    Case("MLP at a batch of 32: four times the batch",
         "truth_batch_small.py", "batch", "batch_x4", GAIN, 200),
    Case("CNN at a batch of 256: four times the batch",
         "truth_batch_large.py", "batch", "batch_x4", NONE, 8),
    Case("light generator with prefetch: about as costly as the step (issue 37)",
         "truth_input_balanced.py", "input", "in_memory", GAIN, 32),
    Case("small model at a batch of 256, near the thread crossover: one intra-op thread",
         "truth_threads_edge.py", "threads", "intra_1", NONE, 50),
    Case("MLP at a batch of 4,096, near its plateau: four times the batch",
         "truth_batch_plateau.py", "batch", "batch_x4", NONE, 8),
)  # fmt: skip
INPUT_DESIGNS = runner.DESIGNS  # the input cases run with each design
# The other experiments interleave their variants in one process, dataset variants taking a
# fresh iterator per timed run (runner.DESIGNS applies to the input experiment only).
OTHER_DESIGN = "fresh"


def direction(low: float, high: float) -> str:
    return outcomes.direction(low, high)


def run_truth_child(case: Case, arm: str, runs: int) -> truth_child.ArmReport:
    with tempfile.TemporaryDirectory(prefix="truth-") as tmp:
        out = Path(tmp) / "arm.json"
        command = [
            sys.executable, "-m", "benchmarks.tune.truth_child", "--file",
            str(MODELS / case.file), "--arm", arm, "--steps", str(case.steps),
            "--runs", str(runs), "--out", str(out),
        ]  # fmt: skip
        env = dict(os.environ, PYTHONPATH=str(project_files.ROOT), TF_CPP_MIN_LOG_LEVEL="2")
        done = subprocess.run(
            command, cwd=project_files.ROOT, env=env, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"{case.file} {arm}: {done.stderr.strip()[-500:]}")
        try:
            return truth_child.read_report(out, arm)
        except typed_json.MessageError as error:  # fails the case, as a failed process does
            raise RuntimeError(f"{case.file} {arm}: {error}") from None


def truth(case: Case, process_rounds: int, say: Callable[[str], None]) -> dict:
    """The model as given and the arm, each in processes of its own, process rounds in
    a seeded shuffled order; one time per process (the median of its runs), per sample."""
    per_sample: dict[str, list[float]] = {experiments.BASELINE: [], case.arm: []}

    def announce(number: int, order: list[str]) -> None:
        say(f"  truth: process round {number + 1}/{process_rounds}: {', '.join(order)}")

    def run_one(arm: str, position: int) -> bool:
        found = run_truth_child(case, arm, RUNS_PER_PROCESS)
        per_sample[arm].append(statistics.median(found["times_s"]) / found["samples_per_run"])
        return True

    rounds.process_rounds(list(per_sample), process_rounds, 0, run_one, announce)
    base, changed = per_sample[experiments.BASELINE], per_sample[case.arm]
    low, high = stats.speedup_interval(base, changed, paired=True)
    point = statistics.median(base) / statistics.median(changed)
    return {"point": point, "low": low, "high": high, "processes": len(base), "per_sample_s": {
        "as_given": base, "arm": changed}}  # fmt: skip


ROW_KEYS = ("arm", "verdict", "point", "low", "high", "rounds", "recommended")
# Kept where tune gives them (scripts/tuning/widening.py): the round interval and the band.
WIDE_KEYS = ("round_low", "round_high", "new_low", "new_high")


def tune_rows(case: Case, budget_s: float, design: str, say: Callable[[str], None]) -> dict:
    """tune on the case's file, its experiment only: the rows of that experiment, each arm's
    times per process or round, and how tune made its intervals."""
    report = runner.tune(MODELS / case.file, [case.experiment], budget_s, say, design=design)
    if report.get("interrupted"):  # Ctrl-C: the case is not appended half measured
        raise KeyboardInterrupt
    rows = [
        {key: row[key] for key in ROW_KEYS}
        | {key: row[key] for key in WIDE_KEYS if row.get(key) is not None}
        for row in report["rows"]
        if row["experiment"] == case.experiment
    ]
    arms = ((report.get("experiments") or {}).get(case.experiment) or {}).get("arms") or {}
    times = {
        name: {"times_s": got["times_s"], "samples_per_run": got["samples_per_run"]}
        for name, got in arms.items()
        if got.get("times_s") and got.get("samples_per_run")
    }
    return {"design": design, "error": report["error"], "seconds": report.get("seconds"),
            "rows": rows, "times": times, "intervals": report.get("intervals")}  # fmt: skip


def arm_row(case: Case, measured: dict) -> dict | None:
    return next((row for row in measured["rows"] if row["arm"] == case.arm), None)


def tune_run(entry: dict, design: str | None = None) -> dict:
    """tune's run of the case under the design (tune's own by default); a case outside the
    input experiment has one run, its dataset arms timed as tune times them there."""
    if entry["experiment"] != "input":
        return entry["tune"][0]
    return next(m for m in entry["tune"] if m["design"] == (design or runner.DESIGNS[0]))


def judged(case: Case, entry: dict, design: str | None = None) -> dict:
    """Each test of the case, from the committed numbers (never read from the file)."""
    true = entry["truth"]
    measured = tune_run(entry, design)
    row = arm_row(case, measured)
    true_direction = direction(true["low"], true["high"])
    planted = true_direction == {GAIN: FASTER, LOSS: SLOWER}.get(case.planted, SAME) or (
        case.planted == NONE and true_direction != FASTER
    )
    if measured["error"] or row is None or row["point"] is None:
        return {"planted": planted, "direction": False, "overlap": False, "no_advice": False}
    tune_direction = direction(row["low"], row["high"])
    same = tune_direction == true_direction or (
        true_direction == SAME and not row["recommended"] and tune_direction != SLOWER
    )
    overlap = row["low"] <= true["high"] and true["low"] <= row["high"]
    advised = [r for r in measured["rows"] if r["recommended"] and not r["arm"].startswith("batch")]
    no_advice = case.planted == GAIN or not advised
    return {"planted": planted, "direction": same, "overlap": overlap, "no_advice": no_advice}


def passed(case: Case, entry: dict, design: str | None = None) -> bool:
    return all(judged(case, entry, design).values())


def design_for(case: Case) -> str:
    """tune's own design for the case's experiment (the input design applies to input only)."""
    return runner.DESIGNS[0] if case.experiment == "input" else OTHER_DESIGN


def measure_case(case: Case, process_rounds: int, budget_s: float, say) -> dict:
    """One run of one case in this sitting: its truth, then one tune run, with provenance."""
    run = committed_run.started("tune ground truth, one sitting", budget_s)
    run["boot"], run["sitting"] = truth_runs.sitting_now(run["date"])
    run["steps"], run["runs_per_process"] = case.steps, RUNS_PER_PROCESS
    started, before = time.perf_counter(), machine_share.snapshot()
    found = truth(case, process_rounds, say)
    run["truth"] = {
        "rounds": [list(pair) for pair in zip(found["per_sample_s"]["as_given"],
                                               found["per_sample_s"]["arm"], strict=True)],
        "seconds": round(time.perf_counter() - started, 1),
    }  # fmt: skip
    say(f"  truth: {interval(found)} in {run['truth']['seconds']:.0f} s")
    run["tune"] = tune_rows(case, budget_s, design_for(case), say)
    cores = run["machine"].get("logical_cores") or os.cpu_count() or 1
    run["other_cpu_share"] = machine_share.other_share(before, machine_share.snapshot(), cores)
    return committed_run.finished(run)


def measure_sitting(
    cases: tuple[Case, ...],
    process_rounds: int,
    budget_s: float,
    say: Callable[[str], None],
    path: Path,
) -> list[str]:
    """Each case measured and appended to path as soon as it is done (read again and replaced
    atomically), so an interrupted sitting keeps every case it finished; the cases whose
    truth failed (not appended) are returned."""
    started = time.perf_counter()
    estimate = estimate_seconds(cases, process_rounds)
    say(f"sitting: {len(cases)} cases, {process_rounds} truth process rounds each, tune "
        f"{budget_s:g} s each; estimated {estimate / 60:.0f} min ({ESTIMATE_HOW})")  # fmt: skip
    failed = []
    for number, case in enumerate(cases, 1):
        elapsed = (time.perf_counter() - started) / 60
        say(f"[{number}/{len(cases)}] {case.file} ({elapsed:.1f} min so far): {case.name}")
        try:
            run = measure_case(case, process_rounds, budget_s, say)
        except RuntimeError as error:  # a truth process failed: nothing to append
            say(f"  FAILED, not appended: {error}")
            failed.append(case.file)
            continue
        if truth_rules.busy(run):
            say("  marked busy by the load rule: kept, pooled and shown marked")
        truth_runs.append_and_write(path, case.file, run)
        say(f"  appended to {path.name}")
    say(f"sitting measured in {(time.perf_counter() - started) / 60:.1f} min"
        + (f"; failed: {', '.join(failed)}" if failed else ""))  # fmt: skip
    return failed


# How long a sitting takes, from the committed run of 2026-11-27 (its dates and tune's own
# seconds): the full run of eight cases started 04:21:49 and the next run started 04:49:41,
# 1672 s; tune's runs in it took 1156 s, so its 80 truth processes took at most 516 s, 6.5 s
# each. tune's seconds are each case's committed run with tune's design (a new case: the
# longest of its experiment's).
TRUTH_PROCESS_S = 6.5
ESTIMATE_HOW = (
    f"{TRUTH_PROCESS_S:g} s per truth process and each case's committed tune seconds, from "
    "the run of 2026-11-27"
)


def estimate_seconds(cases: tuple[Case, ...], process_rounds: int) -> float:
    """The sitting's expected length from the committed runs' figures (ESTIMATE_HOW)."""
    seconds: dict[str, float] = {}
    if truth_runs.RUNS_JSON.exists():
        for file, runs in truth_runs.load(truth_runs.RUNS_JSON)["cases"].items():
            timed = [r["tune"]["seconds"] for r in runs if r.get("tune") and r["tune"]["seconds"]]
            if timed:
                seconds[file] = timed[-1]
    total = 0.0
    for case in cases:
        same = [seconds[c.file] for c in CASES if c.experiment == case.experiment
                and c.file in seconds]  # fmt: skip
        total += seconds.get(case.file, max(same, default=FULL_BUDGET_S))
        total += 2 * process_rounds * TRUTH_PROCESS_S
    return total


def case_of(entry: dict) -> Case:
    return next(case for case in CASES if case.file == Path(entry["file"]).name)


def load(path: Path = RUN_JSON) -> dict:
    """The committed run, held to its format (data/tune_ground_truth.schema.json), then its
    numbers, verdicts and cases checked, before any reaches the page."""
    found = data_formats.read(path, "tune_ground_truth")
    numbers, texts = [], []
    for entry in [*found["cases"], *(e for c in found["cases"] for e in c.get("earlier", []))]:
        texts += [entry["name"], entry["file"], entry["experiment"], entry["arm"]]
        if entry.get("added"):  # a case measured later, with its own provenance
            committed_run.check(path, entry["added"], [], [])
        true = entry["truth"]
        numbers += [true["point"], true["low"], true["high"]]
        for measured in entry["tune"]:
            if measured["design"] not in runner.DESIGNS:
                raise ValueError(f"{path}: {entry['file']}: unknown design {measured['design']!r}")
            texts.append(measured["error"] or "")
            for row in measured["rows"]:
                texts += [row["arm"], row["verdict"]]
                numbers += [row[key] for key in ("point", "low", "high") if row[key] is not None]
                check_verdict(f"{path}: {entry['file']}, {measured['design']}, {row['arm']}", row)
    committed_run.check(path, found, numbers, texts)
    known = {case.file for case in CASES}
    for entry in found["cases"]:
        if Path(entry["file"]).name not in known:
            raise ValueError(f"{path}: {entry['file']}: a case this module does not define")
    return found


def check_verdict(where: str, row: dict) -> None:
    """A row's verdict and 'recommended' are what its numbers give (analysis.verdict_of)."""
    expected = (
        analysis.FAILED
        if row["point"] is None
        else analysis.verdict_of(row["point"], row["low"], row["high"])
    )
    if row["verdict"] != expected:
        raise ValueError(f"{where}: verdict {row['verdict']!r}, but its numbers give {expected!r}")
    if row["recommended"] is not (row["verdict"] == analysis.FASTER):
        raise ValueError(f"{where}: 'recommended' does not follow from the verdict")


def interval(found: dict | None) -> str:
    if not found or found.get("point") is None:
        return "not measured"
    return f"{found['point']:.2f}× ({found['low']:.2f}–{found['high']:.2f})"


def tune_cell(case: Case, measured: dict) -> str:
    if measured["error"]:
        return f"error: {measured['error']}"
    row = arm_row(case, measured)
    if row is None:
        return "no such row"
    said = "recommended" if row["recommended"] else row["verdict"]
    return f"{interval(row)}, {said}"


PLANTED_WORDS = {GAIN: "a gain", NONE: "nothing to gain", LOSS: "a loss"}


def yes(value: bool) -> str:
    return "yes" if value else "**no**"


def render(found: dict) -> str:
    """The ground-truth tables in Markdown, every string from the run escaped."""
    esc = escaping.escape
    method = found["truth_method"]
    lines = [
        committed_run.described(
            found,
            [
                f"the truth: {method['process_rounds']} process rounds, "
                f"{method['runs_per_process']} timed `fit` runs per process",
                f"tune's budget {found['budget_s']:g} s per run, the input variants in processes "
                f'of their own ("{runner.DESIGNS[0]}")',
                f"one-minute load average {committed_run.load_range(found, ' to ')}",
            ],
        ),
        "",
        "| Planted model | tune's arm | Planted | End to end: `fit`, separate processes "
        "(95% interval) | tune (95% interval) | Planted answer measured | Same direction "
        "| Intervals overlap | No advice where none planted | Pass |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in found["cases"]:
        case = case_of(entry)
        verdicts = judged(case, entry)
        measured = tune_run(entry)
        added = entry.get("added")
        when = (
            f" (measured later: {esc(added['date'][:10])}, commit "
            f"{esc((added['git'].get('commit') or 'unknown')[:7])}"
            f"{'+dirty' if added['git'].get('dirty') else ''}, one-minute load average "
            f"{committed_run.load_range(added, ' to ')})"
            if added
            else ""
        )
        cells = (
            f"{esc(entry['name'])}: `{esc(entry['file'])}`{when}",
            f"{esc(experiments.TITLES[entry['experiment']])}: `{esc(entry['arm'])}`",
            PLANTED_WORDS[entry["planted"]],
            interval(entry["truth"]),
            esc(tune_cell(case, measured)),
            yes(verdicts["planted"]),
            yes(verdicts["direction"]),
            yes(verdicts["overlap"]),
            yes(verdicts["no_advice"]),
            yes(all(verdicts.values())),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" + render_earlier(found)


def render_earlier(found: dict) -> str:
    """The runs a later one replaced, with their verdicts: kept on the page, never dropped."""
    esc = escaping.escape
    rows = []
    for entry in found["cases"]:
        case = case_of(entry)
        for earlier in entry.get("earlier", []):
            added = earlier["added"]
            rows.append(
                f"| {esc(entry['name'])} | {esc(added['date'][:10])}, commit "
                f"{esc((added['git'].get('commit') or 'unknown')[:7])}"
                f"{'+dirty' if added['git'].get('dirty') else ''} | "
                f"{committed_run.load_range(added, ' to ')} | {interval(earlier['truth'])} | "
                f"{esc(tune_cell(case, tune_run(earlier)))} | "
                f"{yes(all(judged(case, earlier).values()))} |"
            )
    if not rows:
        return ""
    return (
        "\n".join(
            [
                "",
                "Runs of a case that a later run replaced, kept here with their load:",
                "",
                "| Planted model | Run | One-minute load average | End to end (95% interval) "
                "| tune (95% interval) | Passed |",
                "|---|---|---|---|---|---|",
                *rows,
            ]
        )
        + "\n"
    )


def render_designs(found: dict) -> str:
    """The input cases under each design for dataset arms, against the end-to-end truth."""
    esc = escaping.escape
    header = " | ".join(f'tune, "{design}"' for design in INPUT_DESIGNS)
    lines = [
        f"| Planted model | End to end (95% interval) | {header} |",
        "|---|---|" + "---|" * len(INPUT_DESIGNS),
    ]
    totals = dict.fromkeys(INPUT_DESIGNS, 0)
    inputs = [entry for entry in found["cases"] if entry["experiment"] == "input"]
    for entry in inputs:
        case = case_of(entry)
        cells = [esc(entry["name"]), interval(entry["truth"])]
        for design in INPUT_DESIGNS:
            measured = next((m for m in entry["tune"] if m["design"] == design), None)
            if measured is None:
                cells.append("not run")
                continue
            ok = passed(case, entry, design)
            totals[design] += ok
            seconds = f", {measured['seconds']:.0f} s" if measured["seconds"] else ""
            cells.append(
                f"{esc(tune_cell(case, measured))}{seconds}: {'agrees' if ok else '**disagrees**'}"
            )
        lines.append("| " + " | ".join(cells) + " |")
    counts = " | ".join(f"{totals[d]} of {len(inputs)}" for d in INPUT_DESIGNS)
    lines.append(f"| **Cases that agree** | | {counts} |")
    return "\n".join(lines) + "\n"


def render_all(say: Callable[[str], None] = print) -> None:
    """Every table of the page from the committed files: the runs of each sitting judged by
    the rules (truth.md), the repeat check (repeat.md), and the run of 2026-11-27 as first
    judged with its design table (ground_truth.md, ground_truth_designs.md)."""
    runs = truth_runs.load(truth_runs.RUNS_JSON)
    TRUTH_MD.write_text(truth_page.render_truth(CASES, runs), encoding="utf-8")
    REPEAT_MD.write_text(truth_page.render_repeat(CASES, runs), encoding="utf-8")
    found = load(RUN_JSON)
    TABLE_MD.write_text(render(found), encoding="utf-8")
    DESIGNS_MD.write_text(render_designs(found), encoding="utf-8")
    say(f"rendered {TRUTH_MD.name}, {REPEAT_MD.name}, {TABLE_MD.name}, {DESIGNS_MD.name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sitting",
        action="store_true",
        help="measure this sitting: each case's truth and one tune run, appended",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="FILE",
        help="with --sitting: only this case (a model file name; repeatable)",
    )
    parser.add_argument(
        "--set",
        choices=(truth_sets.DESIGN, truth_sets.VALIDATION),
        help="with --sitting or --estimate: only the cases of this set",
    )
    parser.add_argument("--budget", type=float, default=FULL_BUDGET_S, help="seconds per tune")
    parser.add_argument("--rounds", type=int, default=TRUTH_ROUNDS, help="truth process rounds")
    parser.add_argument("--estimate", action="store_true", help="only print the expected time")
    parser.add_argument("--render", action="store_true", help="only render the committed runs")
    args = parser.parse_args(argv)
    chosen = CASES
    if args.only:
        chosen = tuple(case for case in CASES if case.file in args.only)
        if len(chosen) != len(set(args.only)):
            parser.error(f"--only: expected model files of {', '.join(c.file for c in CASES)}")
    if args.set:
        chosen = tuple(case for case in chosen if truth_sets.set_of(case.file) == args.set)
    # The validation set first: a sitting cut short has measured the cases that check tune.
    chosen = tuple(sorted(chosen, key=lambda c: truth_sets.set_of(c.file) != truth_sets.VALIDATION))
    if args.rounds < 2:
        parser.error("--rounds: at least 2 process rounds (a sitting's interval needs two)")
    say = lambda line: print(line, flush=True)  # noqa: E731
    if args.estimate:
        minutes = estimate_seconds(chosen, args.rounds) / 60
        say(f"{len(chosen)} cases: about {minutes:.0f} min ({ESTIMATE_HOW})")
        return 0
    if args.sitting:
        load_now = os.getloadavg()[0]
        if load_now > truth_rules.BUSY_LOAD_PER_CORE * (os.cpu_count() or 1):
            say(
                f"warning: one-minute load average {load_now:.1f} on {os.cpu_count()} cores: "
                "runs taken now are marked busy by the load rule (kept and shown marked)"
            )
        try:
            failed = measure_sitting(chosen, args.rounds, args.budget, say, truth_runs.RUNS_JSON)
        except KeyboardInterrupt:  # the cases appended so far stay; the case under way does not
            say("interrupted: the cases finished before it are kept; rendering them")
            render_all(say)
            return 130
    elif not args.render:
        parser.error("choose --sitting (measure), --estimate or --render")
    else:
        failed = []
    render_all(say)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
