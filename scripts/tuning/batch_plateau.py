"""Where the MLP's throughput levels off: a benchmark that picks the batch of tune's better
variant in the batch-size validation case, measured on its own, before that variant is chosen.

snippets/batch_size/mlp.py's sweep stops at a batch of 1024, where its throughput still rises,
so its largest batch cannot be a variant on which a larger batch is no longer advice. This
benchmark times the snippet's network, trained as the snippet trains it (train_on_batch on one
batch of random data held as tensors, the same EXAMPLES_PER_RUN examples per run whatever the
batch), at every batch of LADDER, in interleaved rounds, and gives each batch's gain from twice
and four times the batch, in samples per second, with the paired 95% interval.

The rule, fixed before the first run: the better variant's batch is the smallest batch of the
ladder whose x2 and x4 gains both have their whole 95% interval below tune's MIN_GAIN (1.05),
the gain under which tune advises nothing: this sweep then shows that neither larger batch
gains 5% there. Where no batch of the ladder qualifies, the case has no better variant on this
machine, and the run says so.

Usage: python -m scripts.tuning.batch_plateau [--budget SECONDS] [--write]
(--write keeps the run in docs/_generated/tune/batch_plateau.json and the page's table beside it)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from scripts.core import catalog, project_files, rounds, stats
from scripts.core import store as results
from scripts.tuning import analysis, committed_run

SNIPPET = "batch_size/mlp"
LADDER = tuple(1024 * 2**k for k in range(9))  # 1024 (the snippet's largest) to 262144
EXAMPLES_PER_RUN = LADDER[-1]  # one step at the largest batch
FACTORS = (2, 4)  # tune's batch experiment tries x2 and x4
MIN_ROUNDS, MAX_ROUNDS = 10, 200
OUT_DIR = project_files.ROOT / "docs" / "_generated" / "tune"
RUN_JSON = OUT_DIR / "batch_plateau.json"
TABLE_MD = OUT_DIR / "batch_plateau.md"


def workload(mlp, batch: int, examples: int):
    """run() trains the snippet's network on `examples` examples in steps of `batch`."""
    import numpy as np
    import tensorflow as tf

    model = mlp.build_model()
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((batch, mlp.FEATURES), dtype=np.float32))
    y = tf.constant(rng.integers(0, mlp.CLASSES, size=batch))
    steps = examples // batch

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        return loss

    return run


def gains(times: dict[int, list[float]], ladder: tuple[int, ...]) -> list[dict]:
    """Each batch's samples per second and its gain from x2 and x4 (point, 95% interval),
    where that batch is on the ladder. Every run trains on the same examples, so a gain is
    the ratio of run times."""
    rows = []
    for batch in ladder:
        row = {"batch": batch, "median_s": statistics.median(times[batch]), "gains": {}}
        for factor in FACTORS:
            larger = times.get(batch * factor)
            if larger is None:
                continue
            point = statistics.median(times[batch]) / statistics.median(larger)
            low, high = stats.speedup_interval(times[batch], larger, paired=True)
            row["gains"][f"x{factor}"] = {"point": point, "low": low, "high": high}
        rows.append(row)
    return rows


def levelled(row: dict) -> bool:
    """Both larger batches were measured, and neither gains MIN_GAIN: whole intervals below."""
    found = [row["gains"].get(f"x{factor}") for factor in FACTORS]
    return all(gain is not None and gain["high"] < analysis.MIN_GAIN for gain in found)


def chosen(rows: list[dict]) -> int | None:
    """The rule: the smallest batch at which the throughput has levelled off, else None."""
    return next((row["batch"] for row in rows if levelled(row)), None)


def measure(budget_s: float, ladder: tuple[int, ...] = LADDER, examples: int = EXAMPLES_PER_RUN):
    """Every batch of the ladder in interleaved rounds; budget_s of timed runs per batch."""
    (snippet,) = catalog.select([SNIPPET])
    mlp = catalog.load(snippet)
    runs = {batch: workload(mlp, batch, examples) for batch in ladder}
    for run in runs.values():
        rounds.first_calls(run, 2)

    def progress(times: dict, _positions: dict) -> None:
        done = len(times[ladder[0]])
        if done % 5 == 0:
            print(f"  {done} rounds", flush=True)

    times, _ = rounds.interleaved_rounds(
        runs, MIN_ROUNDS, MAX_ROUNDS, budget_s, seed=0, on_round=progress
    )
    return {
        "examples_per_run": examples,
        "rounds": len(times[ladder[0]]),
        "rows": gains(times, ladder),
    }


def load(path: Path = RUN_JSON) -> dict:
    """The committed run, its fields checked before any reaches the page."""
    found = json.loads(path.read_text(encoding="utf-8"))
    numbers = [found["examples_per_run"], found["rounds"]]
    for row in found["rows"]:
        numbers += [row["batch"], row["median_s"]]
        for gain in row["gains"].values():
            numbers += [gain["point"], gain["low"], gain["high"]]
        if set(row["gains"]) - {f"x{factor}" for factor in FACTORS}:
            raise ValueError(f"{path}: batch {row['batch']}: gains other than x2 and x4")
    committed_run.check(path, found, numbers, [])
    if found["chosen"] != chosen(found["rows"]):
        raise ValueError(f"{path}: 'chosen' is not the batch the rule gives for these rows")
    return found


def gain_cell(gain: dict | None) -> str:
    if gain is None:
        return "–"
    return f"{gain['point']:.3f}× ({gain['low']:.3f}–{gain['high']:.3f})"


def render(found: dict) -> str:
    """The sweep's table in Markdown, every string from the run escaped."""
    lines = [
        f"{committed_run.heading(found)}, {found['budget_s']:g} s of timed runs per batch, "
        f"{found['rounds']} rounds of {found['examples_per_run']:,} examples per run; one-minute "
        f"load average {committed_run.load_range(found, ' to ')}",
        "",
        "| Batch | Samples per second | x2 gain (95% interval) | x4 gain (95% interval) "
        "| Levelled off (both below 1.05) |",
        "|---:|---:|---:|---:|---|",
    ]
    for row in found["rows"]:
        rate = found["examples_per_run"] / row["median_s"]
        lines.append(
            f"| {row['batch']:,} | {rate:,.0f} | {gain_cell(row['gains'].get('x2'))} | "
            f"{gain_cell(row['gains'].get('x4'))} | {'yes' if levelled(row) else 'no'} |"
        )
    pick = found["chosen"]
    lines += [
        "",
        f"The rule gives a batch of **{pick:,}**." if pick else
        "**No batch of the ladder levelled off**: the case has no better variant here.",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=20.0, help="timed seconds per batch")
    parser.add_argument("--write", action="store_true", help="keep the run for the page")
    args = parser.parse_args(argv)
    found = committed_run.started("tune batch plateau", args.budget)
    print(
        f"{SNIPPET}: batches {LADDER[0]} to {LADDER[-1]}, {args.budget:g} s per batch", flush=True
    )
    found.update(measure(args.budget))
    committed_run.finished(found)
    found["chosen"] = chosen(found["rows"])
    if args.write:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        results.write_json_atomic(RUN_JSON, found)
        found = load(RUN_JSON)
        TABLE_MD.write_text(render(found), encoding="utf-8")
    print(render(found))
    return 0 if found["chosen"] else 1


if __name__ == "__main__":
    sys.exit(main())
