"""Each measured claim's verdict agrees with every machine's current results."""

from __future__ import annotations

import re

import pytest

from scripts.core import claims
from scripts.rendering import claim_boxes

CLAIMS = claims.load()
EVIDENCE = [(c["id"], e) for c in CLAIMS for e in c.get("evidence", [])]


def test_claim_ids_are_unique_and_pages_exist(root):
    ids = [c["id"] for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for claim in CLAIMS:
        assert (root / "docs" / claim["page"]).exists(), f"{claim['id']}: no page {claim['page']}"


@pytest.mark.parametrize(
    "claim_id, evidence", EVIDENCE, ids=[f"{c}-{e['variant']}" for c, e in EVIDENCE]
)
def test_verdict_agrees_with_the_numbers(claim_id, evidence, committed_results):
    """Contradicted (the whole new-session interval, pooled over the machine's sessions,
    outside the range) fails unless the claim's file records it for that machine
    (`contradicted_on`, shown on the page); a record the data no longer bear out fails too.
    Inconclusive is shown on the pages, not a failure. Without timings, the point decides."""
    checked = 0
    for data in committed_results:
        ratio = claims.speedup(data, evidence)
        if ratio is None:
            continue
        checked += 1
        machine = data["machine"]["id"]
        bounds = claims.interval(data, evidence)
        recorded = claims.contradiction_recorded(evidence, machine)
        where = (
            f"{claim_id}: on {data['machine']['description']} {evidence['variant']} vs "
            f"{evidence['baseline']} is {ratio:.2f}×"
        )
        if bounds is None:
            assert claims.agrees(evidence, ratio) or recorded, where
            continue
        assert bounds[0] <= ratio <= bounds[1], f"{where}, outside its own interval {bounds}"
        contradicted = claims.status(evidence, bounds) == claims.CONTRADICTED
        assert not contradicted or recorded, (
            f"{where} ({bounds[0]:.2f}–{bounds[1]:.2f}), but the verdict needs "
            f"{claims.expectation_words(evidence)}: the data contradict it; revise the verdict "
            f"or record it under contradicted_on for {machine} in data/claims/ (a range never "
            "moves to make data pass)"
        )
        assert contradicted or not recorded, (
            f"{where} ({bounds[0]:.2f}–{bounds[1]:.2f}) is no longer contradicted: remove the "
            f"contradicted_on record for {machine}"
        )
    assert checked, f"{claim_id}: no machine has current results for this evidence"


def test_a_recorded_contradiction_is_shown_and_a_missing_record_is_refused(committed_results):
    """A claim box shows what the claim's file records about a contradicted machine."""
    data = next(d for d in committed_results if len(d["sessions"]) >= 2)
    evidence = next(
        dict(e) for _c, e in EVIDENCE
        if claims.pooled(data, e) is not None and not e.get("analogue")
    )  # fmt: skip
    found = claims.pooled(data, evidence)
    evidence.pop("at_least", None)
    evidence["below"] = found.new_low / 2  # a range the whole interval lies above
    assert claims.status(evidence, (found.new_low, found.new_high)) == claims.CONTRADICTED
    evidence["contradicted_on"] = [{"machine": data["machine"]["id"], "why": "Seen here, said."}]
    claim = {"id": "C0a", "factor": "F0", "page": "p.md", "claim": "c", "verdict": "holds",
             "why": "w", "evidence": [evidence]}  # fmt: skip
    claims.check(claim, "test")
    fragment = claim_boxes.page_fragment([claim], [data], "p.md")
    assert (
        "**contradicted**" in fragment and "*Recorded with the claim:* Seen here, said." in fragment
    )
    evidence["contradicted_on"] = [{"machine": data["machine"]["id"]}]
    with pytest.raises(claims.ClaimsError, match="contradicted_on"):
        claims.check(claim, "test")


def test_every_claim_on_a_page_is_shown_by_that_page(root):
    for claim in CLAIMS:
        name = claim["page"].removesuffix(".md")
        page = (root / "docs" / claim["page"]).read_text()
        assert f'--8<-- "docs/_generated/claims/{name}.md"' in page, claim["page"]


@pytest.mark.parametrize(
    "bounds, expected",
    [((1.3, 1.6), "supported"), ((1.1, 1.4), "inconclusive"), ((0.9, 1.1), "contradicted"),
     ((1.2, 1.2), "supported"), ((2.9, 3.1), "inconclusive"), ((3.0, 3.5), "contradicted")],
)  # fmt: skip
def test_status_reads_the_whole_interval_against_the_range(bounds, expected):
    evidence = {"variant": "a:x", "baseline": "a:y", "at_least": 1.2, "below": 3.0}
    assert claims.status(evidence, bounds) == expected


def test_a_contradicted_range_is_caught():
    evidence = {"variant": "a:x", "baseline": "a:y", "below": 1.0}
    assert claims.agrees(evidence, 0.8) and not claims.agrees(evidence, 1.2)
    evidence = {"variant": "a:x", "baseline": "a:y", "at_least": 0.8, "below": 1.25}
    assert not claims.agrees(evidence, 0.7) and not claims.agrees(evidence, 1.25)


def test_every_claim_of_the_factors_list_has_a_verdict(root):
    """FACTORS.md (the design's list, kept beside the repository) names every claim id."""
    factors = root.parent / "shared" / "FACTORS.md"
    if not factors.exists():
        pytest.skip(f"{factors} is not beside this checkout (CI has it)")
    expected = set(re.findall(r"\bC\d+[a-z]\b", factors.read_text()))
    assert expected, "no claim ids found in FACTORS.md"
    missing = sorted(
        expected - {c["id"] for c in CLAIMS}, key=lambda i: claims.claim_order({"id": i})
    )
    assert not missing, f"claims with no verdict in data/claims/: {missing}"


def test_claims_page_lists_every_claim(root):
    page = (root / "docs" / "_generated" / "claims" / "all.md").read_text()
    for claim in CLAIMS:
        assert f"| {claim['id']} |" in page, claim["id"]


UNTESTABLE = ("cannot be tested here", "reported")


def test_claims_that_cannot_be_tested_here_label_their_evidence_as_analogues():
    """A verdict that rests on sources cannot show a measurement as if it tested the claim."""
    for claim in CLAIMS:
        if claim["verdict"] not in UNTESTABLE:
            continue
        for evidence in claim.get("evidence", []):
            assert evidence.get("analogue") is True, (
                f"{claim['id']} ({claim['verdict']}): evidence {evidence['variant']} must be "
                "marked `analogue: true`, with `shows:` saying what it does show"
            )
            assert evidence["shows"].strip(), claim["id"]


def test_an_analogue_needs_to_say_what_it_shows():
    claim = {
        "id": "C0a", "factor": "F0", "page": "p.md", "claim": "c", "verdict": "reported",
        "why": "w", "evidence": [{"variant": "a:x", "baseline": "a:y", "below": 1.1,
                                  "analogue": True}],
    }  # fmt: skip
    claim["evidence"][0]["why_range"] = "why"
    with pytest.raises(claims.ClaimsError, match="shows"):
        claims.check(claim, "test")
    claim["evidence"][0]["shows"] = "what it shows"
    claims.check(claim, "test")


def test_every_range_says_why_and_names_no_measured_value():
    """A range is decided before the data: its reason must not quote a measured ratio."""
    claim = {
        "id": "C0a", "factor": "F0", "page": "p.md", "claim": "c", "verdict": "holds",
        "why": "w", "evidence": [{"variant": "a:x", "baseline": "a:y", "at_least": 1.2}],
    }  # fmt: skip
    with pytest.raises(claims.ClaimsError, match="needs `why_range`"):
        claims.check(claim, "test")
    for claim_id, evidence in EVIDENCE:
        why = evidence["why_range"]
        assert not re.search(r"\d+\.\d\d×|\d×", why), f"{claim_id}: {why}"
        assert not re.search(r"Xeon|EPYC|Intel|AMD", why), f"{claim_id}: names a machine"


def test_the_claim_box_shows_why_its_range(committed_results):
    evidence = _measured_evidence(committed_results)
    claim = next(c for c in CLAIMS if evidence in c.get("evidence", []))
    text = claim_boxes.page_fragment([claim], committed_results, claim["page"])
    assert "*Why this range:* " + " ".join(evidence["why_range"].split()) in text


def _measured_evidence(committed_results) -> dict:
    """A real evidence item that at least one machine has current results for."""
    for _claim_id, evidence in EVIDENCE:
        if any(claims.speedup(data, evidence) is not None for data in committed_results):
            return dict(evidence)
    pytest.skip("no evidence item has current results")


@pytest.mark.parametrize("analogue", [True, False])
def test_an_analogue_never_renders_as_a_plain_measurement(analogue, committed_results):
    evidence = _measured_evidence(committed_results)
    evidence.pop("analogue", None)
    evidence.pop("shows", None)
    if analogue:
        evidence.update(analogue=True, shows="what the analogue shows, in one line")
    claim = {
        "id": "C0a", "factor": "F0", "page": "p.md", "claim": "c", "verdict": "reported",
        "why": "w", "evidence": [evidence],
    }  # fmt: skip
    fragment = claim_boxes.page_fragment([claim], committed_results, "p.md")
    table = claim_boxes.summary_table([claim], committed_results)
    if analogue:
        assert "*Analogue measured on " in fragment and "*Analogue measured on " in table
        assert claims.ANALOGUE_NOTE in fragment and claims.ANALOGUE_NOTE in table
        assert "*Measured on " not in fragment and "measured: " not in table
        assert "the verdict needs" not in fragment
        assert "*What the analogue shows:* what the analogue shows, in one line" in fragment
    else:
        assert "*Measured on " in fragment and "measured: " in table
        assert "Analogue" not in fragment and "Analogue" not in table


def test_every_analogue_in_the_claims_renders_as_one(committed_results):
    """On the pages and the claims table, each analogue's numbers carry the analogue label."""
    table = claim_boxes.summary_table(CLAIMS, committed_results)
    for claim in CLAIMS:
        fragment = claim_boxes.page_fragment(CLAIMS, committed_results, claim["page"])
        row = next(line for line in table.splitlines() if line.startswith(f"| {claim['id']} |"))
        for evidence in claim.get("evidence", []):
            names = [claims.short_name(evidence[k]) for k in ("variant", "baseline")]
            shown = claims.compared(evidence, *names)
            lines = [line.strip() for line in fragment.splitlines() if shown in line]
            label = "*Analogue measured on " if evidence.get("analogue") else "*Measured on "
            assert all(line.startswith(label) for line in lines), (claim["id"], lines)
            cells = [cell for cell in row.split("<br>") if shown in cell]
            if evidence.get("analogue"):
                assert all("measured: " not in cell for cell in cells), (claim["id"], cells)


@pytest.mark.parametrize(
    "bounds, problem",
    [({"below": 1.0}, "no faster"), ({"below": 1.05}, "no faster"), ({"below": 1.1}, None),
     ({"below": 0.5}, None), ({"at_least": 1.0}, "no slower"), ({"at_least": 0.95}, "no slower"),
     ({"at_least": 0.909}, None), ({"at_least": 1.5}, None), ({"at_least": 0.9, "below": 1.3}, None)],
)  # fmt: skip
def test_a_no_difference_bound_keeps_the_margin(bounds, problem):
    """Issue 18 section 5: 'no faster' / 'no slower' bounds hold the NO_DIFFERENCE margin."""
    evidence = {"variant": "a:x", "baseline": "a:y", "why_range": "why", **bounds}
    found = claims.no_difference_problem(evidence)
    assert (found is None) if problem is None else (problem in found)
    claim = {"id": "Cx", "factor": "F1", "page": "p.md", "claim": "c", "verdict": "holds",
             "why": "w", "evidence": [evidence]}  # fmt: skip
    if problem is None:
        claims.check(claim, "x.yml: claims[0]")
    else:
        with pytest.raises(claims.ClaimsError, match="NO_DIFFERENCE"):
            claims.check(claim, "x.yml: claims[0]")
