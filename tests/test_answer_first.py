"""Pages put the answer first (issue 36): the factor pages' order, tune where readers need it,
the machines' full descriptions once per page, and a claim box short enough to read."""

from __future__ import annotations

import re

import pytest

from scripts import prose_measure
from scripts.core import store
from scripts.tuning import experiments

DOCS = prose_measure.DOCS
TUNE = re.compile(r'`make tune FILE=my_model\.py(?: ARGS="((?:--only [a-z]+ ?)+)")?`')


def factor_pages() -> list[str]:
    return sorted(
        p.name
        for p in DOCS.glob("*.md")
        if '--8<-- "docs/_generated/claims/' in p.read_text(encoding="utf-8")
        and p.name != "claims.md"
    )


def h2_titles(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    return re.findall(
        r"^## (.+?)(?: \{[^}]*\})?$", re.sub(r"```.*?```", "", text, flags=re.S), re.M
    )


def what_to_do(page: str) -> list[str]:
    """The numbered items of the page's What to do section, each joined into one line."""
    text = (DOCS / page).read_text(encoding="utf-8")
    section = text.split("\n## What to do\n", 1)[1].split("\n## ", 1)[0]
    items: list[str] = []
    for line in section.splitlines():
        if re.match(r"\d+\. ", line):
            items.append(line)
        elif line.strip() and items:
            items[-1] += " " + line.strip()
    return items


def test_the_factor_pages_are_the_pages_with_claim_boxes():
    assert len(factor_pages()) >= 10, factor_pages()


@pytest.mark.parametrize("page", factor_pages())
def test_in_short_then_what_to_do_then_explanation_then_claims(page):
    text = (DOCS / page).read_text(encoding="utf-8")
    titles = h2_titles(page)
    assert titles[0] == "What to do", f"{page}: the first section is {titles[0]!r}"
    assert text.index('!!! abstract "In short"') < text.index("\n## What to do\n")
    claims = next(i for i, t in enumerate(titles) if t.startswith("The claims, and what"))
    assert claims >= 2, f"{page}: the claims come before any explanation: {titles}"


@pytest.mark.parametrize("page", factor_pages())
def test_what_to_do_links_its_evidence_and_ends_with_tune(page):
    items = what_to_do(page)
    assert len(items) >= 2, page
    unlinked = [item for item in items if "](" not in item and "][" not in item]
    assert not unlinked, f"{page}: lines without a link to their evidence: {unlinked}"
    command = TUNE.search(items[-1])
    assert command, f"{page}: the last line of What to do is not a make tune command"
    named = re.findall(r"--only ([a-z]+)", command.group(1) or "")
    unknown = set(named) - set(experiments.ORDER)
    assert not unknown, f"{page}: --only {unknown} is not one of tune's {experiments.ORDER}"
    assert "](tune.md)" in items[-1], f"{page}: the tune line does not link to Tune"


def test_in_short_ends_with_the_action():
    for page in factor_pages():
        text = (DOCS / page).read_text(encoding="utf-8")
        box = text.split('!!! abstract "In short"', 1)[1].split("\n## ", 1)[0]
        bullets = [b for b in re.split(r"\n    - ", box) if b.strip()]
        assert bullets[-1].startswith("What to do:"), f"{page}: {bullets[-1][:60]!r}"


@pytest.mark.parametrize("page", ["index.md", "doctor.md"])
def test_tune_is_linked_where_readers_need_it(page):
    assert "](tune.md)" in (DOCS / page).read_text(encoding="utf-8")


def descriptions() -> list[str]:
    """Every committed machine's full description, longest first."""
    found = {d["machine"]["description"] for d in store.read_all()}
    return sorted(found, key=len, reverse=True)


def description_counts(text: str, known: list[str]) -> dict[str, int]:
    """How often each description stands on its own in the text (one that is the start of a
    longer one is not counted inside it)."""
    counts = {}
    for description in known:
        longer = [d for d in known if d != description and description in d]
        counts[description] = text.count(description) - sum(text.count(d) for d in longer)
    return counts


@pytest.mark.parametrize("page", prose_measure.nav_pages())
def test_a_machines_full_description_appears_at_most_once_per_page(page):
    text = "\n".join(line for line, _ in prose_measure.expanded(DOCS / page))
    counts = description_counts(text, descriptions())
    repeated = {d: n for d, n in counts.items() if n > 1}
    assert not repeated, f"{page}: full machine descriptions repeated (use the short name)"


def test_description_counts_tell_a_prefix_from_the_longer_description():
    known = ["Xeon, AVX-512", "Xeon, AVX-512, AMX"]
    counts = description_counts("Xeon, AVX-512, AMX and Xeon, AVX-512, AMX", known)
    assert counts == {"Xeon, AVX-512": 0, "Xeon, AVX-512, AMX": 2}


def visible_box(fragment: str, claim_id: str) -> str:
    """A claim's admonition as a reader first sees it: its collapsed blocks left out."""
    start = fragment.index(f'"{claim_id}: ')
    start = fragment.rfind("\n", 0, start) + 1
    end = fragment.find("\n!!! ", start)
    box = fragment[start : end if end > 0 else len(fragment)]
    shown, collapsed = [], None
    for line in box.splitlines():
        indent = len(line) - len(line.lstrip())
        if collapsed is not None and (not line.strip() or indent > collapsed):
            continue
        collapsed = indent if line.lstrip().startswith("??? ") else None
        if collapsed is None:
            shown.append(line)
    return "\n".join(shown)


def test_c1b_box_is_short_with_its_details_collapsed():
    fragment = (DOCS / "_generated" / "claims" / "input-pipeline.md").read_text(encoding="utf-8")
    box = visible_box(fragment, "C1b")
    full = fragment[fragment.index('"C1b: ') :].split("\n!!! ", 1)[0]
    assert "??? note" in full, "C1b's details are not in a collapsed block"
    assert "Why this range" in full and "Why this range" not in box
    count = prose_measure.words(box)
    assert count <= 160, f"C1b's box shows {count} words with its details collapsed"
