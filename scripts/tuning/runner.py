"""tune's parent: checks the reader's file, runs each experiment in child processes with the
reader's Python (and so their TensorFlow), and gathers what they measured into one report.

Standard library only, so tf-doctor.pyz runs it anywhere. A child's progress lines are shown
as they come; Ctrl-C stops the run and keeps every round measured so far; an experiment
that fails is reported and the others still run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from scripts.core import project_files, provenance, typed_json
from scripts.core import rounds as rounds_core
from scripts.tuning import analysis, child_messages, experiments, model_file, stack, widening

DEFAULT_BUDGET_S = 240.0
MIN_ROUNDS, MAX_ROUNDS = 5, 60
DRIFT_MAX_ROUNDS = 600
# An isolated experiment (threads): at least PROCESS_ROUNDS process rounds, more as the budget
# allows (a process costs about the check's start-up time), RUNS_PER_PROCESS timed runs each;
# its interval pairs the processes of each round. Five rounds at least: with three, two arms
# that were the same (a file that pins the thread count the arm sets) came out "faster" in a
# test, each of three pairs leaning one way by chance (one time in four when they are alike).
PROCESS_ROUNDS, MAX_PROCESS_ROUNDS, RUNS_PER_PROCESS = 5, 10, 5
CHECK_TIMEOUT_S = 300.0
# How the input experiment's variants are timed (issue 27). "processes", the design tune uses:
# every variant in processes of its own, in process rounds, as the thread counts. "fresh":
# interleaved rounds in one process, a fresh iterator per timed run (child.WARM_STEPS untimed),
# dropped after it. "kept": interleaved rounds, one iterator per variant for the whole run, the
# design before, under which the pipeline as given went on producing while the other variants
# were timed. benchmarks/tune/ground_truth.py ran all three on planted models whose answer was
# measured end to end, and "processes" agreed with it where the other two did not (Tune page).
DESIGNS = ("processes", "fresh", "kept")
# The child imports the stage from the project (a folder, or tf-doctor.pyz itself) ahead of
# anything in the reader's working folder.
BOOT = (
    "import sys; sys.path.insert(0, {root!r}); "
    "from scripts.tuning.child import main; sys.exit(main())"
)


class Interrupted(Exception):
    """Ctrl-C: the run stops; what was measured is kept."""


def child_env() -> dict:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


def run_child(
    path: Path,
    experiment: str,
    say: Callable[[str], None],
    facts: dict | None = None,
    options: tuple[str, ...] = (),
    timeout: float = CHECK_TIMEOUT_S,
) -> child_messages.ChildReport:
    """One child's report; its stdout lines are passed to say() as they come. A report that
    does not hold its format (child_messages.ChildReport) fails the experiment, naming the file and
    the field: the other experiments still run."""
    with tempfile.TemporaryDirectory(prefix="tune-") as tmp:
        out = Path(tmp) / "report.json"
        command = [
            sys.executable, "-c", BOOT.format(root=str(project_files.ROOT)),
            "--file", str(path), "--experiment", experiment, "--out", str(out),
            "--facts", json.dumps(facts or {}), *options,
        ]  # fmt: skip
        with open(Path(tmp) / "stderr.txt", "w+", encoding="utf-8", errors="replace") as err:
            child = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=err, text=True, env=child_env(),
                errors="replace",
            )  # fmt: skip
            timed_out = threading.Event()
            timer = threading.Timer(timeout, lambda: (timed_out.set(), child.kill()))
            timer.start()
            interrupted = False
            try:
                for line in child.stdout:
                    say(line.rstrip())
                child.wait()
            except KeyboardInterrupt:
                interrupted = True
                child.send_signal(signal.SIGINT)  # it writes what it has and stops
                try:
                    child.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()
            finally:
                timer.cancel()
            err.seek(0)
            stderr_tail = [line.strip() for line in err.read().splitlines() if line.strip()][-3:]
        try:
            report = child_messages.read_report(out, experiment)
        except typed_json.MessageError as error:
            report = {"experiment": experiment, "arms": {}, "error": str(error)}
    if interrupted:
        report["interrupted"] = True
    elif child.returncode not in (0, 1) and not report.get("error"):
        why = f"timed out after {timeout:.0f} s" if timed_out.is_set() else "stopped"
        report["error"] = (
            f"{experiment}: the child process {why} (exit status {child.returncode})"
            + (f": {' | '.join(stderr_tail)}" if stderr_tail else "")
        )
    return report


def rounds_options(budget_s: float, experiment: str = "", seed: int = 0) -> tuple[str, ...]:
    low, high = MIN_ROUNDS, MAX_ROUNDS
    if experiment == "drift":  # one arm over a longer stretch, in thirds
        low, high = experiments.DRIFT_MIN_ROUNDS, DRIFT_MAX_ROUNDS
    return (
        "--min-rounds", str(low), "--max-rounds", str(high),
        "--budget", f"{budget_s:.3f}", "--seed", str(seed),
    )  # fmt: skip


def arm_options(arm: str) -> list[str]:
    """What an isolated arm sets before TensorFlow's runtime starts."""
    if arm.startswith("intra_"):
        return ["--intra-threads", arm[len("intra_") :]]
    if arm == "cpu_only":
        return ["--hide-gpu"]
    return []


