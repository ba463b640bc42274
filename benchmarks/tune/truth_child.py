"""One process of the ground truth (benchmarks/tune/ground_truth.py): one arm of one planted
model file, trained with model.fit for a fixed number of steps, back to back, as a reader
trains it. It shares no timing code with tune: the arm is the reader's own change, written
here (the same batches held in memory, a larger BATCH, run_eagerly=False, one thread).

Usage: python -m benchmarks.tune.truth_child --file F --arm ARM --steps N --runs R --out OUT

Its report (ArmReport, JSON, --out) is typed here, beside the one place that writes it, and
read back by ground_truth.py with read_report, whose error names the file and the field of
anything amiss.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path
from typing import TypedDict

from scripts.core import typed_json

HELD_BATCHES = 32  # the in-memory arm: the pipeline's first batches, held as tensors


class ArmReport(TypedDict):
    """What one truth process reports: its arm, each timed fit run's seconds, and the examples
    one run trains on."""

    arm: str
    times_s: list[float]
    samples_per_run: int


def read_report(path: Path, arm: str) -> ArmReport:
    """The report of the process that ran `arm`, held to ArmReport, with at least one time, each
    above 0, and a positive count of examples; else typed_json.MessageError naming the file and
    the field."""
    whose = f"the ground truth's {arm} child's report"
    found = typed_json.read(path, ArmReport, whose)
    source = f"{whose}, {path}"
    if found["arm"] != arm:
        raise typed_json.MessageError(f"{source}: arm: expected {arm!r}, got {found['arm']!r}")
    if not found["times_s"] or min(found["times_s"]) <= 0:
        raise typed_json.MessageError(
            f"{source}: times_s: expected at least one time, each above 0, got {found['times_s']}"
        )
    if found["samples_per_run"] <= 0:
        raise typed_json.MessageError(
            f"{source}: samples_per_run: expected a positive count, got {found['samples_per_run']}"
        )
    return found


def load(path: Path):
    sys.path.insert(0, str(path.parent))  # the model files import their neighbours
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def arm_data(tf, module, arm: str):
    """The arm's dataset, repeated without end, and the examples in one of its batches."""
    if arm.startswith("batch_x"):
        module.BATCH *= int(arm[len("batch_x") :])  # the reader's batch, changed in the file
    dataset = module.training_data()
    if arm == "in_memory":
        batches = list(dataset.take(HELD_BATCHES))
        xs = tf.stack([batch[0] for batch in batches])
        ys = tf.stack([batch[1] for batch in batches])
        dataset = tf.data.Dataset.from_tensor_slices((xs, ys))
    batch = int(next(iter(dataset))[0].shape[0])
    return dataset.repeat(), batch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--file", type=Path, required=True)
    parser.add_argument("--arm", required=True)
    parser.add_argument("--steps", type=int, required=True, help="fit steps per timed run")
    parser.add_argument("--runs", type=int, default=2, help="timed fit runs in this process")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    import tensorflow as tf

    if args.arm.startswith("intra_"):  # before TensorFlow's runtime starts
        tf.config.threading.set_intra_op_parallelism_threads(int(args.arm[len("intra_") :]))
    module = load(args.file)
    model = module.build_model()
    if args.arm == "graph":
        model.run_eagerly = False
    dataset, batch = arm_data(tf, module, args.arm)
    model.fit(dataset, epochs=1, steps_per_epoch=max(3, args.steps // 4), verbose=0)
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        model.fit(dataset, epochs=1, steps_per_epoch=args.steps, verbose=0)
        times.append(time.perf_counter() - start)
    found: ArmReport = {"arm": args.arm, "times_s": times, "samples_per_run": args.steps * batch}
    args.out.write_text(json.dumps(found), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
