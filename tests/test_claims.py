"""Each claim's rows agree with every machine's and stack's current results, and its headline
verdict keeps the written rule (scripts/findings/claim_rows.py)."""

from __future__ import annotations

import copy
import json
import re

import pytest
import yaml

from scripts.core import claims, data_formats, outcomes
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings
from scripts.rendering import claim_boxes, stack_verdicts
from scripts.rendering.names import compared

CLAIMS = claims.load()
EVIDENCE = [(c["id"], e) for c in CLAIMS for e in c.get("evidence", [])]


@pytest.fixture(scope="module")
def stack_rows(committed_files) -> list[claim_rows.Row]:
    views = results_views.stack_views(committed_files)
    return claim_rows.rows(CLAIMS, Findings(views), views)


def test_claim_ids_are_unique_and_pages_exist(root):
    ids = [c["id"] for c in CLAIMS]
    assert len(ids) == len(set(ids))
    for claim in CLAIMS:
        assert (root / "docs" / claim["page"]).exists(), f"{claim['id']}: no page {claim['page']}"


@pytest.mark.parametrize(
    "claim_id, evidence", EVIDENCE, ids=[f"{c}-{e['variant']}" for c, e in EVIDENCE]
)
def test_every_contradicted_row_is_recorded_and_every_record_contradicted(
    claim_id, evidence, stack_rows
):
    """Contradicted (the whole long-run interval outside the range) fails unless the claim's
    file records it for that machine and stack (`contradicted_on`, shown on the page); a
    record the data no longer bear out fails too. Inconclusive is shown, not a failure."""
    mine = [row for row in stack_rows if row.evidence is evidence]
    assert mine, f"{claim_id}: no machine has current results for this evidence"
    for row in mine:
        found = row.found
        where = (
            f"{claim_id}: on {row.machine} ({row.stack}) {evidence['variant']} vs "
            f"{evidence['baseline']} is {found.point:.2f}× ({found.low:.2f}–{found.high:.2f})"
        )
        assert found.low <= found.point <= found.high, f"{where}, outside its own interval"
        assert found.band_low <= found.low and found.high <= found.band_high, where
        contradicted = row.outcome == outcomes.CONTRADICTED
        assert not contradicted or row.recorded, (
            f"{where}, but the verdict needs {claims.expectation_words(evidence)}: the data "
            f"contradict it; revise the verdict or record it under contradicted_on for "
            f"{row.machine} (stack {row.stack}) in data/claims/ (a range never moves)"
        )
        assert contradicted or not row.recorded, (
            f"{where} is no longer contradicted: remove its contradicted_on record"
        )


@pytest.mark.parametrize("claim", CLAIMS, ids=[c["id"] for c in CLAIMS])
def test_every_headline_verdict_keeps_the_written_rule(claim, stack_rows):
    """How we measure's rule for each headline verdict, against the claim's rows on every
    machine and stack: the words change to fit the data, never the range."""
    problem = claim_rows.headline_problem(claim, [r for r in stack_rows if r.claim is claim])
    assert problem is None, f"{claim['id']} ({claim['verdict']}): {problem}"


def _row(outcome: str, analogue: bool = False, recorded: bool = False) -> claim_rows.Row:
    evidence = {"variant": "a:x", "baseline": "a:y", "at_least": 1.2}
    if analogue:
        evidence.update(analogue=True, shows="s")
    if recorded:
        evidence["contradicted_on"] = [{"machine": "m", "why": "w"}]
    return claim_rows.Row({}, evidence, "m", "d", "s", None, outcome)


S, U, C = outcomes.SUPPORTED, outcomes.INCONCLUSIVE, outcomes.CONTRADICTED


