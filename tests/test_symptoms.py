"""data/symptoms.yml: complete entries, links that resolve, doctor checks that exist, and the page."""

from __future__ import annotations

import copy
import html
import json
import re

import pytest
import yaml

from scripts.core import data_formats
from scripts.core.catalog import ROOT
from scripts.doctor import rules
from scripts.rendering import symptoms
from tests.symptom_search_line import search_line
from tests.test_doctor_rules import linux

DATA = symptoms.load()
ENTRIES = DATA["symptoms"]
IDS = [entry["id"] for entry in ENTRIES]
GROUP_IDS = [group["id"] for group in DATA["groups"]]
# The doctor's rules, by subject in rules_*.py (rules.py orders them), and checks.py, which
# holds what they share (the SYMPTOMS page among it).
RULE_FILES = [
    *sorted((ROOT / "scripts" / "doctor").glob("rules*.py")),
    ROOT / "scripts" / "doctor" / "checks.py",
]
RULES_SOURCE = "\n".join(path.read_text(encoding="utf-8") for path in RULE_FILES)
# Pages that correct the Mac advice (issue 13): every correctness or memory entry links one.
CORRECTIONS = {
    "wrong-results": ("gpu-correctness.md", "setup.md#which-stack-to-install-on-a-mac"),
    "memory": ("memory.md#how-much-of-the-ram-the-gpu-may-use",),
}


# Entries whose message is copied from a public report: each one is findable by pasting it.
MIN_VERBATIM = 60  # issue 20: at least 60 messages findable by pasting


def doctor_check_names() -> set[str]:
    """The name of every rule's check in rules.RULES, from a run of them all on a healthy
    Linux machine (tests/test_doctor_rules.py): a new rule needs nothing here."""
    return {check.name for check in rules.run_all(linux())}


def symptom_links_in_rules() -> list[str]:
    """Every anchor the doctor's `see:` lines use in the symptom page."""
    assert 'SYMPTOMS = "docs/symptoms.md"' in RULES_SOURCE
    return re.findall(r'\{SYMPTOMS\}#([a-z0-9-]+)"', RULES_SOURCE) + re.findall(
        r'"docs/symptoms\.md#([a-z0-9-]+)"', RULES_SOURCE
    )


def test_enough_entries_and_eight_on_the_home_page():
    assert len(ENTRIES) >= 60
    assert sum(1 for entry in ENTRIES if entry.get("top")) == 8


def test_both_eras_are_covered():
    eras = {entry["era"] for entry in ENTRIES}
    assert {"ML Compute fork", "tensorflow-metal", "both"} <= eras


def test_every_doctor_field_names_a_real_check():
    names = doctor_check_names()
    assert len(names) == len(rules.RULES)  # one name per rule: the reading above is complete
    for entry in ENTRIES:
        assert entry["doctor"] is None or entry["doctor"] in names, (entry["id"], entry["doctor"])


def test_every_symptom_link_of_the_doctor_resolves_in_the_built_page():
    used = symptom_links_in_rules()
    assert len(used) >= 10, "the doctor's see: lines should point into the symptom page"
    page_ids = symptoms.headings("symptoms.md")  # the page with its generated fragment included
    for anchor in used:
        assert anchor in IDS + GROUP_IDS, anchor
        assert anchor in page_ids, f"docs/symptoms.md renders no heading with the id {anchor!r}"


def test_correctness_and_memory_entries_link_to_the_corrections():
    for entry in ENTRIES:
        wanted = CORRECTIONS.get(entry["group"])
        if not wanted:
            continue
        links = [entry["guide"], *entry.get("see_also", [])]
        assert any(link.startswith(w) for link in links for w in wanted), entry["id"]


def test_verbatim_messages_appear_in_code_blocks_on_the_page():
    rendered = symptoms.render()
    blocks = re.findall(r"```text\n(.*?)\n```", rendered, flags=re.DOTALL)
    for entry in ENTRIES:
        if entry["verbatim"]:
            assert entry["what_you_see"].rstrip("\n") in blocks, entry["id"]
        else:
            assert "\n" not in entry["what_you_see"].strip(), entry["id"]


def test_other_versions_wordings_appear_in_code_blocks_too():
    rendered = symptoms.render()
    blocks = re.findall(r"```text\n(.*?)\n```", rendered, flags=re.DOTALL)
    others = [other for entry in ENTRIES for other in entry.get("also_seen", [])]
    assert others, "the optimizer warning gives tf-keras's wording as well"
    for other in others:
        assert other["text"].rstrip("\n") in blocks
        assert other["when"].strip() in rendered


def test_the_search_line_is_the_fixed_part_or_else_the_longest_line():
    entry = {"verbatim": True, "what_you_see": "short\nthe longest line of all\nmid line"}
    assert search_line(entry) == "the longest line of all"
    entry["search_text"] = "the longest line of all"
    assert search_line(entry) == "the longest line of all"
    assert symptoms.search_text_problem(entry) is None


