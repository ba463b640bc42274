"""Readers' claims (data/claims/*.yml, a file per page): verdicts and the evidence behind them.

A claim's evidence names two results entries and the speed-up range the verdict relies on
(speed-up = baseline median / variant median). With `baseline_stat: first_call_s` the baseline's
first, untimed run is used instead of its median: naming one entry twice then gives its
first-call / warmed-up-median ratio. tests/test_claims.py checks every such range
against every machine's current results, so a verdict cannot drift from the numbers.

An evidence item marked `analogue: true` was measured on machines that cannot test the Mac
claim (no Mac, no Metal GPU); its one-line `shows:` says what it does show, and pages label
it as an analogue, never as a measurement of the claim.
"""

from __future__ import annotations

from pathlib import Path

from scripts.core import data_formats, pooling
from scripts.core.catalog import ROOT, is_current

CLAIMS_DIR = ROOT / "data" / "claims"
BASELINE_STATS = ("median_s", "first_call_s")
VERDICTS = {
    "holds": "success",
    "holds with conditions": "warning",
    "wrong": "failure",
    "wrong here": "failure",
    "cannot be tested here": "info",
    "reported": "note",
}
ANALOGUE_NOTE = "(not a test of the Mac claim)"
# What difference counts as none (issue 18, section 5), decided for every range at once and
# before looking at which verdicts it moves: a bound that says "no faster" (an upper bound at
# or above 1) is at least NO_DIFFERENCE, and one that says "no slower" (a lower bound at or
# below 1) is at most 1 / NO_DIFFERENCE. A bound of exactly 1.00 cannot be supported when
# the true speed-up is 1.00: the interval straddles it and the verdict flips between runs.
# 10% is the drift `make compare` already left unflagged between two runs on one machine
# (scripts/core/comparison.py now derives DRIFT_FLAG_PERCENT from this constant), so a
# smaller difference is one this guide's own numbers do not reproduce. A range may ask for
# more (1.33 for "substantially"), never for less.
NO_DIFFERENCE = 1.10


class ClaimsError(ValueError):
    """A claims file entry that is missing a field or has a value out of range."""


def load(claims_dir: Path = CLAIMS_DIR) -> list[dict]:
    """Every claim of every file in claims_dir, checked for the fields pages and tests use."""
    claims: list[dict] = []
    for path in sorted(claims_dir.glob("*.yml")):
        try:  # the shape, by data/claims.schema.json
            found = data_formats.read(path, "claims")["claims"]
        except data_formats.FormatError as error:
            raise ClaimsError(str(error)) from error
        for number, claim in enumerate(found):
            check(claim, f"{path.name}: claims[{number}] ({claim.get('id', '?')})")
        claims += found
    return claims


def check(claim: dict, where: str) -> None:
    """A claim needs its fields, a known verdict, well-formed evidence and sources."""
    for field in ("id", "factor", "page", "claim", "verdict", "why"):
        if field not in claim:
            raise ClaimsError(f"{where}: missing field {field!r}")
    if claim["verdict"] not in VERDICTS:
        raise ClaimsError(f"{where}: verdict must be one of {sorted(VERDICTS)}")
    for evidence in claim.get("evidence", []):
        if not {"variant", "baseline"} <= set(evidence) or not (
            "at_least" in evidence or "below" in evidence
        ):
            raise ClaimsError(f"{where}: evidence needs variant, baseline, at_least/below")
        if evidence.get("baseline_stat", "median_s") not in BASELINE_STATS:
            raise ClaimsError(f"{where}: baseline_stat must be one of {BASELINE_STATS}")
        if evidence.get("analogue", False) not in (True, False):
            raise ClaimsError(f"{where}: analogue must be true or false")
        if evidence.get("analogue") and not str(evidence.get("shows", "")).strip():
            raise ClaimsError(f"{where}: an analogue needs `shows`, what it does show")
        margin_problem = no_difference_problem(evidence)
        if margin_problem:
            raise ClaimsError(f"{where}: evidence {evidence.get('variant')!r}: {margin_problem}")
        for number, record in enumerate(evidence.get("contradicted_on", [])):
            if (
                not isinstance(record, dict)
                or not str(record.get("machine", "")).strip()
                or not (str(record.get("why", "")).strip())
            ):
                raise ClaimsError(
                    f"{where}: evidence {evidence.get('variant')!r}: contradicted_on[{number}] "
                    "needs the machine id and `why`: what the page says about it"
                )
        if not str(evidence.get("why_range", "")).strip():
            raise ClaimsError(
                f"{where}: evidence {evidence.get('variant')!r} needs `why_range`: what its "
                "range means for the claim, decided before the data (no measured value)"
            )
    for source in claim.get("sources", []):
        if not isinstance(source, dict) or not {"title", "url"} <= set(source):
            raise ClaimsError(f"{where}: each source needs a title and a url")


