"""The held-back calibration (scripts/findings/calibration.py): whole sittings leave the fit,
forward checks see only earlier sittings, and the coverage interval resamples sittings."""

from __future__ import annotations

import copy

import pytest

from scripts.findings import calibration, results_views


@pytest.fixture(scope="module")
def donor(committed_files) -> dict:
    """A committed file with two sittings that share snippet versions on many pairs."""
    found = next(
        (f for f in committed_files if len(calibration.sittings_in_order(f["sessions"])) >= 3),
        None,
    )
    if found is None:
        pytest.skip("no committed file has three sittings")
    return found


def slower_variants(session: dict, factor: float, new_id: str) -> dict:
    """The session under another id (another day: another sitting, no boot), every variant's
    times multiplied by factor, so every speed-up is divided by it."""
    moved = copy.deepcopy(session)
    moved["id"] = new_id
    moved.pop("boot", None)
    for entry in moved["entries"].values():
        if entry["variant"] == entry["baseline"]:
            continue
        stats = entry["stats"]
        stats["times_s"] = [t * factor for t in stats.get("times_s") or []]
        for key in ("median_s", "q1_s", "q3_s", "min_s", "max_s"):
            if key in stats:
                stats[key] *= factor
    return moved


def calibrated(machine: dict, sessions: list[dict]) -> calibration.Calibration:
    return calibration.calibrate(
        results_views.stack_views([{"machine": machine, "sessions": sessions}])
    )


def test_a_held_back_sitting_takes_every_session_of_it_out_of_the_fit(donor):
    """Two sessions of one sitting, both three times off the other sitting: with the sibling
    left in the fit the band would be wide enough to hold them; held back whole, it is not."""
    full = max(donor["sessions"], key=lambda s: len(s["entries"]))
    first = slower_variants(full, 3.0, "2026-01-01T00:00:00Z")
    sibling = dict(copy.deepcopy(first), id="2026-01-01T01:00:00Z")
    other = slower_variants(full, 1.0, "2026-01-05T00:00:00Z")
    found = calibrated(donor["machine"], [first, sibling, other])
    held = [c for c in found.checks if c.scheme == "sitting" and c.sitting == "day 2026-01-01"]
    assert {c.session for c in held} == {first["id"], sibling["id"]}
    assert held and sum(c.inside for c in held) <= 0.05 * len(held)


def test_a_forward_check_never_sees_a_later_sitting(donor):
    """The middle sitting equals the last one and is three times off the first: predicted
    from the first alone it falls outside, where the last sitting would have held it."""
    full = max(donor["sessions"], key=lambda s: len(s["entries"]))
    early = slower_variants(full, 3.0, "2026-01-01T00:00:00Z")
    middle = slower_variants(full, 1.0, "2026-01-02T00:00:00Z")
    late = slower_variants(full, 1.0, "2026-01-03T00:00:00Z")
    found = calibrated(donor["machine"], [early, middle, late])
    forward = [c for c in found.checks if c.scheme == "forward"]
    assert {c.sitting for c in forward} == {"day 2026-01-02", "day 2026-01-03"}
    middle_checks = [c for c in forward if c.sitting == "day 2026-01-02"]
    assert all(c.fitted_sittings == 1 for c in middle_checks)
    assert sum(c.inside for c in middle_checks) <= 0.05 * len(middle_checks)


def check(sitting: str, inside: bool, stratum: str = "compute") -> calibration.Check:
    return calibration.Check(
        scheme="sitting", machine="m", stack="s", sitting=sitting, session=sitting,
        pair="p", stratum=stratum, inside=inside, fitted_sittings=2, basis="own sittings",
    )  # fmt: skip


def test_the_coverage_interval_resamples_sittings_not_checks():
    """Sittings that each put 9 of 10 inside give 90% and no spread at all, however many
    checks; sittings that differ give an interval around the share; two sittings give none."""
    same = [check(f"day {d}", i < 9) for d in range(4) for i in range(10)]
    found = calibration.cluster_coverage(same)
    assert (found.inside, found.compared, found.sittings) == (36, 40, 4)
    assert found.low == pytest.approx(0.9) and found.high == pytest.approx(0.9)
    apart = [check(f"day {d}", i < 3 + 2 * d) for d in range(4) for i in range(10)]
    spread = calibration.cluster_coverage(apart)
    assert spread.low < spread.share < spread.high
    assert spread == calibration.cluster_coverage(apart)  # seeded: the same every render
    assert calibration.cluster_coverage(apart[:20]).low is None


def test_the_target_needs_the_share_and_the_intervals_lower_end():
    high_but_wide = calibration.Coverage(95, 100, 5, 2, low=0.80, high=0.99)
    assert not high_but_wide.meets_target
    assert calibration.Coverage(95, 100, 5, 2, low=0.90, high=0.99).meets_target
    assert not calibration.Coverage(95, 100, 2, 1, low=None, high=None).meets_target


def test_the_round_only_yardstick_is_where_a_second_exact_session_lands():
    assert calibration.ROUND_ONLY_IDEAL == pytest.approx(0.834, abs=0.001)
