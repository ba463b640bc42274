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

Usage: python -m benchmarks.tune.batch_plateau [--budget SECONDS] [--write | --render]
(--write keeps the run in docs/_generated/tune/batch_plateau.json and the page's table beside
it; --render only renders the committed run again)
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from benchmarks.tune import committed_run
from scripts.core import catalog, data_formats, json_files, project_files, rounds, stats
from scripts.rendering import escaping
from scripts.tuning import analysis

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
    if batch <= 0 or examples % batch:
        raise ValueError(f"examples per run ({examples}) must be a multiple of the batch {batch}")
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


def gains(times: dict[int, list[float]], ladder: tuple[int, ...], errors: dict) -> list[dict]:
    """One row per batch: its median run time, and its gain from x2 and x4 (point and
    paired 95% interval) where that batch was measured too, or the error that stopped it.
    Every run trains on the same examples, so a gain is a ratio of run times."""
    rows = []
    for batch in ladder:
        if batch not in times:
            rows.append({"batch": batch, "error": errors.get(batch, "not measured"), "gains": {}})
            continue
        mine = times[batch]
        row = {"batch": batch, "median_s": statistics.median(mine), "gains": {}}
        for factor in FACTORS:
            larger = times.get(batch * factor)
            if larger is None:
                continue
            point = statistics.median(mine) / statistics.median(larger)
            low, high = stats.speedup_interval(mine, larger, paired=True)
            row["gains"][f"x{factor}"] = {"point": point, "low": low, "high": high}
        rows.append(row)
    return rows


def levelled(row: dict) -> bool:
    """Both larger batches were measured, and neither gains MIN_GAIN: whole intervals below."""
    found = [row["gains"].get(f"x{factor}") for factor in FACTORS]
    return all(gain is not None and gain["high"] < analysis.MIN_GAIN for gain in found)


def chosen(rows: list[dict]) -> int | None:
    """The rule: the smallest batch at which the throughput has levelled off, else None."""
    return next(
        (row["batch"] for row in sorted(rows, key=lambda r: r["batch"]) if levelled(row)), None
    )


def measure(budget_s: float, ladder: tuple[int, ...] = LADDER, examples: int = EXAMPLES_PER_RUN):
    """Every batch of the ladder in interleaved rounds, budget_s of timed runs per batch on
    average (pooled, as the harness pools it). A batch that fails (out of memory) leaves the
    rounds alone, its error recorded; the others go on."""
    (snippet,) = catalog.select([SNIPPET])
    mlp = catalog.load(snippet)
    runs, errors = {}, {}
    for batch in ladder:
        try:
            runs[batch] = workload(mlp, batch, examples)
            rounds.first_calls(runs[batch], 2)
        except Exception as error:  # this batch fails alone
            runs.pop(batch, None)
            errors[batch] = f"{type(error).__name__}: {error}"
            print(f"  batch {batch}: failed: {errors[batch]}", flush=True)

    def progress(times: dict, _positions: dict) -> None:
        done = max((len(v) for v in times.values()), default=0)
        if done % 5 == 0:
            print(f"  {done} rounds", flush=True)

    def failed(batch: int, error: Exception) -> None:
        errors[batch] = f"{type(error).__name__}: {error}"
        print(f"  batch {batch}: stopped: {errors[batch]}", flush=True)

    times, _ = rounds.interleaved_rounds(
        runs, MIN_ROUNDS, MAX_ROUNDS, budget_s, seed=0, on_round=progress, on_error=failed
    )
    return {
        "examples_per_run": examples,
        "rounds": max((len(v) for v in times.values()), default=0),
        "rows": gains(times, ladder, errors),
    }


