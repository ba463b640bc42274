"""Readers' claims (data/claims/*.yml, a file per page): verdicts and the evidence behind them.

A claim's evidence names two results entries and the speed-up range the verdict relies on
(speed-up = baseline median / variant median). With `baseline_stat: first_call_s` the baseline's
first, untimed run is used instead of its median: naming one entry twice then gives its
first-call / warmed-up-median ratio. The findings stage (scripts/findings/claim_rows.py) reads
every range against every machine's current results, and tests/test_claims.py fails when a
headline verdict breaks the written rule, so a verdict cannot drift from the numbers.

An evidence item marked `analogue: true` was measured on machines that cannot test the Mac
claim (no Mac, no Metal GPU); its one-line `shows:` says what it does show, and pages label
it as an analogue, never as a measurement of the claim.
"""

from __future__ import annotations

from pathlib import Path

from scripts.core import data_formats, outcomes
from scripts.core.catalog import ROOT

CLAIMS_DIR = ROOT / "data" / "claims"
ANALOGUE_NOTE = "(not a test of the Mac claim)"
# A range's bounds respect the margin that counts as no difference (outcomes.NO_DIFFERENCE): a
# bound that says "no faster" (an upper bound at or above 1) is at least NO_DIFFERENCE, and one
# that says "no slower" (a lower bound at or below 1) is at most 1 / NO_DIFFERENCE. A bound of
# exactly 1.00 cannot be supported when the true speed-up is 1.00. A range may ask for more
# (1.33 for "substantially"), never for less.
NO_DIFFERENCE = outcomes.NO_DIFFERENCE


class ClaimsError(ValueError):
    """A claims file, or one claim, that breaks data/claims.schema.json or the margin rule; the
    message names the file, the claim and the field."""


def load(claims_dir: Path = CLAIMS_DIR) -> list[dict]:
    """Every claim of every file in claims_dir, each file held to data/claims.schema.json and
    each claim to the margin rule."""
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
    """One claim as data/claims.schema.json defines it (its fields, a known verdict, evidence
    with a range and why_range, an analogue with `shows`), then what the schema cannot say:
    each range's bounds against the no-difference margin."""
    found = data_formats.problems({"claims": [claim]}, "claims")
    if found:
        said = [problem.removeprefix("claims[0]").lstrip(".: ") for problem in found[:5]]
        raise ClaimsError(f"{where}: " + "; ".join(said))
    for evidence in claim.get("evidence", []):
        margin_problem = no_difference_problem(evidence)
        if margin_problem:
            raise ClaimsError(f"{where}: evidence {evidence['variant']!r}: {margin_problem}")


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


def expectation_words(evidence: dict) -> str:
    parts = []
    if "at_least" in evidence:
        parts.append(f"at least {evidence['at_least']:.2f}×")
    if "below" in evidence:
        parts.append(f"below {evidence['below']:.2f}×")
    return " and ".join(parts)


def short_name(entry_id: str) -> str:
    """'graph_execution/small_ops:eager' -> 'small_ops:eager': the page names the factor."""
    return entry_id.rsplit("/", 1)[-1]


def claim_order(claim: dict) -> tuple:
    """C1a < C1b < C2a < ... < C10a: by factor number, then letter."""
    number = "".join(ch for ch in claim["id"] if ch.isdigit())
    return (int(number or 0), claim["id"])
