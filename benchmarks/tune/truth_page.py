"""The tables How tune was checked shows from the runs of the planted cases (issue 37): each
case's sittings side by side, its pooled truth, tune's latest row and the judgement by the
rules (truth.md), and the repeat check, tune's row in one sitting against another
(repeat.md). Every string from the runs is escaped; nothing here measures."""

from __future__ import annotations

from dataclasses import dataclass

from benchmarks.tune import truth_pool, truth_rules, truth_sets
from scripts.core import pooling
from scripts.rendering import escaping
from scripts.tuning import experiments, widening

PLANTED_WORDS = {truth_rules.GAIN: "a gain", truth_rules.NONE: "nothing to gain",
                 truth_rules.LOSS: "a loss"}  # fmt: skip
TRUTH_STRATUM = "compute"  # the planted models work in memory (data/variance_strata.yml's rule)


def truth_spread() -> pooling.Spread | None:
    """The guide's between-sitting spread for the compute stratum (data/tune_spread.json)."""
    found = widening.load().get(TRUTH_STRATUM)
    if not found:
        return None
    return pooling.Spread(found["tau2"], found.get("groups", 0), found["df"], TRUTH_STRATUM)


def ratio(point: float, low: float, high: float) -> str:
    return f"{point:.2f}× ({low:.2f}–{high:.2f})"


def sitting_cell(sitting: truth_pool.Sitting, runs: list[dict]) -> str:
    own = sitting.interval()
    figure = ratio(sitting.point, *own) if own else f"{sitting.point:.2f}×"
    dates = sorted({r["date"][:10] for r in runs if r["sitting"] == sitting.name})
    cell = f"{escaping.escape(', '.join(dates))}: {figure}, {sitting.rounds} rounds"
    if sitting.busy_runs:
        busy = [r for r in runs if r["sitting"] == sitting.name and truth_rules.busy(r)]
        cell += f", **busy** ({len(busy)} of its runs; {busy_words(busy)})"
    return cell


def busy_words(busy: list[dict]) -> str:
    """What made the runs busy: other processes' CPU share, or the load average."""
    shares = [r["other_cpu_share"] for r in busy if r.get("other_cpu_share") is not None]
    loads = [
        max(r["load_average_start"][0], r["load_average_end"][0])
        for r in busy
        if r.get("other_cpu_share") is None
    ]
    words = [f"other work up to {max(shares):.0%} of the CPU"] if shares else []
    return "; ".join(words + ([f"load up to {max(loads):.1f}"] if loads else []))


def latest_tune(case, runs: list[dict]) -> tuple[dict | None, dict | None]:
    """(tune's run, its row for the case's arm) from the case's latest run with tune."""
    for run in reversed(runs):
        if run.get("tune"):
            tune = run["tune"]
            row = next((r for r in tune["rows"] if r["arm"] == case.arm), None)
            return {**tune, "date": run["date"]}, row
    return None, None


def tune_cell(tune: dict | None, row: dict | None) -> str:
    if tune is None:
        return "not run"
    if tune["error"]:
        return f"error: {escaping.escape(tune['error'])}"
    if row is None or row.get("point") is None:
        return "no figure for the arm"
    kind = "widened" if row.get("new_low") is not None else "this run's rounds"
    said = truth_rules.decision(row["point"], row["low"], row["high"])
    return f"{ratio(row['point'], row['low'], row['high'])}, {said} ({tune['date'][:10]}; {kind})"


@dataclass(frozen=True)
class Judged:
    case: object
    truth: truth_pool.PooledTruth | None
    judgement: truth_rules.Judgement


def judged_cases(cases, found: dict, spread: pooling.Spread | None) -> list[Judged]:
    """Each case's pooled truth and judgement, in the cases' order."""
    result = []
    for case in cases:
        runs = found["cases"].get(case.file, [])
        truth = truth_pool.pooled(runs, spread)
        _, row = latest_tune(case, runs)
        if truth is None:
            judgement = truth_rules.Judgement(truth_rules.NOT_EVIDENCE, "not measured yet")
        else:
            judgement = truth_rules.judge(case.planted, truth, row)
        result.append(Judged(case, truth, judgement))
    return result


def summary(name: str, judged: list[Judged]) -> str:
    counted = [j for j in judged if j.judgement.counted]
    agree = sum(j.judgement.status == truth_rules.AGREES for j in counted)
    outcome = truth_rules.passes([j.judgement for j in judged])
    verdict = {
        None: "no case counts yet",
        True: f"passes (at least {truth_rules.PASS_SHARE:.0%} must agree)",
        False: f"**does not pass** (at least {truth_rules.PASS_SHARE:.0%} must agree)",
    }[outcome]
    others = {
        status: sum(j.judgement.status == status for j in judged)
        for status in (truth_rules.NOT_EVIDENCE, truth_rules.NOT_REPRODUCED)
    }
    return (
        f"**{name.capitalize()} set**: {agree} of {len(counted)} counted cases agree: {verdict}. "
        f"Not evidence: {others[truth_rules.NOT_EVIDENCE]}. The truth does not reproduce "
        f"here: {others[truth_rules.NOT_REPRODUCED]}."
    )


