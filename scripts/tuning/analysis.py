"""From the arms' timings to verdicts: each arm's speed-up in samples per second against the
model as given, with the core's paired bootstrap interval, and whether to recommend it.

An arm is recommended only when its whole 95% interval is above 1.00 and its measured gain is
at least MIN_GAIN (a change is not advised for a gain too small to matter); a mixed-precision
arm also needs its loss to agree with float32's (experiments.LOSS_TOLERANCE). Standard library.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass

from scripts.core import outcomes, stats
from scripts.tuning import experiments, widening

# The guide's one vocabulary (scripts/core/outcomes.py); tune adds the words for a gain too
# small to advise, a mixed-precision loss that differs, and an arm that failed.
FASTER = outcomes.FASTER
NO_CLEAR = outcomes.NO_CLEAR_DIFFERENCE
SLOWER = outcomes.SLOWER
MIN_GAIN = outcomes.MIN_GAIN
SMALL = f"faster by under {round((MIN_GAIN - 1) * 100)}%"
LOSS_DIFFERS = "faster, but the loss differs"
FAILED = "failed"
MIN_ROUNDS = 3  # fewer timed runs than this give no interval
ORDER_OF_VERDICTS = (FASTER, SMALL, NO_CLEAR, LOSS_DIFFERS, SLOWER, FAILED)


@dataclass
class Row:
    experiment: str
    arm: str
    label: str
    change: str
    link: str
    verdict: str
    point: float | None = None
    low: float | None = None
    high: float | None = None
    rounds: int = 0
    note: str = ""
    # With a spread (widening.py): low/high are the long-run interval the verdict reads,
    # round_low/round_high this run's own interval, new_low/new_high where a next run lands.
    round_low: float | None = None
    round_high: float | None = None
    new_low: float | None = None
    new_high: float | None = None

    @property
    def recommended(self) -> bool:
        return self.verdict == FASTER

    def as_dict(self) -> dict:
        return {**asdict(self), "recommended": self.recommended}


def per_sample(arm: dict) -> list[float]:
    return [t / arm["samples_per_run"] for t in arm.get("times_s") or []]


def verdict_of(point: float, low: float, high: float) -> str:
    found = outcomes.direction(low, high)
    return SMALL if found == FASTER and point < MIN_GAIN else found


def rows_for(
    experiment: str, measured: dict, facts: dict, spreads: dict | None = None
) -> list[Row]:
    """One row per arm that changes something, against the experiment's as-given arm; with
    spreads ({stratum: spread}, widening.load()) its interval is widened by the experiment's."""
    arms = measured.get("arms") or {}
    base = arms.get(experiments.BASELINE) or {}
    base_times = per_sample(base) if "error" not in base else []
    found = []
    for arm in experiments.arms(experiment, facts)[1:]:
        got = arms.get(arm.name)
        row = Row(experiment, arm.name, arm.label, arm.change, arm.link, FAILED)
        found.append(row)
        if got is None:
            row.note = "not measured" + (" (interrupted)" if measured.get("interrupted") else "")
            continue
        if "error" in got:
            row.note = got["error"]
            continue
        if "error" in base:
            row.note = f"the model as given failed: {base['error']}"
            continue
        times = per_sample(got)
        if min(len(times), len(base_times)) < MIN_ROUNDS:
            row.note = f"too few timed runs ({min(len(times), len(base_times))})"
            continue
        paired = len(times) == len(base_times)
        row.point = statistics.median(base_times) / statistics.median(times)
        row.low, row.high = stats.speedup_interval(base_times, times, paired=paired)
        row.rounds = min(len(times), len(base_times))
        spread = (spreads or {}).get(widening.stratum_of(experiment, facts))
        wide = widening.widened(
            row.point, widening.within_variance(base_times, times, paired), spread
        )
        if wide:
            row.round_low, row.round_high = row.low, row.high
            row.low, row.high, row.new_low, row.new_high = wide
        row.verdict = verdict_of(row.point, row.low, row.high)
        agreement = got.get("agreement")
        if arm.name.startswith("mixed_"):
            row.note = agreement_note(agreement)
            if row.verdict in (FASTER, SMALL) and not (agreement or {}).get("agrees"):
                row.verdict = LOSS_DIFFERS
    return found


def agreement_note(agreement: dict | None) -> str:
    if not agreement:
        return "loss not compared"
    if agreement.get("error"):
        return f"loss not compared: {agreement['error']}"
    return (
        f"loss after {agreement['steps']} steps {agreement['loss_variant']:.4g} against "
        f"float32's {agreement['loss_float32']:.4g} ({agreement['relative_difference']:.2%} apart, "
        f"tolerance {agreement['tolerance']:.0%})"
    )


def input_share(rows: list[Row]) -> str | None:
    """What the in-memory arm says of the time spent getting batches, in words."""
    row = next((r for r in rows if r.experiment == "input" and r.arm == "in_memory"), None)
    if row is None or row.point is None:
        return None
    if row.verdict in (FASTER, SMALL):
        return (
            f"getting the next batch takes about {1 - 1 / row.point:.0%} of a training step as "
            "given (what holding the same batches in memory saves)"
        )
    return "no time measured waiting for data: the batches held in memory were no faster"


def ranked(rows: list[Row]) -> list[Row]:
    """Recommended first, then by verdict, each group by measured speed-up, fastest first."""
    return sorted(
        rows,
        key=lambda r: (ORDER_OF_VERDICTS.index(r.verdict), -(r.point or 0.0)),
    )


def recommendations(rows: list[dict]) -> list[dict]:
    """The recommended rows, best first, one per experiment (its largest measured gain)."""
    best: dict[str, dict] = {}
    for row in rows:
        if row["recommended"] and (
            row["experiment"] not in best or row["point"] > best[row["experiment"]]["point"]
        ):
            best[row["experiment"]] = row
    return sorted(best.values(), key=lambda r: -r["point"])


def stretch(measured: dict, facts: dict) -> dict:
    """The drift experiment: the model as given over a longer stretch. Speed of the last third
    of the timed runs against the first third's (unpaired interval), and memory growth from
    the first third to the last, flagged beyond experiments.GROWTH_SHARE."""
    arm = (measured.get("arms") or {}).get(experiments.BASELINE) or {}
    times = arm.get("times_s") or []
    if "error" in arm or len(times) < experiments.DRIFT_MIN_ROUNDS:
        why = arm.get("error") or f"too few timed runs ({len(times)})"
        return {"error": why}
    third = len(times) // 3
    point = statistics.median(times[:third]) / statistics.median(times[-third:])
    low, high = stats.speedup_interval(times[:third], times[-third:])
    verdict = "steady" if low <= 1.0 <= high else ("slowed down" if high < 1.0 else "sped up")
    found: dict = {
        "runs": len(times),
        "steps": len(times) * facts["steps_per_run"],
        "drift": {"point": point, "low": low, "high": high, "verdict": verdict},
    }
    steps_apart = (len(times) - third) * facts["steps_per_run"]
    for key, values in (arm.get("memory") or {}).items():
        values = [v for v in values if v is not None]
        if len(values) < experiments.DRIFT_MIN_ROUNDS:
            found[key] = None  # not reported here (a GPU TensorFlow gives no figure for)
            continue
        start = statistics.median(values[:third])
        growth = statistics.median(values[-third:]) - start
        limit = max(experiments.GROWTH_SHARE * start, experiments.DRIFT_MIN_GROWTH)
        found[key] = {
            "start": start,
            "growth": growth,
            "per_step": growth / steps_apart,
            "flagged": growth > limit,
        }
    return found