def check_row(path: Path, index: int, row: dict, ladder_batch: int) -> None:
    """What the format cannot say of one row of a committed sweep: its batch in ladder order,
    its gains only from larger batches on the ladder, each interval in order (a NaN or
    Infinity is refused when the file is read: data_formats.read)."""
    where = f"{path}: rows[{index}]"
    if row["batch"] != ladder_batch:
        raise ValueError(f"{where}.batch: expected {ladder_batch} (the ladder, in order)")
    if "error" in row:
        if row["gains"]:
            raise ValueError(f"{where}.gains: expected none for a batch that failed")
        return
    allowed = sorted(f"x{f}" for f in FACTORS if ladder_batch * f in LADDER)
    if set(row["gains"]) - set(allowed):
        raise ValueError(f"{where}.gains: expected only {allowed}, got {sorted(row['gains'])}")
    for name, gain in row["gains"].items():
        low, high = gain["low"], gain["high"]
        if not low <= high:
            raise ValueError(f"{where}.gains.{name}: expected low <= high, got {low} > {high}")


def load(path: Path = RUN_JSON) -> dict:
    """The committed run, held to its format (data/tune_batch_plateau.schema.json), then
    checked for what a schema cannot say, before any of it reaches the page; the error names
    the file and the field."""
    found = data_formats.read(path, "tune_batch_plateau")
    rows = found["rows"]
    if len(rows) != len(LADDER):
        raise ValueError(f"{path}: rows: expected one per batch of the ladder {list(LADDER)}")
    for index, (row, batch) in enumerate(zip(rows, LADDER, strict=True)):
        check_row(path, index, row, batch)
    committed_run.check(path, found, [], [])
    expected = chosen(rows)
    if found["chosen"] != expected:
        raise ValueError(
            f"{path}: chosen is {found['chosen']!r}, but the rule gives {expected!r} for these rows"
        )
    return found


def gain_cell(row: dict, factor: int) -> str:
    gain = row["gains"].get(f"x{factor}")
    if gain is not None:
        return f"{gain['point']:.3f}× ({gain['low']:.3f}–{gain['high']:.3f})"
    return "–" if row["batch"] * factor in LADDER else "– (not on the ladder)"


def render(found: dict) -> str:
    """The sweep's table in Markdown, every string from the run escaped."""
    bound = f"{analysis.MIN_GAIN:g}"
    lines = [
        committed_run.described(
            found,
            [
                f"{found['budget_s']:g} s of timed runs per batch on average (pooled over the "
                "batches)",
                f"{found['rounds']} rounds of {found['examples_per_run']:,} examples per run",
                f"one-minute load average {committed_run.load_range(found, ' to ')}",
            ],
        ),
        "",
        "| Batch | Samples per second | x2 gain (95% interval) | x4 gain (95% interval) "
        f"| Levelled off (both below {bound}) |",
        "|---:|---:|---:|---:|---|",
    ]
    for row in found["rows"]:
        if "error" in row:
            rate = f"failed: {escaping.escape(row['error'])}"
        else:
            rate = f"{found['examples_per_run'] / row['median_s']:,.0f}"
        lines.append(
            f"| {row['batch']:,} | {rate} | {gain_cell(row, 2)} | {gain_cell(row, 4)} | "
            f"{'yes' if levelled(row) else 'no'} |"
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
    parser.add_argument(
        "--budget", type=float, default=20.0, help="timed seconds per batch, on average"
    )
    parser.add_argument("--write", action="store_true", help="keep the run for the page")
    parser.add_argument("--render", action="store_true", help="only render the committed run")
    args = parser.parse_args(argv)
    if args.render:
        found = load(RUN_JSON)
        TABLE_MD.write_text(render(found), encoding="utf-8")
        print(render(found))
        return 0 if found["chosen"] else 1
    found = committed_run.started("tune batch plateau", args.budget)
    print(
        f"{SNIPPET}: batches {LADDER[0]} to {LADDER[-1]}, {args.budget:g} s per batch", flush=True
    )
    found.update(measure(args.budget))
    committed_run.finished(found)
    found["chosen"] = chosen(found["rows"])
    if args.write:
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        data_formats.check(found, RUN_JSON, "tune_batch_plateau")  # before the file is replaced
        json_files.write_json_atomic(RUN_JSON, found)
        found = load(RUN_JSON)
        TABLE_MD.write_text(render(found), encoding="utf-8")
    print(render(found))
    return 0 if found["chosen"] else 1


if __name__ == "__main__":
    sys.exit(main())
