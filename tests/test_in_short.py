"""Every "In short" box says only the directions its pages' measurements show (issue 34, item 5).

A directional statement in a page's `!!! abstract "In short"` box is followed, in the page
source, by an HTML comment naming what it rests on (a comment is not shown on the site):

    <!-- finding: VARIANT vs BASELINE DIRECTION on SCOPE [with STACK] -->
    <!-- cited: SOURCE-ID[, SOURCE-ID...] -->

- VARIANT, BASELINE: entry keys, "topic/snippet:variant"; the speed-up is the baseline's
  median over the variant's, as in the pages' tables.
- DIRECTION: "faster", "slower" or "no clear difference" (outcomes.FASTER, SLOWER,
  NO_CLEAR_DIFFERENCE), or "not faster" (no clear difference or slower) or "not slower".
- SCOPE: "every machine" (every machine with a current finding for the pair), "most machines"
  (more than half of those), or machine ids separated by commas.
- STACK: a measured stack id; without it the default stack, the one the factor pages show.
- cited: the statement rests on the sources named (data/sources.yml), not on this project's
  measurements, and is not checked against them.

The statement is the text between the previous marker (or the start of the bullet) and its
markers; markers with nothing but spaces between them belong to one statement.

The checks: every statement with a directional word has a marker (a), its words agree with
its markers (b), and each finding marker agrees with the long-run findings (scripts/findings)
on every machine in its scope whose entries measure today's snippets (c).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
import yaml

from scripts.core import measured_stacks, outcomes, store
from scripts.core.catalog import ROOT
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings

DOCS = ROOT / "docs"
BOX = '!!! abstract "In short"'

F, S, N = outcomes.FASTER, outcomes.SLOWER, outcomes.NO_CLEAR_DIFFERENCE

# What each marker direction allows the long-run finding to be.
DIRECTIONS = {
    "faster": {F},
    "slower": {S},
    "no clear difference": {N},
    "not faster": {N, S},
    "not slower": {N, F},
}

# Directional word families: each phrase with the findings it is true of. Negated and
# multiplied forms come first; a later phrase never counts inside an earlier one's match.
_NEG = r"(?:not|no|never|nor|cannot|can't|did not|didn't|does not|doesn't|no longer)"
WORDS: list[tuple[str, set[str]]] = [
    (rf"\b{_NEG}\s+(?:any\s+|much\s+|clearly\s+|measurably\s+)?(?:faster|quicker)\b", {N, S}),
    (rf"\b{_NEG}\s+(?:\w+\s+)?(?:help|helps|speed\s+\w+\s+up|speed\s+up|gain|win)\b", {N, S}),
    (r"\bno\s+(?:[\w-]+\s+){0,3}(?:speed-?ups?|gains?|wins?)\b", {N, S}),
    (r"\bfaster\s+on\s+(?:none|no\s+machine)\b", {N, S}),
    (rf"\b{_NEG}\s+(?:any\s+|much\s+|clearly\s+|measurably\s+)?slower\b", {N, F}),
    (r"\bslower\s+on\s+(?:none|no\s+machine)\b", {N, F}),
    (r"\b(?:twice|(?:\w+|\d+(?:\.\d+)?)\s+times)\s+as\s+fast\b", {F}),
    (r"\b(?:twice|(?:\w+|\d+(?:\.\d+)?)\s+times)\s+as\s+slow\b", {S}),
    (r"\bas\s+fast\s+as\b|\b(?:about|roughly|nearly)\s+as\s+fast\b", {N}),
    (r"\b(?:about|roughly|nearly)\s+the\s+same\s+time\b|\bno\s+clear\s+difference\b", {N}),
    (r"\blevel\s+with\b|\bflatten(?:s|ed)?\b", {N}),
    (r"\bfaster\b|\bquicker\b|\bspeed-?ups?\b", {F}),
    (r"\b(?:speeds?|sped)\s+(?:\w+\s+){0,2}up\b", {F}),
    (r"\bgain(?:s|ed)?\b|\bwins?\b|\bwon\b|\bcuts?\b|\braises?\s+throughput\b", {F}),
    (r"\bslower\b|\bslows?\s+(?:\w+\s+)?down\b|\bslowed\s+(?:\w+\s+)?down\b", {S}),
    (r"\blos(?:e|es|t)\b|\bcosts?\s+more\b|\bdrop(?:s|ped)?\b", {S}),
]

# What a statement says of the machines, and the marker scope that must back it.
SCOPES = {
    "every machine": r"\bevery (?:machine|cpu)\b|\ball machines\b",
    "most machines": r"\bmost machines\b",
}
WIDER = {"every machine": {"every machine"}, "most machines": {"every machine", "most machines"}}

MARKER = re.compile(r"<!--\s*(finding|cited)\s*:(.*?)-->", re.DOTALL)
ANY_MARKER = re.compile(r"<!--\s*(?:finding|cited)\b")
KEY = r"[a-z0-9_]+/[a-z0-9_]+:[a-z0-9_]+"
FINDING = re.compile(
    rf"^(?P<variant>{KEY}) vs (?P<baseline>{KEY}) "
    rf"(?P<direction>{'|'.join(DIRECTIONS)}) on "
    r"(?P<scope>every machine|most machines|[a-z0-9-]+(?:, [a-z0-9-]+)*)"
    r"(?: with (?P<stack>[a-z0-9-]+))?$"
)


@dataclass(frozen=True)
class Marker:
    kind: str  # "finding" or "cited"
    text: str  # what follows "finding:" or "cited:"


@dataclass(frozen=True)
class Statement:
    page: str
    text: str  # the statement's words, markers left out
    markers: tuple[Marker, ...]


def in_short_bullets(path: Path) -> list[str]:
    """The bullets of a page's In short box, each joined into one line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == BOX)
    bullets: list[str] = []
    for line in lines[start + 1 :]:
        if line.strip() and not line.startswith("    "):
            break
        if line.startswith("    - "):
            bullets.append(line[6:].strip())
        elif line.strip() and bullets:
            bullets[-1] += " " + line.strip()
    return bullets