def process_rounds(share_s: float, arms: int, startup_s: float) -> int:
    """How many process rounds an isolated experiment's share of the budget pays for."""
    affordable = int(share_s / (arms * max(startup_s, 1.0)))
    return max(PROCESS_ROUNDS, min(MAX_PROCESS_ROUNDS, affordable))


def run_isolated(
    path: Path,
    experiment: str,
    facts: dict,
    say: Callable[[str], None],
    timeout: float,
    rounds: int = PROCESS_ROUNDS,
) -> child_messages.ChildReport:
    """Each arm in processes of its own, in process rounds (order shuffled per round, seeded);
    an arm's times are one per process (the median of its runs), paired by round."""
    arms = {a.name: a for a in experiments.arms(experiment, facts)}
    merged: child_messages.ChildReport = {
        "arms": {name: {"label": a.label} for name, a in arms.items()},
        "error": None,
    }

    def announce(number: int, order: list[str]) -> None:
        say(f"  {experiment}: process round {number + 1}/{rounds}: {', '.join(order)}")

    def run_one(name: str, position: int) -> bool:
        options = ["--arm", name, "--min-rounds", str(RUNS_PER_PROCESS)]
        options += ["--max-rounds", str(RUNS_PER_PROCESS), "--budget", "0"]
        options += arm_options(name)
        report = run_child(path, experiment, say, facts, tuple(options), timeout)
        got = (report.get("arms") or {}).get(name) or {}
        entry = merged["arms"][name]
        if report.get("error") or "error" in got:
            entry["error"] = got.get("error") or report["error"]
        elif got.get("times_s"):
            # One time per process: the median of its runs. Runs of different processes
            # are not paired by their order (a process's start and the machine's load
            # differ); processes of the same round, started one after another, are.
            entry["samples_per_run"] = got["samples_per_run"]
            entry.setdefault("run_times_s", []).append(got["times_s"])
            entry.setdefault("times_s", []).append(statistics.median(got["times_s"]))
        if report.get("interrupted"):
            raise Interrupted
        return "error" not in entry

    try:
        rounds_core.process_rounds(list(arms), rounds, 0, run_one, announce)
    except Interrupted:
        merged["interrupted"] = True
    return merged


def plan(only: list[str] | None, facts: dict) -> tuple[list[str], dict[str, str]]:
    """The experiments to run, in order, and why the others are not run."""
    chosen, skipped = [], {}
    for name in experiments.ORDER:
        why = experiments.applicable(name, facts)
        why = why or (None if not only or name in only else "not chosen (--only)")
        if why:
            skipped[name] = why
        else:
            chosen.append(name)
    return chosen, skipped


