"""Each measured claim's verdict agrees with every machine's current results."""

from __future__ import annotations

import re

import pytest

from scripts import claims

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
    checked = 0
    for data in committed_results:
        ratio = claims.speedup(data, evidence)
        if ratio is None:
            continue
        checked += 1
        assert claims.agrees(evidence, ratio), (
            f"{claim_id}: on {data['machine']['description']} {evidence['variant']} vs "
            f"{evidence['baseline']} is {ratio:.2f}×, but the verdict needs "
            f"{claims.expectation_words(evidence)}; revise the verdict in data/claims/"
        )
    assert checked, f"{claim_id}: no machine has current results for this evidence"


def test_every_claim_on_a_page_is_shown_by_that_page(root):
    for claim in CLAIMS:
        name = claim["page"].removesuffix(".md")
        page = (root / "docs" / claim["page"]).read_text()
        assert f'--8<-- "docs/_generated/claims/{name}.md"' in page, claim["page"]


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