@pytest.mark.parametrize(
    "verdict, found, sources, allowed",
    [("holds", [S, S], False, True), ("holds", [S, U], False, True),
     ("holds", [U, U, U], True, False),  # C1e's case at 3f6969e
     ("holds", [S, U, U], False, False), ("holds", [S, C], False, False),
     ("wrong", [S], False, True), ("wrong", [C], False, False),
     ("holds with conditions", [S, U, U], False, True),
     ("holds with conditions", [S, C], False, False),  # C1c's case: contradicted, unrecorded
     ("holds with conditions", [U, U], False, False), ("wrong here", [S, U], False, True),
     ("reported", [], True, True), ("reported", [], False, False),
     ("reported", [C], True, False), ("cannot be tested here", [S], True, False),
     ("holds", [], False, False), ("holds", [], True, True)],
)  # fmt: skip
def test_the_written_rule_refuses_what_it_says_it_refuses(verdict, found, sources, allowed):
    claim = {"id": "C0a", "verdict": verdict, "sources": [{"title": "t", "url": "u"}] * sources}
    rows = [_row(outcome) for outcome in found]
    assert (claim_rows.headline_problem(claim, rows) is None) is allowed


def test_a_recorded_contradiction_passes_the_rule_and_analogues_do_not_count():
    claim = {"id": "C0a", "verdict": "holds with conditions", "sources": []}
    assert claim_rows.headline_problem(claim, [_row(S), _row(C, recorded=True)]) is None
    claim["verdict"] = "holds"
    assert claim_rows.headline_problem(claim, [_row(S), _row(C, analogue=True)]) is None
    assert claim_rows.headline_problem(claim, [_row(C, analogue=True)]) is not None
    claim["verdict"] = "wrong"  # C12a's case: a mechanism and a supporting analogue, no source
    assert claim_rows.headline_problem(claim, [_row(S, analogue=True)]) is None
    assert claim_rows.headline_problem(claim, [_row(U, analogue=True)]) is not None


def test_a_recorded_contradiction_is_shown_and_a_missing_record_is_refused(committed_files):
    """A claim box shows what the claim's file records about a contradicted machine."""
    views = results_views.stack_views(committed_files)
    findings = Findings(views)
    row = next(r for r in claim_rows.rows(CLAIMS, findings, views) if not r.analogue)
    evidence = dict(row.evidence)
    evidence.pop("at_least", None)
    evidence.pop("contradicted_on", None)
    evidence["below"] = row.found.low / 2  # a range the whole interval lies above
    evidence["contradicted_on"] = [{"machine": row.machine, "stack": row.stack, "why": "Seen."}]
    claim = {"id": "C0a", "factor": "F0", "page": "p.md", "claim": "c", "verdict": "holds",
             "why": "w", "evidence": [evidence]}  # fmt: skip
    claims.check(claim, "test")
    view = next(v for v in views if (v["machine"]["id"], v["stack"]) == (row.machine, row.stack))
    fragment = claim_boxes.page_fragment([claim], [view], "p.md", findings=findings)
    assert "✗" in fragment and "| Seen. |" in fragment
    evidence["contradicted_on"] = [{"machine": row.machine}]
    with pytest.raises(
        claims.ClaimsError, match=r"evidence\[0\].contradicted_on\[0\]: missing field"
    ):
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
def test_an_outcome_reads_the_whole_interval_against_the_range(bounds, expected):
    assert outcomes.row_outcome(1.2, 3.0, *bounds) == expected


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


def test_claims_page_lists_each_claims_sources_under_the_table_not_in_it(root):
    """A row says how many sources its claim cites; the links follow the table, claim by
    claim, so no cell carries a list of titles."""
    page = (root / "docs" / "_generated" / "claims" / "all.md").read_text()
    table, _, below = page.partition("\n\n")
    for claim in CLAIMS:
        row = next(line for line in table.splitlines() if line.startswith(f"| {claim['id']} |"))
        links = claim_boxes.source_list(claim)
        assert not any(link in row for link in links), claim["id"]
        if links:
            count = f"{len(links)} source{'s' if len(links) > 1 else ''}"
            assert f"cited: {count}, below" in row, claim["id"]
            listed = below.split(f"- **{claim['id']}**:\n", 1)[1].split("\n    - **")[0]
            assert [line.strip().removeprefix("- ") for line in listed.splitlines()] == links