def indexed_text(html_text: str) -> str:
    """A search-index section as the reader's query meets it: no tags, entities decoded,
    runs of white space as one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", html_text)).split())


def test_the_search_index_holds_every_message_by_its_most_specific_line(built_site):
    index = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    sections = {doc["location"]: indexed_text(doc["text"]) for doc in index["docs"]}
    verbatim = [entry for entry in ENTRIES if entry["verbatim"]]
    assert len(verbatim) >= MIN_VERBATIM
    for entry in verbatim:
        location = f"symptoms/#{entry['id']}"
        assert location in sections, f"{entry['id']}: no section of the search index"
        line = " ".join(search_line(entry).split())
        assert line in sections[location], f"{entry['id']}: {line!r} is not in the index"


def test_every_entry_has_a_heading_with_its_id():
    rendered = symptoms.render()
    for entry in ENTRIES:
        assert f"### {entry['title']} {{#{entry['id']}}}" in rendered


def test_the_recommended_stack_is_filled_in_from_its_data_file():
    rendered = symptoms.render()
    assert "{recommended" not in rendered
    assert "TF_USE_LEGACY_KERAS" in rendered


def test_the_page_the_home_section_and_the_navigation():
    page = (ROOT / "docs" / "symptoms.md").read_text(encoding="utf-8")
    assert f'--8<-- "docs/_generated/{symptoms.OUTPUT}"' in page
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    start, reading = home.index("## Start from what you see"), home.index("## How to read it")
    assert start < home.index(f'--8<-- "docs/_generated/{symptoms.TOP_OUTPUT}"') < reading
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "  - Home: index.md\n  - Symptoms and fixes: symptoms.md\n" in nav


def test_top_list_links_only_to_top_entries():
    top = symptoms.render_top()
    linked = re.findall(r"\(symptoms\.md#([a-z0-9-]+)\)", top)
    assert linked == [entry["id"] for entry in ENTRIES if entry.get("top")]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda e: e.pop("cause"), "missing field(s) cause"),
        (lambda e: e.update(era="2019"), "era: expected one of 'ML Compute fork'"),
        (lambda e: e.update(group="nowhere"), "group must be one of"),
        (lambda e: e.update(guide="versions.md#no-such-section"), "has no heading"),
        (lambda e: e.update(guide="no-such-page.md#x"), "does not exist"),
        (lambda e: e.update(guide="versions.md"), "guide: 'versions.md' does not match"),
        (
            lambda e: e.update(sources=[{"title": "t", "url": "http://example.org"}]),
            "one https address",
        ),
        (lambda e: e.update(id="Not A Slug"), "id: 'Not A Slug' does not match"),
        (lambda e: e.update(verbatim="yes"), "verbatim: expected true or false"),
        (lambda e: e.update(also_seen=[{"when": "w"}]), "also_seen[0]: missing field(s) text"),
        (
            lambda e: e.update(verbatim=False, also_seen=[{"when": "w", "text": "t"}]),
            "verbatim: true",
        ),
        (
            lambda e: e.update(search_text="No matching"),
            "search_text: expected at least 20 characters",
        ),
        (lambda e: e.update(search_text="No matching distribution for it"), "copied from one line"),
        (
            lambda e: e.update(verbatim=False, what_you_see="x", search_text="x" * 30),
            "search_text needs verbatim: true",
        ),
    ],
)
def test_check_names_the_entry_and_the_field(change, message):
    data = copy.deepcopy(DATA)
    change(data["symptoms"][0])
    with pytest.raises(symptoms.SymptomsError) as raised:
        symptoms.check(data, "symptoms.yml")
    assert message in str(raised.value)
    assert "symptoms.yml" in str(raised.value) and "symptoms[0]" in str(raised.value)


def test_a_repeated_id_is_refused():
    data = copy.deepcopy(DATA)
    data["symptoms"][1]["id"] = data["symptoms"][0]["id"]
    with pytest.raises(symptoms.SymptomsError, match="used twice"):
        symptoms.check(data)


def test_the_data_file_is_plain_yaml_with_two_lists():
    raw = yaml.safe_load((ROOT / "data" / "symptoms.yml").read_text(encoding="utf-8"))
    assert set(raw) == {"groups", "symptoms"}


def test_a_hostile_file_is_refused_naming_the_file_and_field(tmp_path):
    """The loader reads through data/symptoms.schema.json: a file whose entry flags itself
    top with text, and whose group has no title, is refused before anything renders it."""
    data = copy.deepcopy(DATA)
    data["symptoms"][2]["top"] = "yes"
    del data["groups"][0]["title"]
    hostile = tmp_path / "symptoms.yml"
    hostile.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(symptoms.SymptomsError) as raised:
        symptoms.load.__wrapped__(hostile)
    said = str(raised.value)
    assert said.startswith("symptoms.yml: ")
    assert "groups[0]: missing field(s) title" in said
    assert "symptoms[2].top: expected true or false, got 'yes'" in said


def test_the_pages_eras_are_the_schemas():
    schema = json.loads(data_formats.schema_path("symptoms").read_text(encoding="utf-8"))
    allowed = schema["properties"]["symptoms"]["items"]["properties"]["era"]["enum"]
    assert sorted(allowed) == sorted(symptoms.ERAS)


def test_the_page_gives_its_actions_before_the_eras():
    """Answer and action first: how to search, the doctor tip and the no-match advice come
    before the paragraph on eras and provenance."""
    page = (ROOT / "docs" / "symptoms.md").read_text(encoding="utf-8")
    eras = page.index("Each entry names the era")
    for action in ("Paste the whole line", '!!! tip "Before anything else"', "When no entry"):
        assert page.index(action) < eras, f"docs/symptoms.md: {action!r} comes after the eras"
