"""The rules the planted cases are judged by (issue 37), fixed in code before results.

Written 2026-11-29, before the second sitting was measured. docs/tune-validation.md says the
same in words, with the same date; tests hold the page and these constants together.

- The load rule: a run counts as taken on a busy machine when other processes used more than
  BUSY_OTHER_SHARE of the machine's CPU time while it measured (machine_share.py: Linux's
  count of busy CPU time less this run's own processes). A run that did not record that (the
  runs of 2026-11-27, or a Mac) counts as busy when the one-minute load average at its start
  or its end is above the machine's cores (BUSY_LOAD_PER_CORE): the load average counts the
  run's own processes too, and above one runnable thread per core some thread waits for a
  core. A busy run is kept, pooled like any other and shown marked: dropping it would choose
  runs by their results.
- The re-run rule: no case is measured again to make it agree. Every run of a case is
  appended to its list (truth_runs.py) and none is replaced or removed.
- The truth of a case: all its runs pooled, the sittings (scripts/core/sittings.py) as the
  independent units (truth_pool.py). It is evidence only with at least MIN_ROUNDS process
  rounds in all across at least MIN_SITTINGS sittings.
- "The truth does not reproduce here": the two sittings' own 95% intervals (a t interval on
  each sitting's log ratios) do not overlap. Why this test: it is the one the review used to
  show the problem, it needs no margin, and opposite directions are one case of it.
- Agreement, by decision: a case with something planted (a gain or a loss) agrees when tune's
  point lies inside the truth's interval and tune's decision (recommended, no clear
  difference, slower) is the truth's decision at the guide's margin. A case with nothing to
  gain counts only when its truth's interval lies inside the no-difference margin
  (1/1.10 to 1.10); otherwise it is shown as "not evidence" and not counted.
- The pass criterion: on the validation set, at least PASS_SHARE of the counted cases agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from scripts.core import outcomes
from scripts.tuning import analysis

RULES_DATE = "2026-11-29"
RULES_WRITTEN = f"written {RULES_DATE}, before the second sitting was measured"
BUSY_LOAD_PER_CORE = 1.0
# Half a core of a 2-core machine: enough to take a thread from a 2-thread run now and then.
BUSY_OTHER_SHARE = 0.25
MIN_ROUNDS, MIN_SITTINGS = 10, 2
PASS_SHARE = 0.90
GAIN, NONE, LOSS = "gain", "none", "loss"  # planted: faster, no difference, slower

# tune's three decisions, in the guide's words (scripts/core/outcomes.py).
RECOMMENDED = "recommended"
NO_CLEAR = outcomes.NO_CLEAR_DIFFERENCE
SLOWER = outcomes.SLOWER
# What a case's judgement says.
AGREES, MISSES = "agrees", "misses"
NOT_EVIDENCE = "not evidence"
NOT_REPRODUCED = "the truth does not reproduce here"


def busy(run: dict) -> bool:
    """The load rule: other processes' share of the CPU while the run measured is above
    BUSY_OTHER_SHARE; without that share, the one-minute load average at its start or end is
    above the machine's logical cores."""
    share = run.get("other_cpu_share")
    if share is not None:
        return share > BUSY_OTHER_SHARE
    cores = run["machine"].get("logical_cores") or 1
    highest = max(run["load_average_start"][0], run["load_average_end"][0])
    return highest > BUSY_LOAD_PER_CORE * cores


def decision(point: float, low: float, high: float) -> str:
    """RECOMMENDED, NO_CLEAR or SLOWER: tune's rule (analysis.verdict_of), whose "faster by
    under 5%" is no clear difference at the guide's margin (outcomes.MIN_GAIN)."""
    verdict = analysis.verdict_of(point, low, high)
    if verdict == analysis.FASTER:
        return RECOMMENDED
    return SLOWER if verdict == analysis.SLOWER else NO_CLEAR


def inside_margin(low: float, high: float) -> bool:
    """The whole interval inside the no-difference margin, 1/1.10 to 1.10."""
    return 1 / outcomes.NO_DIFFERENCE <= low and high <= outcomes.NO_DIFFERENCE


def overlap(first: tuple[float, float], second: tuple[float, float]) -> bool:
    return first[0] <= second[1] and second[0] <= first[1]


@dataclass(frozen=True)
class Judgement:
    status: str  # AGREES, MISSES, NOT_EVIDENCE or NOT_REPRODUCED
    why: str  # in the page's words

    @property
    def counted(self) -> bool:
        return self.status in (AGREES, MISSES)


def judge(planted: str, truth, row: dict | None) -> Judgement:
    """A case's judgement from its pooled truth (truth_pool.PooledTruth) and tune's row for
    the case's arm (None: tune gave no row). The order of the tests is the rules' order."""
    if not truth.enough:
        return Judgement(
            NOT_EVIDENCE,
            f"{truth.rounds} process rounds in {len(truth.sittings)} sitting(s): the rule asks "
            f"for at least {MIN_ROUNDS} in at least {MIN_SITTINGS}",
        )
    if not truth.reproduces:
        return Judgement(NOT_REPRODUCED, "the sittings' own intervals do not overlap")
    if planted == NONE and not inside_margin(truth.low, truth.high):
        return Judgement(
            NOT_EVIDENCE, "nothing planted, but the truth's interval is not inside 0.91–1.10"
        )
    if row is None or row.get("point") is None:
        return Judgement(MISSES, "tune gave no figure for the arm")
    truth_says = decision(truth.point, truth.low, truth.high)
    tune_says = decision(row["point"], row["low"], row["high"])
    inside = truth.low <= row["point"] <= truth.high
    if inside and tune_says == truth_says:
        return Judgement(AGREES, f"both {truth_says}; tune's point inside the truth's interval")
    why = [] if inside else ["tune's point outside the truth's interval"]
    if tune_says != truth_says:
        why.append(f"tune {tune_says}, the truth {truth_says}")
    return Judgement(MISSES, "; ".join(why))


def passes(judgements: list[Judgement]) -> bool | None:
    """The pass criterion over one set's judgements; None when no case counts."""
    counted = [j for j in judgements if j.counted]
    if not counted:
        return None
    return sum(j.status == AGREES for j in counted) >= PASS_SHARE * len(counted)