UNTESTABLE = ("cannot be tested here",)


def test_claims_that_cannot_be_tested_here_label_their_evidence_as_analogues():
    """A verdict that cannot be tested here cannot show a measurement as if it tested the
    claim ("reported" may show measured rows that cannot tell yet: the written rule)."""
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
    with pytest.raises(
        claims.ClaimsError, match=r"test: evidence\[0\]: missing field\(s\) why_range"
    ):
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
    findings = Findings(committed_results)
    for _claim_id, evidence in EVIDENCE:
        if any(
            claim_rows.evidence_finding(findings, data, evidence) is not None
            for data in committed_results
        ):
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
    table_heads = [line for line in fragment.splitlines() if line.strip().startswith("| `")]
    labelled = [line for line in fragment.splitlines() if "| Analogue " in line]
    if analogue:
        assert labelled and not table_heads
        assert claims.ANALOGUE_NOTE in fragment
        assert "*What the analogue shows:* what the analogue shows, in one line" in fragment
    else:
        assert table_heads and not labelled and "Analogue" not in fragment


def test_every_analogue_in_the_claims_renders_as_one(committed_results):
    """On the pages, each analogue's table carries the analogue label in its head."""
    for claim in CLAIMS:
        fragment = claim_boxes.page_fragment(CLAIMS, committed_results, claim["page"])
        for evidence in claim.get("evidence", []):
            names = [claims.short_name(evidence[k]) for k in ("variant", "baseline")]
            shown = compared(evidence, *names)
            heads = [line.strip() for line in fragment.splitlines() if f"{shown}, needs" in line]
            label = f"| Analogue {claims.ANALOGUE_NOTE}: " if evidence.get("analogue") else "| `"
            assert all(line.startswith(label) for line in heads), (claim["id"], heads)


@pytest.mark.parametrize(
    "bounds, problem",    [({"below": 1.0}, "no faster"), ({"below": 1.05}, "no faster"), ({"below": 1.1}, None),
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


def test_a_hostile_claims_file_is_refused_naming_the_file_and_field(tmp_path):
    """load reads each file through data/claims.schema.json: a verdict out of the vocabulary
    and a contradiction without its reason are refused by file, claim and field."""
    hostile = [copy.deepcopy(next(claim for claim in CLAIMS if claim.get("evidence")))]
    hostile[0]["verdict"] = "<b>proven</b>"
    hostile[0]["evidence"][0]["contradicted_on"] = [{"machine": "m", "why": " "}]
    (tmp_path / "page.yml").write_text(yaml.safe_dump({"claims": hostile}), encoding="utf-8")
    with pytest.raises(claims.ClaimsError) as refused:
        claims.load(tmp_path)
    said = str(refused.value)
    assert said.startswith("page.yml: ")
    assert "claims[0].evidence[0].contradicted_on[0].why: ' ' does not match" in said
    assert "claims[0].verdict: expected one of 'holds'" in said


def test_the_schemas_verdicts_are_the_outcomes_headlines():
    schema = json.loads(data_formats.schema_path("claims").read_text(encoding="utf-8"))
    allowed = schema["properties"]["claims"]["items"]["properties"]["verdict"]["enum"]
    assert sorted(allowed) == sorted(outcomes.HEADLINES)


def test_claims_page_says_what_each_mark_of_its_measured_column_means(root):
    """The Measured column counts rows by mark; the page names each mark with its outcome word
    and links to How we measure, where the outcomes are explained."""
    page = (root / "docs" / "claims.md").read_text(encoding="utf-8")
    for outcome in outcomes.ROW_OUTCOMES:
        assert f"**{stack_verdicts.MARKS[outcome]} {outcome}**:" in page, (
            f"docs/claims.md: no legend for {outcome}"
        )
    assert "(how-we-measure.md#how-to-read-a-row)" in page, "docs/claims.md: no link to the marks"