def render_truth(cases, found: dict, spread: pooling.Spread | None = None) -> str:
    """Both sets' tables and their summaries, from the committed runs."""
    spread = spread if spread is not None else truth_spread()
    esc = escaping.escape
    lines = [
        f"Judged by the rules above ({truth_rules.RULES_WRITTEN}). The pooled truth widens by "
        "the guide's between-sitting spread for work in memory as a prior"
        + (f" (tau² {spread.tau2:.4f})." if spread else " (none known: rounds only)."),
    ]
    judged = judged_cases(cases, found, spread)
    for name in (truth_sets.VALIDATION, truth_sets.DESIGN):
        chosen = [j for j in judged if truth_sets.set_of(j.case.file) == name]
        lines += [
            "",
            summary(name, chosen),
            "",
            "| Planted model | tune's arm | Planted | First sitting | Second sitting "
            "| Truth, pooled | tune, latest run | Judgement |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for item in chosen:
            case, truth = item.case, item.truth
            runs = found["cases"].get(case.file, [])
            sittings = [sitting_cell(s, runs) for s in truth.sittings] if truth else []
            first = sittings[0] if sittings else "not measured"
            second = "; ".join(sittings[1:]) or "not measured yet"
            pooled = (
                f"{ratio(truth.point, truth.low, truth.high)}, "
                f"{truth_rules.decision(truth.point, truth.low, truth.high)}; "
                f"{truth.rounds} rounds, {len(truth.sittings)} sitting(s)"
                if truth
                else "not measured"
            )
            status = item.judgement.status
            shown = f"**{status}**" if status != truth_rules.AGREES else status
            cells = (
                f"{esc(case.name)}: `{esc(case.file)}`",
                f"{esc(experiments.TITLES[case.experiment])}: `{esc(case.arm)}`",
                PLANTED_WORDS[case.planted],
                first,
                second,
                pooled,
                tune_cell(*latest_tune(case, runs)),
                f"{shown}: {esc(item.judgement.why)}",
            )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Repeat:
    case: str
    arm: str
    first: dict  # the earlier run
    second: dict  # the later run, in another sitting
    band: tuple[float, float]
    kind: str  # "next-run band" or "round interval"
    point: float

    @property
    def inside(self) -> bool:
        return self.band[0] <= self.point <= self.band[1]


def repeats(cases, found: dict) -> list[Repeat]:
    """Every pair of tune runs of a case in two sittings, earlier first, for every arm both
    gave a figure for: the later point against the earlier run's band (its round interval
    where it has no band)."""
    pairs = []
    for case in cases:
        runs = [r for r in found["cases"].get(case.file, []) if r.get("tune")]
        for n, first in enumerate(runs):
            for second in runs[n + 1 :]:
                if second["sitting"] == first["sitting"]:
                    continue
                later = {r["arm"]: r for r in second["tune"]["rows"] if r["point"] is not None}
                for row in first["tune"]["rows"]:
                    if row["point"] is None or row["arm"] not in later:
                        continue
                    wide = row.get("new_low") is not None
                    band = (row["new_low"], row["new_high"]) if wide else (row["low"], row["high"])
                    kind = "next-run band" if wide else "round interval"
                    pairs.append(
                        Repeat(
                            case.file,
                            row["arm"],
                            first,
                            second,
                            band,
                            kind,
                            later[row["arm"]]["point"],
                        )  # fmt: skip
                    )
    return pairs


def render_repeat(cases, found: dict) -> str:
    """The repeat check's table and its count, from the committed runs."""
    esc = escaping.escape
    found_pairs = repeats(cases, found)
    if not found_pairs:
        return "No case has tune runs in two sittings yet.\n"
    inside = sum(p.inside for p in found_pairs)
    lines = [
        f"{inside} of {len(found_pairs)} second-run points lie inside the first run's interval "
        f"({inside / len(found_pairs):.0%}; the issue asks for at least 90%).",
        "",
        "| Planted model | tune's arm | First run | Its interval | Second run | Its point "
        "| Inside |",
        "|---|---|---|---|---|---|---|",
    ]
    for p in found_pairs:
        cells = (
            f"`{esc(p.case)}`",
            f"`{esc(p.arm)}`",
            esc(f"{p.first['date'][:10]} ({p.first['sitting']})"),
            f"{p.band[0]:.2f}–{p.band[1]:.2f} ({p.kind})",
            esc(f"{p.second['date'][:10]} ({p.second['sitting']})"),
            f"{p.point:.2f}×",
            "yes" if p.inside else "**no**",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