def statements(page: str, bullet: str) -> list[Statement]:
    """The bullet cut at its markers: each statement with the markers that follow it, and the
    text after the last marker as a statement with none."""
    found, text, markers, at = [], "", [], 0
    for match in MARKER.finditer(bullet):
        between = bullet[at : match.start()]
        if markers and between.strip():
            found.append(Statement(page, text, tuple(markers)))
            text, markers = "", []
        text += between
        markers.append(Marker(match.group(1), " ".join(match.group(2).split())))
        at = match.end()
    if markers:
        found.append(Statement(page, text, tuple(markers)))
        text = ""
    rest = bullet[at:]
    if ANY_MARKER.search(rest):
        raise AssertionError(f"{page}: a marker comment is not closed with -->: {rest!r}")
    return found + [Statement(page, text + rest, ())]


def plain(text: str) -> str:
    """Words only: code spans, link targets and emphasis left out, lower case."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)|\]\[[^\]]*\]", "]", text)
    return " ".join(text.replace("*", "").lower().split())


def directional_words(text: str) -> list[tuple[str, set[str]]]:
    """Each directional phrase in the text with the findings it is true of."""
    words, taken = plain(text), []
    found = []
    for pattern, allowed in WORDS:
        for match in re.finditer(pattern, words):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append((match.start(), match.end()))
            found.append((match.start(), match.group(0), allowed))
    return [(word, allowed) for _, word, allowed in sorted(found, key=lambda f: f[0])]


def pages() -> list[Path]:
    return sorted(p for p in DOCS.glob("*.md") if BOX in p.read_text(encoding="utf-8"))


def all_statements() -> list[Statement]:
    return [s for p in pages() for b in in_short_bullets(p) for s in statements(p.name, b)]


@cache
def source_ids() -> frozenset[str]:
    data = yaml.safe_load((ROOT / "data" / "sources.yml").read_text(encoding="utf-8"))
    return frozenset(source["id"] for source in data["sources"])


@cache
def findings_and_views() -> tuple[Findings, tuple[dict, ...], frozenset[str]]:
    files = store.read_all()
    views = results_views.stack_views(files)
    return Findings(views), tuple(views), frozenset(d["machine"]["id"] for d in files)


def parse_finding(marker: Marker) -> dict:
    match = FINDING.match(marker.text)
    if match is None:
        raise AssertionError(
            f"finding marker {marker.text!r} does not read 'VARIANT vs BASELINE DIRECTION on "
            f"SCOPE [with STACK]' (DIRECTION one of {sorted(DIRECTIONS)}; SCOPE 'every "
            "machine', 'most machines' or machine ids separated by ', ')"
        )
    return match.groupdict()


def marker_directions(marker: Marker) -> set[str] | None:
    """The findings a finding marker allows; None for a cited one."""
    return DIRECTIONS[parse_finding(marker)["direction"]] if marker.kind == "finding" else None


def word_problems(statement: Statement) -> list[str]:
    """Where a statement's words and its markers disagree (checks a and b)."""
    words = directional_words(statement.text)
    where = f"{statement.page}: {' '.join(statement.text.split())!r}"
    if not statement.markers:
        return [f"{where} says {w!r} with no marker after it" for w, _ in words]
    if any(m.kind == "cited" for m in statement.markers):
        return []
    claimed = [marker_directions(m) for m in statement.markers]
    problems = [
        f"{where}: {word!r} is not what any of its markers says ({statement.markers})"
        for word, allowed in words
        if not any(c <= allowed for c in claimed)
    ]
    for scope, pattern in SCOPES.items():
        if not re.search(pattern, plain(statement.text)):
            continue
        wide = [
            c
            for m, c in zip(statement.markers, claimed, strict=True)
            if parse_finding(m)["scope"] in WIDER[scope]
        ]
        problems += [
            f"{where} says {scope!r}, but no marker of that scope says {word!r}"
            for word, allowed in words
            if not any(c <= allowed for c in wide)
        ]
    problems += [
        f"{where}: no word of the statement says what {m.text!r} does"
        for m, c in zip(statement.markers, claimed, strict=True)
        if not any(c <= allowed for _, allowed in words)
    ]
    return problems


