"""A variant is noisier than usual only against its own spread on its machine and stack
(scripts/findings/noisy.py): a variant that always spreads widely marks nothing."""

from __future__ import annotations

from scripts.findings import noisy
from scripts.measuring import run_summary


def session(session_id: str, spreads: dict[str, float], stack: str = "tf216-keras3") -> dict:
    entries = {key: {"stats": {"iqr_over_median": value}} for key, value in spreads.items()}
    noisy_count = sum(1 for value in spreads.values() if value > 0.10)
    return {
        "id": session_id, "stack": stack, "entries": entries, "variants": len(entries),
        "noisy_variants": noisy_count, "marked_noisy": noisy_count * 2 > len(entries),
    }  # fmt: skip


USUAL = {"wide": 0.20, "tight": 0.03, "calm": 0.04}


def test_a_variant_that_always_spreads_widely_is_not_noisier_than_usual():
    sessions = [session(f"s{i}", USUAL) for i in range(3)]
    sessions.append(session("new", {"wide": 0.22, "tight": 0.12, "calm": 0.09}))
    found = noisy.session_noise(sessions, "new")
    assert found.judged == 3
    assert found.noisier == ("tight",)  # wide is as wide as ever; calm doubled but under 10%
    assert not found.unusual


def test_a_session_is_unusual_when_most_of_its_judged_variants_are_noisier():
    sessions = [session(f"s{i}", USUAL) for i in range(2)]
    sessions.append(session("new", {"wide": 0.45, "tight": 0.12, "calm": 0.05, "fresh": 0.3}))
    found = noisy.session_noise(sessions, "new")
    assert (found.judged, found.noisier, found.unusual) == (3, ("tight", "wide"), True)


def test_the_usual_spread_leaves_the_judged_session_out():
    sessions = [session("a", {"v": 0.02}), session("b", {"v": 0.30})]
    assert noisy.usual_spread(sessions, "v", "b") == 0.02
    assert noisy.session_noise(sessions, "b").noisier == ("v",)
    assert noisy.session_noise(sessions, "a").noisier == ()


def test_measure_says_what_was_noisier_than_usual_and_when_it_cannot_say():
    first = session("2026-01-01T00:00:00Z", {"wide": 0.2, "tight": 0.03})
    alone = run_summary.noise_words({"sessions": [first]}, first["id"])
    assert "1 of 2 variants spread over 10%" in alone and "No earlier session" in alone
    again = session("2026-01-02T00:00:00Z", {"wide": 0.2, "tight": 0.2})
    words = run_summary.noise_words({"sessions": [first, again]}, again["id"])
    assert "1 of 2 variants noisier than usual" in words and "unusual session" not in words
    other_stack = session("2026-01-03T00:00:00Z", {"wide": 0.2}, stack="tf221-keras3")
    assert "No earlier session" in run_summary.noise_words(
        {"sessions": [first, other_stack]}, other_stack["id"]
    )