def tune(
    path: Path,
    only: list[str] | None = None,
    budget_s: float = DEFAULT_BUDGET_S,
    say: Callable[[str], None] = print,
    probe: provenance.Probe | None = None,
    design: str = DESIGNS[0],
) -> dict:
    """Check the file, run the experiments and return the report (see report.py); probe
    stands for the operating system where tests fake a Mac; design: one of DESIGNS."""
    if design not in DESIGNS:
        raise ValueError(f"design {design!r}: expected one of {', '.join(DESIGNS)}")
    started = time.perf_counter()
    report: dict = {
        "tool": "tune",
        "file": str(path),
        "date": provenance.utc_now(),
        "machine": provenance.collect_machine(probe),
        "software": provenance.collect_software(probe),
        "budget_s": budget_s,
        "experiments": {},
        "skipped": {},
        "rows": [],
        "notes": [],
        "interrupted": False,
        "error": None,
    }
    try:
        model_file.check_source(path)
    except model_file.ModelFileError as error:
        report["error"] = str(error)
        return report
    if importlib.util.find_spec("tensorflow") is None:
        report["error"] = (
            f"TensorFlow is not installed for {sys.executable}; tune runs your model with the "
            "TensorFlow of the Python that runs it: start it with the Python you train with"
        )
        return report
    say(f"tune: checking {path} (imports it, builds the model, takes one training step)")
    check = run_child(path, "check", say)
    startup_s = time.perf_counter() - started
    if check.get("interrupted"):
        report["interrupted"] = True
        return report
    if check.get("error") or not check.get("facts"):
        report["error"] = check.get("error") or f"{path}: the check stopped without a report"
        return report
    facts = report["facts"] = check["facts"]
    report["stack"] = stack.summary(facts)
    provenance.set_devices(report["machine"], facts["devices"])
    facts["metal_gpu"] = metal_gpu(report["machine"], facts)
    facts["apple_silicon"] = apple_silicon(report["machine"])
    note = mac_gpu_note(report["machine"], report["software"], facts)
    if note:
        report["notes"].append(note)
    chosen, report["skipped"] = plan(only, facts)
    try:
        for index, name in enumerate(chosen):
            left = max(0.0, budget_s - (time.perf_counter() - started))
            share = left / (len(chosen) - index)
            arms = experiments.arms(name, facts)
            names = ", ".join(a.name for a in arms)
            say(f"[{index + 1}/{len(chosen)}] {experiments.TITLES[name]}: {names}")
            timeout = max(CHECK_TIMEOUT_S, 4 * share + 60)
            if name in experiments.ISOLATED or (name == "input" and design == "processes"):
                count = process_rounds(share, len(arms), startup_s)
                say(
                    f"  {name}: {count} process rounds of {len(arms)} processes "
                    f"({count * len(arms)} in all), each about as long to start as the check "
                    f"({startup_s:.0f} s)"
                )
                measured = run_isolated(path, name, facts, say, timeout, count)
            else:
                per_arm = max(0.2, (share - 1.5 * startup_s) / len(arms))
                options = rounds_options(per_arm, name)
                if design == "kept":
                    options += ("--iterators", "kept")
                measured = run_child(path, name, say, facts, options, timeout)
            report["experiments"][name] = measured
            if measured.get("interrupted"):
                raise Interrupted
    except (Interrupted, KeyboardInterrupt):
        report["interrupted"] = True
        done = set(report["experiments"])
        for name in chosen:
            if name not in done:
                report["skipped"][name] = "not run (interrupted)"
    finish(report)
    report["seconds"] = round(time.perf_counter() - started, 1)
    return report


def finish(report: dict) -> None:
    """Rows and notes from what the experiments measured; the intervals widened by the guide's
    between-sitting spread where data/tune_spread.json has it, and the report says so."""
    rows = []
    spreads = widening.load()
    for name, measured in report["experiments"].items():
        if measured.get("error"):  # arms measured before a crash are still compared
            report["notes"].append(f"{experiments.TITLES[name]} failed: {measured['error']}")
        rows += analysis.rows_for(name, measured, report["facts"], spreads)
        if name == "drift":
            report["stretch"] = analysis.stretch(measured, report["facts"])
        if name == "correctness" and measured.get("agreement"):
            report["correctness"] = measured["agreement"]
    used = {widening.stratum_of(row.experiment, report["facts"]) for row in rows}
    used = sorted(used & set(spreads))
    report["intervals"] = (
        widening.HOW.format(strata=", ".join(used) + (" stratum" if len(used) == 1 else " strata"))
        if used
        else "intervals from this run's rounds only (no between-sitting spread known)"
    )
    share = analysis.input_share(rows)
    if share:
        report["notes"].append(share)
    report["rows"] = [row.as_dict() for row in analysis.ranked(rows)]


def apple_silicon(machine: dict) -> bool:
    """A native arm64 process on a Mac (tf-keras turns XLA off there, GPU or not)."""
    return machine.get("os") == "Darwin" and machine.get("arch") == "arm64"


def metal_gpu(machine: dict, facts: dict) -> bool:
    """An Apple-silicon Mac where TensorFlow lists a GPU (the Metal plugin's)."""
    return apple_silicon(machine) and bool(facts["gpu"])


def mac_gpu_note(machine: dict, software: dict, facts: dict) -> str | None:
    """On an Apple-silicon Mac where TensorFlow sees no GPU, why, and where the guide says more:
    the GPU experiments are then skipped."""
    if machine.get("os") != "Darwin" or machine.get("arch") != "arm64" or facts.get("gpu"):
        return None
    metal = software.get("tensorflow_metal")
    why = (
        f"tensorflow-metal {metal} is installed but TensorFlow lists no GPU"
        if metal
        else "tensorflow-metal is not installed"
    )
    return (
        f"no GPU on this Mac: {why}, so the GPU experiments were not run "
        "(docs/setup.md#check-that-tensorflow-sees-the-gpu; python tf-doctor.pyz says more)"
    )
