"""How much tune's own timing adds to a training step (issue 19: at most 2%): a benchmark.

For each model file, the same model and batches are run in interleaved rounds two ways: bare
(the model's train_function called STEPS_PER_RUN times on one iterator, the loss read once:
fit's inner loop) and through tune's arm (child.Timed: its batch counting, error handling and
loss reading), and the paired interval of bare / tune is printed. A ratio below 1.02 with its
interval's upper end below 1.02 is within the issue's bound.

Usage: python -m scripts.tuning.overhead FILE [FILE ...] [--budget SECONDS]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from scripts.core import rounds, stats
from scripts.tuning import child

BOUND = 1.02


def bare_run(arm: child.Timed):
    """The same steps as arm() with nothing of tune's around them."""
    model, iterator, steps = arm.model, arm.stream, arm.setup.steps

    def run():
        for _ in range(steps):
            logs = model.train_function(iterator)
        return logs["loss"]

    return run


def measure(path: Path, budget_s: float) -> dict:
    setup = child.Setup(path)
    data = setup.data()
    if data.kind != "dataset":
        raise SystemExit(f"{path}: the benchmark times datasets (fit's loop); give a dataset")
    arm = child.build_arm(setup, "input", "as_given")
    runs = {"bare": bare_run(arm), "tune": arm}
    for run in runs.values():
        rounds.first_calls(run, 2)
    times, _ = rounds.interleaved_rounds(runs, 20, 400, budget_s, seed=0)
    point = statistics.median(times["tune"]) / statistics.median(times["bare"])
    # tune / bare: speedup_interval gives baseline / variant, so tune is the baseline here
    low, high = stats.speedup_interval(times["tune"], times["bare"], paired=True)
    found = {"file": str(path), "rounds": len(times["bare"]), "ratio": point}
    return {**found, "low": low, "high": high}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--budget", type=float, default=10.0, help="timed seconds per way")
    args = parser.parse_args(argv)
    worst = 0.0
    print(f"tune's step time / the bare loop's (interleaved rounds, 95% interval; bound {BOUND})")
    for path in args.files:
        found = measure(path, args.budget)
        worst = max(worst, found["high"])
        print(
            f"  {found['file']}: {found['ratio']:.4f} ({found['low']:.4f}-{found['high']:.4f}), "
            f"{found['rounds']} rounds"
        )
    print("within the bound" if worst < BOUND else "OVER THE BOUND")
    return 0 if worst < BOUND else 1


if __name__ == "__main__":
    sys.exit(main())
