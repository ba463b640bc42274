"""Pages per software stack: the default stack's view stays as it was when another stack's
sessions join a file; claim boxes, factor pages, the Results page and What changed show each
(machine, stack), from synthetic multi-stack results built on a committed file."""

from __future__ import annotations

import copy
import re

import pytest

from scripts.core import (
    claims,
    mac_recipes,
    measured_stacks,
    outcomes,
    provenance,
    stack_changes,
)
from scripts.core import store as results
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings
from scripts.rendering import (
    names,
    render,
    results_page,
    stack_changes_page,
    stack_comparison,
    stack_matrix,
    stack_verdicts,
)

NEW_STACK = "tf221-keras3"
NEW_SOFTWARE = {"tensorflow": "2.21.0", "keras": "3.15.1", "numpy": "2.4.6"}
LATER = "2099-01-01T00:00:00Z"
# What another stack's session may change: the per-stack parts, the machines table, which
# counts every session a file keeps, of every stack, and the held-back check, which reads every
# stack.
STACK_PARTS = (
    "claims/", "stacks/", "results/stack", stack_matrix.GLANCE_OUTPUT, stack_changes_page.OUTPUT,
    "machines.md", "calibration.md",
)  # fmt: skip
TIMES = ("first_call_s", "max_s", "median_s", "min_s", "q1_s", "q3_s")


@pytest.fixture(scope="module")
def base(root) -> dict:
    """The smallest committed file, every entry marked as measured on today's snippet, so the
    claims read it whatever the snippets' state."""
    path = min((root / "results").glob("*.json"), key=lambda p: p.stat().st_size)
    data = results.read(path)
    for session in data["sessions"]:
        for entry in session["entries"].values():
            entry["snippet_sha256"] = provenance.file_sha256(root / entry["snippet_path"])
    return data


@pytest.fixture(scope="module")
def evidence(base, root) -> tuple[dict, dict]:
    """A claim and evidence item with an at_least bound that the base file supports."""
    view = results_views.unchecked_views([base])[0]
    findings = Findings([view])
    for claim in claims.load():
        for item in claim.get("evidence", []):
            found = claim_rows.evidence_finding(findings, view, item, root)
            if (
                found
                and "at_least" in item
                and item.get("baseline_stat", "median_s") == "median_s"
                and found.outcome(item) == outcomes.SUPPORTED
            ):
                return claim, item
    pytest.skip("no supported at_least evidence in the smallest committed file")


def with_stack(data: dict, variant: str, slower: float, software=NEW_SOFTWARE) -> dict:
    """data with its last session measured again on another stack, the variant `slower`
    times slower."""
    data = copy.deepcopy(data)
    session = copy.deepcopy(data["sessions"][-1])
    for key, entry in session["entries"].items():
        entry["software"] = {**entry["software"], **software}
        if key == variant:
            stats = entry["stats"]
            for field in TIMES:
                if stats.get(field) is not None:
                    stats[field] *= slower
            stats["times_s"] = [t * slower for t in stats.get("times_s", [])]
            if entry.get("speedup"):
                for field in ("point", "low", "high"):
                    entry["speedup"][field] /= slower
    session.update(id=LATER, stack=results.software_stack.name(software))
    data["sessions"].append(session)
    results.check(data, "synthetic")
    return data


def rendered(files: list[dict], causes=()) -> dict[str, str]:
    return render.render_all(
        results_views.unchecked_views(files),
        claims.load(),
        results_page.load_reference(),
        stack_data=results_views.stack_views(files),
        causes=list(causes),
    )


@pytest.fixture(scope="module")
def moved_file(base, evidence) -> dict:
    return with_stack(base, evidence[1]["variant"], slower=100.0)


@pytest.fixture(scope="module")
def base_render(base) -> dict[str, str]:
    return rendered([base])


@pytest.fixture(scope="module")
def moved_render(moved_file) -> dict[str, str]:
    return rendered([moved_file])


def test_another_stacks_sessions_never_enter_the_default_view(base, moved_file):
    before, after = results_views.view(base), results_views.view(moved_file)
    assert after["entries"] == before["entries"] and after["sessions"] == before["sessions"]
    default = results_views.view(moved_file, stack=measured_stacks.DEFAULT)
    assert default["entries"] == before["entries"]
    new = results_views.view(moved_file, stack=NEW_STACK)
    assert [s["id"] for s in new["sessions"]] == [LATER]
    assert {e["software"]["tensorflow"] for e in new["entries"].values()} == {"2.21.0"}
    stacks = results_views.stacks_in(moved_file)
    assert stacks == [measured_stacks.DEFAULT, NEW_STACK]
    assert [v["stack"] for v in results_views.stack_views([moved_file])] == stacks


def test_a_file_of_one_other_stack_is_read_as_that_stack_unless_named(base, moved_file):
    only_new = dict(moved_file, sessions=moved_file["sessions"][-1:])
    assert results_views.view(only_new)["stack"] == NEW_STACK
    assert results_views.view(only_new, stack=measured_stacks.DEFAULT)["entries"] == {}
    assert results_views.unchecked_views([only_new])[0]["entries"] == {}  # pages: default only