def data_problems(marker: Marker, current=claim_rows.current_pair) -> list[str]:
    """Where a finding marker disagrees with the findings (check c). current: whether a
    view's two entries measure today's snippets."""
    fields = parse_finding(marker)
    findings, views, machines = findings_and_views()
    stack = fields["stack"] or measured_stacks.DEFAULT
    pair = {"baseline": fields["baseline"], "variant": fields["variant"]}
    found = {}
    for view in views:
        if view["stack"] == stack and current(view, pair):
            finding = findings.pair(view, pair["baseline"], pair["variant"])
            if finding is not None:
                found[view["machine"]["id"]] = finding
    if not found:
        return [f"{marker.text!r}: no machine has a current finding for this pair on {stack}"]
    allowed = DIRECTIONS[fields["direction"]]
    scope = fields["scope"]

    def words(machine: str) -> str:
        f = found[machine]
        return f"{machine}: {f.point:.2f}× ({f.low:.2f}–{f.high:.2f}), {f.direction}"

    if scope == "most machines":
        agree = [m for m in found if found[m].direction in allowed]
        if len(agree) * 2 > len(found):
            return []
        return [f"{marker.text!r}: only {len(agree)} of {len(found)} machines agree"]
    named = list(found) if scope == "every machine" else scope.split(", ")
    problems = [
        f"{marker.text!r}: no results file has machine {m!r}" for m in named if m not in machines
    ]
    return problems + [
        f"{marker.text!r}: {words(m)}"
        for m in named
        if m in found and found[m].direction not in allowed
    ]


STATEMENTS = all_statements()


def test_every_page_with_a_box_is_read():
    assert len(pages()) >= 14, [p.name for p in pages()]
    assert all(in_short_bullets(p) for p in pages())


@pytest.mark.parametrize("page", [p.name for p in pages()])
def test_directional_words_have_markers_that_they_agree_with(page):
    problems = [p for s in STATEMENTS if s.page == page for p in word_problems(s)]
    assert not problems, "\n".join(problems)


