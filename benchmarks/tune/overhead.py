"""How much tune's own timing adds to a training step (issue 19: at most 2%): a benchmark.

For each model file, the same model and batches are run in interleaved rounds two ways: bare
(fit's inner loop for a dataset: the model's train_function called STEPS_PER_RUN times on one
iterator, the loss read once; for arrays, train_on_batch on the next slice) and through
tune's arm (child.Timed: its batch counting, error handling and loss reading), and the paired
interval of tune / bare is given. A ratio whose interval's upper end is below 1.02 is within
the issue's bound.

Usage: python -m benchmarks.tune.overhead FILE [FILE ...] [--budget SECONDS] [--write]
(--write keeps the run in docs/_generated/tune/overhead.json and the page's table beside it)
       python -m benchmarks.tune.overhead --render  (only the table, from the committed run)
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

from benchmarks.tune import committed_run
from scripts.core import data_formats, json_files, project_files, rounds, stats
from scripts.rendering import escaping
from scripts.tuning import child

BOUND = 1.02
OUT_DIR = project_files.ROOT / "docs" / "_generated" / "tune"
RUN_JSON = OUT_DIR / "overhead.json"
TABLE_MD = OUT_DIR / "overhead.md"


class Bare:
    """The same steps as the arm's call with nothing of tune's around them. Its iterator is
    the arm's: taken fresh before each timed run and dropped after, outside the timing, as
    tune's arm does (child.Timed.prepare and release)."""

    def __init__(self, arm: child.Timed) -> None:
        self.arm = arm
        self.prepare, self.release = arm.prepare, arm.release

    def __call__(self):
        model, steps = self.arm.model, self.arm.setup.steps
        stream = self.arm.stream
        if not self.arm.iterator:  # arrays: the next NumPy slice to train_on_batch, as a loop would
            for _ in range(steps):
                x, y = next(stream)[:2]
                loss = model.train_on_batch(x, y)
            return loss
        for _ in range(steps):
            logs = model.train_function(stream)
        return logs["loss"]


def measure(path: Path, budget_s: float) -> dict:
    setup = child.Setup(path)
    arm = child.build_arm(setup, "input", "as_given")
    runs = {"bare": Bare(arm), "tune": arm}
    for run in runs.values():
        rounds.first_calls(run, 2)
    times, _ = rounds.interleaved_rounds(runs, 20, 400, budget_s, seed=0)
    point = statistics.median(times["tune"]) / statistics.median(times["bare"])
    # tune / bare: speedup_interval gives baseline / variant, so tune is the baseline here
    low, high = stats.speedup_interval(times["tune"], times["bare"], paired=True)
    step_ms = statistics.median(times["bare"]) / setup.steps * 1e3
    found = {"file": str(path), "rounds": len(times["bare"]), "ratio": point}
    return {**found, "low": low, "high": high, "bare_step_ms": step_ms}


def load(path: Path = RUN_JSON) -> dict:
    """The committed run, held to its format (data/tune_overhead.schema.json) and every number
    finite, before any reaches the page."""
    found = data_formats.read(path, "tune_overhead")
    numbers, texts = [], []
    for row in found["rows"]:
        numbers += [row[key] for key in ("ratio", "low", "high", "bare_step_ms", "rounds")]
        texts.append(row["file"])
    return committed_run.check(path, found, numbers, texts)


def render(found: dict) -> str:
    """The overhead table in Markdown, every string from the run escaped."""
    esc = escaping.escape
    lines = [
        committed_run.described(
            found,
            [
                f"{found['budget_s']:g} s of rounds per model",
                f"one-minute load average {committed_run.load_range(found, ' to ')}",
            ],
        ),
        "",
        "| Model file | Bare step | tune's step / bare step (95% interval) | Rounds | Within 2% |",
        "|---|---:|---:|---:|---|",
    ]
    for row in found["rows"]:
        within = "yes" if row["high"] < BOUND else "**not shown**: the interval reaches past 1.02"
        lines.append(
            f"| `{esc(row['file'])}` | {row['bare_step_ms']:.2f} ms | {row['ratio']:.4f} "
            f"({row['low']:.4f}–{row['high']:.4f}) | {row['rounds']} | {within} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", type=Path, nargs="*")
    parser.add_argument("--budget", type=float, default=10.0, help="timed seconds per way")
    parser.add_argument("--write", action="store_true", help="keep the run for the page")
    parser.add_argument("--render", action="store_true", help="only render the committed run")
    args = parser.parse_args(argv)
    if args.render:
        if args.files:
            parser.error("--render measures nothing: give no model files with it")
        TABLE_MD.write_text(render(load(RUN_JSON)), encoding="utf-8")
        print(f"rendered {TABLE_MD.name} from {RUN_JSON.name}")
        return 0
    if not args.files:
        parser.error("give the model files to measure (or --render for the committed run)")
    found = {**committed_run.started("tune overhead", args.budget), "rows": []}
    print(f"tune's step time / the bare loop's (interleaved rounds, 95% interval; bound {BOUND})")
    for path in args.files:
        row = measure(path, args.budget)
        found["rows"].append(row)
        print(
            f"  {row['file']}: {row['ratio']:.4f} ({row['low']:.4f}-{row['high']:.4f}), "
            f"{row['rounds']} rounds"
        )
    committed_run.finished(found)
    worst = max(row["high"] for row in found["rows"])
    print("within the bound" if worst < BOUND else "OVER THE BOUND")
    if args.write:
        for row in found["rows"]:  # as the page names them: relative to the project
            row["file"] = os.path.relpath(Path(row["file"]).resolve(), project_files.ROOT)
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        json_files.write_json_atomic(RUN_JSON, found)
        TABLE_MD.write_text(render(load(RUN_JSON)), encoding="utf-8")
    return 0 if worst < BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