def no_difference_problem(evidence: dict) -> str | None:
    """Why a range's bound is tighter than the margin that counts as no difference, or None."""
    below, at_least = evidence.get("below"), evidence.get("at_least")
    if below is not None and 1.0 <= below < NO_DIFFERENCE:
        return (
            f"below: {below} says 'no faster' with less than the {NO_DIFFERENCE:.2f}× margin "
            "that counts as no difference (claims.NO_DIFFERENCE); use at least that"
        )
    if at_least is not None and 1.0 / NO_DIFFERENCE < at_least <= 1.0:
        return (
            f"at_least: {at_least} says 'no slower' with less than the margin that counts as "
            f"no difference (at most {1.0 / NO_DIFFERENCE:.3f}×, claims.NO_DIFFERENCE)"
        )
    return None


def _current_pair(data: dict, evidence: dict, root: Path) -> list[dict] | None:
    entries = data["entries"]
    pair = [entries.get(evidence["baseline"]), entries.get(evidence["variant"])]
    return None if any(e is None or not is_current(e, root) for e in pair) else pair


def pooled(data: dict, evidence: dict, root: Path = ROOT) -> pooling.Pooled | None:
    """The speed-up over the machine's sessions of today's snippet version (pooling.speedup);
    None if missing, stale or without timings."""
    if _current_pair(data, evidence, root) is None:
        return None
    stat = evidence.get("baseline_stat", "median_s")
    return pooling.speedup(data, evidence["baseline"], evidence["variant"], stat)


def speedup(data: dict, evidence: dict, root: Path = ROOT) -> float | None:
    """Baseline median (or first call) / variant median on one machine, pooled over its
    sessions; None if missing or stale."""
    found = pooled(data, evidence, root)
    if found is not None:
        return found.point
    pair = _current_pair(data, evidence, root)
    if pair is None:
        return None
    baseline = pair[0]["stats"].get(evidence.get("baseline_stat", "median_s"))
    return baseline / pair[1]["stats"]["median_s"] if baseline else None


def contradiction_recorded(evidence: dict, machine_id: str) -> str | None:
    """What the claim's file says about this machine's data contradicting the range, or None.

    A contradicted row fails the tests until it is recorded here (`contradicted_on`), so that
    the page says so in words; the range itself never moves."""
    for record in evidence.get("contradicted_on", []):
        if record["machine"] == machine_id:
            return record["why"]
    return None


def agrees(evidence: dict, ratio: float) -> bool:
    return evidence.get("at_least", float("-inf")) <= ratio < evidence.get("below", float("inf"))


def interval(data: dict, evidence: dict, root: Path = ROOT) -> tuple[float, float] | None:
    """The speed-up's 95% interval for a new session on one machine (pooling.Pooled)."""
    found = pooled(data, evidence, root)
    return None if found is None else (found.new_low, found.new_high)


def sessions_words(found: pooling.Pooled) -> str:
    """'3 sessions' or '1 session, widened by other machines' sessions' (How we measure)."""
    count = f"{found.sessions} session{'s' if found.sessions != 1 else ''}"
    if found.basis == "other machines' sessions":
        return f"{count}, widened by other machines' sessions"
    if found.basis == "rounds only":
        return f"{count}, its rounds only"
    return count


# What a machine's interval says about a verdict's range (issue 10): the whole interval
# inside supports it, the whole interval outside contradicts it, anything else is open.
SUPPORTED, INCONCLUSIVE, CONTRADICTED = "supported", "inconclusive", "contradicted"


def status(evidence: dict, bounds: tuple[float, float]) -> str:
    low, high = bounds
    at_least = evidence.get("at_least", float("-inf"))
    below = evidence.get("below", float("inf"))
    if at_least <= low and high < below:
        return SUPPORTED
    if high < at_least or low >= below:
        return CONTRADICTED
    return INCONCLUSIVE


def expectation_words(evidence: dict) -> str:
    parts = []
    if "at_least" in evidence:
        parts.append(f"at least {evidence['at_least']:.2f}×")
    if "below" in evidence:
        parts.append(f"below {evidence['below']:.2f}×")
    return " and ".join(parts)


def found_words(data: dict, evidence: dict, root: Path = ROOT) -> str | None:
    """'1.21× (1.15–1.90, inconclusive; 2 sessions)' on one machine; None without current
    results."""
    found = pooled(data, evidence, root)
    if found is None:
        ratio = speedup(data, evidence, root)
        return None if ratio is None else f"{ratio:.2f}×"
    bounds = (found.new_low, found.new_high)
    return (
        f"{found.point:.2f}× ({bounds[0]:.2f}–{bounds[1]:.2f}, {status(evidence, bounds)}; "
        f"{sessions_words(found)})"
    )


def short_name(entry_id: str) -> str:
    """'graph_execution/small_ops:eager' -> 'small_ops:eager': the page names the factor."""
    return entry_id.rsplit("/", 1)[-1]


def compared(evidence: dict, variant: str, baseline: str) -> str:
    """What an evidence ratio compares, in words."""
    if evidence.get("baseline_stat") != "first_call_s":
        return f"`{variant}` vs `{baseline}`"
    if variant == baseline:
        return f"`{variant}`, first call vs warmed-up median"
    return f"`{baseline}`'s first call vs `{variant}`'s warmed-up median"


def claim_order(claim: dict) -> tuple:
    """C1a < C1b < C2a < ... < C10a: by factor number, then letter."""
    number = "".join(ch for ch in claim["id"] if ch.isdigit())
    return (int(number or 0), claim["id"])