def test_default_pages_are_unchanged_by_another_stack(base_render, moved_render):
    """Everything but the per-stack parts renders as before (one extra session of another
    stack adds no between-session spread either)."""
    assert set(moved_render) == set(base_render)
    changed = [name for name in base_render if moved_render[name] != base_render[name]]
    assert changed and all(name.startswith(STACK_PARTS) for name in changed), changed


def test_claim_box_has_a_column_per_stack_and_says_where_the_stacks_differ(
    moved_render, base_render, evidence
):
    claim, item = evidence
    page = claim["page"].removesuffix(".md")
    box = block(moved_render[f"claims/{page}.md"], claim["id"])
    columns = [names.stack(s) for s in (measured_stacks.DEFAULT, NEW_STACK)]
    head = next(line for line in box.splitlines() if " | ".join(columns) in line)
    row = box.splitlines()[box.splitlines().index(head) + 2]
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    assert cells[1].endswith("✓") and cells[2].endswith("✗"), row
    assert "The speed-up differs between stacks" in box
    alone = block(base_render[f"claims/{page}.md"], claim["id"])
    assert "differs between stacks" not in alone and names.stack(NEW_STACK) not in alone


def test_no_differs_sentence_when_the_stacks_agree(base, evidence):
    claim, item = evidence
    same = rendered([with_stack(base, item["variant"], slower=1.0)])
    box = block(same[f"claims/{claim['page'].removesuffix('.md')}.md"], claim["id"])
    assert names.stack(NEW_STACK) in box
    assert "differs between stacks" not in box
    assert "No claim moved" in same[stack_changes_page.OUTPUT]


def test_factor_page_part_compares_stacks_or_says_which_is_shown(
    moved_render, base_render, evidence
):
    claim, item = evidence
    name = stack_comparison.output_name(claim["page"])
    alone = base_render[name]
    assert "from [TF 2.16 + Keras 3](results.md#stack-tf216-keras3)" in alone
    assert "Not measured yet on any machine: [TF 2.16 + tf-keras](results.md#stack-" in alone
    part = moved_render[name]
    header = " | ".join(
        f"[{names.stack(s)}](results.md#stack-{s})" for s in (measured_stacks.DEFAULT, NEW_STACK)
    )
    assert f"| Claim | Compared | {header} |" in part
    row = next(line for line in part.splitlines() if line.startswith(f"| {claim['id']} |"))
    assert "✓" in row and "✗" in row
    for text in (alone, part):
        assert_no_stack_id_in_words(text)


def assert_no_stack_id_in_words(text: str) -> None:
    """Readers see stacks by name: an id may only be a link's target, never in the words."""
    words = re.sub(r"\]\([^)]*\)", "]", text)
    for stack in measured_stacks.load():
        assert stack.id not in words, f"stack id {stack.id!r} in the prose: {words}"


def test_factor_page_part_says_whether_the_recommended_mac_stack_differs(base_render, evidence):
    """The recommended stack is derived from data/mac_recipes.json, not typed."""
    part = base_render[stack_comparison.output_name(evidence[0]["page"])]
    assert stack_comparison.recommended_stack() == "tf216-tf-keras"
    setup = "[Set up's recommended Mac recipe](setup.md#which-stack-to-install-on-a-mac) installs"
    assert (
        f"{setup} the TensorFlow and Keras of another stack, "
        "[TF 2.16 + tf-keras](results.md#stack-tf216-tf-keras)." in part
    )
    same = stack_comparison.recommended_words("tf216-tf-keras")
    assert same == f"{setup} this stack's TensorFlow and Keras."
    recipes = copy.deepcopy(mac_recipes.load())
    recommended = next(r for r in recipes["recipes"] if r["id"] == recipes["recommended"])
    recommended["match"]["tensorflow"] = ["2.12"]
    assert stack_comparison.recommended_stack(recipes) is None
    none = stack_comparison.recommended_words("tf216-keras3", recipes)
    assert none == f"{setup} a TensorFlow and Keras that no measured stack has."


def test_results_matrix_and_a_section_per_stack(moved_render, moved_file, evidence):
    matrix = moved_render[stack_matrix.MATRIX_OUTPUT]
    date = LATER[:10]
    row = next(line for line in matrix.splitlines() if "session" in line)
    assert f"| 1 session, latest {date} |" in row or f"latest {date}" in row
    assert "| not measured |" in row  # tf216-tf-keras
    verdicts = moved_render[stack_matrix.VERDICTS_OUTPUT]
    for stack in measured_stacks.load():
        assert f"{{#stack-{stack.id}}}" in verdicts
    section = verdicts.split("{#stack-tf216-tf-keras}")[1].split("###")[0]
    assert "Not measured yet on any machine." in section
    new = verdicts.split(f"{{#stack-{NEW_STACK}}}")[1]
    assert f"[{evidence[0]['id']}]({evidence[0]['page']})" in new and "contradicted" in new