def test_cited_markers_name_known_sources():
    problems = [
        f"{s.page}: {m.text!r} names {sid!r}, not in data/sources.yml"
        for s in STATEMENTS
        for m in s.markers
        if m.kind == "cited"
        for sid in [i.strip() for i in m.text.split(",")]
        if sid not in source_ids()
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    "page", [p.name for p in pages() if "<!-- finding:" in p.read_text("utf-8")]
)
def test_finding_markers_agree_with_the_findings(page):
    problems = [
        f"{page}: {p}"
        for s in STATEMENTS
        if s.page == page
        for m in s.markers
        if m.kind == "finding"
        for p in data_problems(m)
    ]
    assert not problems, "\n".join(problems)


# The checks themselves, on text and markers made up for the purpose.


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("prefetch made it slower", [("slower", {S})]),
        ("it was not faster than float32", [("not faster", {N, S})]),
        ("a larger batch no longer helps", [("no longer helps", {N, S})]),
        ("more than twice as fast as fine-tuning", [("twice as fast", {F})]),
        ("took about the same time", [("about the same time", {N})]),
        ("`mixed_float16_faster` ran", []),
        ("found no published Apple-GPU speed-up", [("no published apple-gpu speed-up", {N, S})]),
        ("the largest gains", [("gains", {F})]),
    ],
)
def test_word_families(text, expected):
    assert directional_words(text) == expected


def statement(text: str, *markers: str) -> Statement:
    return Statement("page.md", text, tuple(Marker("finding", m) for m in markers))


PAIR = "input_pipeline/feeding:generator_prefetch vs input_pipeline/feeding:generator_loop"


def test_a_directional_word_without_a_marker_fails():
    assert word_problems(statement("it made the loop slower"))
    assert not word_problems(statement("it changes the shapes"))


def test_words_against_the_markers_direction_fail():
    assert not word_problems(statement("made it slower", f"{PAIR} slower on every machine"))
    assert word_problems(statement("made it faster", f"{PAIR} slower on every machine"))
    assert word_problems(statement("made it slower", f"{PAIR} not faster on every machine"))
    assert not word_problems(statement("was not faster", f"{PAIR} slower on every machine"))
    assert word_problems(statement("no clear difference", f"{PAIR} faster on every machine"))


def test_a_statement_of_every_machine_needs_a_marker_of_every_machine():
    said = "was slower on every machine measured"
    assert not word_problems(statement(said, f"{PAIR} slower on every machine"))
    assert word_problems(statement(said, f"{PAIR} slower on most machines"))
    assert word_problems(statement(said, f"{PAIR} slower on intel-xeon-2cpu-linux"))
    both = (f"{PAIR} slower on most machines", f"{PAIR} not faster on every machine")
    assert not word_problems(statement("slower on most machines, faster on none", *both))
    assert word_problems(statement("slower on every machine, faster on none", *both))


def test_a_malformed_marker_fails():
    with pytest.raises(AssertionError, match="does not read"):
        marker_directions(Marker("finding", f"{PAIR} quicker on every machine"))
    with pytest.raises(AssertionError, match="not closed"):
        statements("page.md", "slower <!-- finding: x vs y slower on every machine")


def test_a_marker_against_the_findings_fails():
    findings, views, _ = findings_and_views()
    variant, baseline = PAIR.split(" vs ")
    view = next(
        v
        for v in views
        if v["stack"] == measured_stacks.DEFAULT and {variant, baseline} <= v["entries"].keys()
    )
    machine, found = view["machine"]["id"], findings.pair(view, baseline, variant).direction
    other = next(d for d in (F, S, N) if d != found)

    def only_this_view(v: dict, pair: dict) -> bool:
        return v is view

    def problems(text: str) -> list[str]:
        return data_problems(Marker("finding", text), only_this_view)

    assert not problems(f"{PAIR} {found} on {machine}")
    assert not problems(f"{PAIR} {found} on every machine")
    assert problems(f"{PAIR} {other} on {machine}")
    assert problems(f"{PAIR} {other} on most machines")
    assert problems(f"{PAIR} {found} on {machine}, no-such-machine")
    unknown = PAIR.replace("generator_prefetch", "no_such_variant")
    assert problems(f"{unknown} {found} on every machine")
    assert problems(f"{PAIR} {found} on every machine with no-such-stack")