def test_what_changed_lists_the_move_with_its_cause_or_cause_not_found(
    moved_file, moved_render, evidence
):
    claim = evidence[0]
    page = moved_render[stack_changes_page.OUTPUT]  # rendered([moved_file]), made once
    row = next(line for line in page.splitlines() if f"[{claim['id']}]" in line)
    assert row.rstrip().endswith("| cause not found |")
    cause = stack_changes.Cause(
        claim["id"], measured_stacks.DEFAULT, NEW_STACK, "A changed kernel.",
        "https://github.com/tensorflow/tensorflow/releases/tag/v2.21.0", "v2.21.0",
    )  # fmt: skip
    page = rendered([moved_file], [cause])[stack_changes_page.OUTPUT]
    row = next(line for line in page.splitlines() if line.startswith(f"| [{claim['id']}]"))
    assert row.rstrip().endswith("| cause 1, below |")
    assert (
        f"\n1. **{claim['id']}**, TF 2.16 + Keras 3 to TF 2.21 + Keras 3 ([source]"
        "(https://github.com/tensorflow/tensorflow/releases/tag/v2.21.0), read at `v2.21.0`). "
        "A changed kernel.\n"
    ) in page
    other = stack_changes.Cause("C99z", *cause.key[1:], cause.cause, cause.source, cause.tag)
    views = results_views.stack_views([moved_file])
    moves = stack_changes_page.moves(claims.load(), views)
    assert stack_changes_page.stale([cause, other], moves) == [other]


def test_strings_from_results_files_are_escaped_in_every_stack_part(moved_file):
    hostile = copy.deepcopy(moved_file)
    hostile["machine"]["description"] = "M <b>x</b> [a](javascript:y) *z*"
    files = rendered([hostile])
    parts = {name: text for name, text in files.items() if name.startswith(STACK_PARTS)}
    shown = [name for name, text in parts.items() if "M &lt;b&gt;x&lt;/b&gt;" in text]
    assert shown, "the machine's description appears in no stack part"
    for name, text in parts.items():
        assert "<b>" not in text and "[a](javascript" not in text, name


def test_stack_changes_file_needs_a_source_link(tmp_path):
    path = tmp_path / "stack_changes.yml"
    path.write_text(
        "changes:\n  - claim: C1a\n    stacks: [tf216-keras3, tf221-keras3]\n"
        "    cause: something changed\n    tag: v2.21.0\n"
    )
    with pytest.raises(
        stack_changes.StackChangesError, match=r"changes\[0\]: missing field\(s\) source"
    ):
        stack_changes.load(path)


def test_committed_causes_are_for_claims_that_moved(committed_files):
    """A cause whose claim no longer moves between its stacks is stale: remove it."""
    moves = stack_changes_page.moves(claims.load(), results_views.stack_views(committed_files))
    stale = stack_changes_page.stale(stack_changes.load(), moves)
    assert not stale, [f"{c.claim} {c.from_stack}->{c.to_stack}" for c in stale]


def block(fragment: str, claim_id: str) -> str:
    """One claim's admonition from a page's claims fragment."""
    return fragment.split(f'"{claim_id}: ')[1].split("\n!!! ")[0]


def test_the_moves_sentence_names_each_machine_once_for_three_stacks():
    """Three stacks that differ make one list of machines, never 'X but Y but Z' (the
    mac-advice review's C4): the per-stack figures are in the table beside it."""
    from scripts.findings.pairs import Finding
    from scripts.rendering import claim_boxes

    evidence = {"variant": "feeding/feeding:fit", "baseline": "feeding/feeding:loop"}

    def row(stack: str, point: float) -> stack_verdicts.Figure:
        found = Finding("machine-q", stack, "b", "v", "median_s", point, point * 0.95, point * 1.05,
                        point * 0.9, point * 1.1, 1, 1, "compute", "own sittings", 0.02, 4)  # fmt: skip
        return stack_verdicts.Figure(
            {"id": "C0"}, evidence, "machine-q", "M", stack, found, "supported"
        )

    sentence = claim_boxes.moves_sentence([row("a", 1.0), row("b", 2.0), row("c", 4.0)])
    assert " but " not in sentence and sentence.count(names.machine("machine-q")) == 1
    assert claim_boxes.moves_sentence([row("a", 1.0), row("b", 1.01)]) is None


def test_claims_named_on_what_changed_are_rows_of_its_table(root):
    """Every claim id the hand-written text of What changed names is a row of the generated
    table it includes, so the words never point at a move the table does not show."""
    page = (root / "docs" / "stack-changes.md").read_text(encoding="utf-8")
    prose = "\n".join(line for line in page.splitlines() if "--8<--" not in line)
    table = (root / "docs" / "_generated" / stack_changes_page.OUTPUT).read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| \[(C\d+[a-z])\]", table, flags=re.MULTILINE))
    named = set(re.findall(r"\bC\d+[a-z]\b", prose))
    assert named, "docs/stack-changes.md names no claim id: the pattern or the page changed"
    missing = sorted(named - rows)
    assert not missing, (
        f"docs/stack-changes.md names {missing}, not rows of {stack_changes_page.OUTPUT}"
    )
