"""Published figures (data/reference_results.yml): complete provenance, on every factor page.

Each source states hardware, software, date, link, values and the factor pages it informs;
every factor page includes its generated fragment in its Mac part; the fragments equal a fresh
render; strings from the YAML reach pages escaped, and links must be https.
"""

from __future__ import annotations

import copy
import re

import markdown
import pytest
import yaml

from scripts.rendering import chip_view, escaping, reference_figures, results_page

MIN_SOURCES = 35  # issue 28: at least 35 sources of published Apple-silicon figures
# The part of a page that holds its fragment: "What to expect on a Mac", or the Mac section
# under another name on pages that had one before the fragments existed.
MAC_SECTIONS = {
    "threads": "On a Mac: performance and efficiency cores",
    "ceiling": "The same ceiling on a Mac's GPU",
}


@pytest.fixture(scope="module")
def sources() -> list[dict]:
    return results_page.load_reference()


def fragment_path(page: str) -> str:
    return f"docs/_generated/{reference_figures.OUTPUT_DIR}/{page}.md"


def test_every_source_states_hardware_software_date_link_values_and_pages(sources):
    for source in sources:
        for key in ("hardware", "software", "date", "url", "rows", "pages", "title"):
            assert source.get(key), f"{source.get('id')}: no {key}"
        assert source["url"].startswith("https://"), source["id"]
        for row in source["rows"]:
            for key in ("hardware", "workload", "batch", "value", "unit"):
                assert str(row.get(key, "")).strip(), f"{source['id']}: a row has no {key}"
            assert row.get("link", "https://").startswith("https://"), source["id"]


def test_there_are_enough_sources_and_every_page_tag_is_a_factor_page(sources):
    assert len(sources) >= MIN_SOURCES
    assert len({s["id"] for s in sources}) == len(sources)
    for source in sources:
        assert set(source["pages"]) <= set(reference_figures.FACTOR_PAGES), source["id"]


def test_the_m2_m3_and_m4_families_each_have_a_figure(sources):
    families = {
        chip_view.chip_of(row).split()[0]
        for source in sources
        for row in source["rows"]
        if chip_view.chip_of(row)
    }
    assert {"M1", "M2", "M3", "M4"} <= families


def test_apple_silicon_rows_name_the_chip_first(sources):
    """Rows are counted as Apple silicon by their first words, so a chip named later is a typo."""
    for source in sources:
        for row in source["rows"]:
            if re.search(r"\bM\d\b", row["hardware"]):
                assert reference_figures.is_apple_silicon(row), (source["id"], row["hardware"])


def test_every_factor_page_includes_its_fragment_in_its_mac_part(root):
    for page in reference_figures.FACTOR_PAGES:
        text = (root / "docs" / f"{page}.md").read_text(encoding="utf-8")
        include = f'--8<-- "{fragment_path(page)}"'
        assert text.count(include) == 1, f"docs/{page}.md does not include {include} once"
        before = text[: text.index(include)]
        headings = re.findall(r"^## (.+)$", before, flags=re.MULTILINE)
        expected = MAC_SECTIONS.get(page, "What to expect on a Mac")
        assert headings and headings[-1] == expected, (page, headings[-1:])


def test_fragments_are_apart_from_measured_numbers_and_say_when_nothing_is_published(sources):
    for page in reference_figures.FACTOR_PAGES:
        fragment = reference_figures.page_fragment(sources, page)
        assert fragment.startswith(f'!!! quote "{reference_figures.TITLE}"')
        n_sources, n_rows = reference_figures.counts(sources, page)
        if n_sources:
            assert f"{n_sources} source" in fragment and f"{n_rows} row" in fragment
        else:
            assert "No published TensorFlow figure from an Apple-silicon Mac" in fragment


def test_every_value_appears_as_published(sources):
    for source in sources:
        for page in source["pages"]:
            fragment = reference_figures.page_fragment(sources, page)
            for row in reference_figures.rows_for(source, page):
                assert escaping.escape(str(row["value"])) in fragment


def test_strings_are_escaped_and_links_must_be_https(sources):
    hostile = copy.deepcopy(sources[:1])
    hostile[0]["title"] = "<script>alert(1)</script> [x](javascript:alert(2))"
    hostile[0]["rows"][0]["workload"] = "<img src=x onerror=alert(3)> | **bold**"
    page = hostile[0]["pages"][0]
    hostile[0]["rows"][0]["pages"] = [page]
    html = markdown.markdown(
        reference_figures.page_fragment(hostile, page), extensions=["admonition", "tables"]
    )
    assert "<script" not in html
    assert "<img" not in html
    assert "<strong>bold</strong>" not in html
    assert 'href="javascript' not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    for bad in (
        "javascript:alert(1)",
        "http://example.com",
        "https://x.org/a)b",
        "https://x.org/ a",
    ):
        broken = copy.deepcopy(sources[:1])
        broken[0]["url"] = bad
        with pytest.raises(reference_figures.ReferenceDataError, match="https"):
            reference_figures.check(broken)
    broken = copy.deepcopy(sources[:1])
    broken[0]["rows"][0]["link"] = "javascript:alert(1)"
    with pytest.raises(reference_figures.ReferenceDataError, match="link"):
        reference_figures.check(broken)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s: s.pop("software"), r"sources\[0\] \(\S+\): missing field\(s\) software"),
        (lambda s: s.update(pages=["not-a-page"]), "unknown pages"),
        (lambda s: s.update(date="Nov 2020"), "date: 'Nov 2020' does not match .*YYYY-MM-DD"),
        (lambda s: s["rows"][0].pop("value"), r"rows\[0\]: missing field\(s\) value"),
        (lambda s: s["rows"][0].update(pages=["rosetta"]), "among the source's pages"),
    ],
)
def test_a_source_that_breaks_the_schema_is_named(sources, change, message):
    broken = copy.deepcopy(sources[:1])
    change(broken[0])
    with pytest.raises(reference_figures.ReferenceDataError, match=message):
        reference_figures.check(broken)


def test_every_file_a_source_was_also_read_in_is_linked_where_its_figures_show(sources):
    """A fact read in another file of the source (the machine's description, the script)
    comes with that file's own link, on every page that shows the source."""
    readers = [s for s in sources if s.get("also_read")]
    assert readers, "no source names another file it was read in"
    for source in readers:
        for page in source["pages"]:
            fragment = reference_figures.page_fragment(sources, page)
            for item in source["also_read"]:
                assert f"]({item['url']}) (" in fragment, (source["id"], item["file"])


@pytest.mark.parametrize(
    ("also_read", "message"),
    [
        ({"file": "a.md", "url": "https://x.org/a.md", "for": "x"}, "also_read: expected a list"),
        (
            [{"file": "a.md", "url": "https://x.org/a.md"}],
            r"also_read\[0\]: missing field\(s\) for",
        ),
        ([{"file": "a.md", "url": "javascript:alert(1)", "for": "x"}], "https"),
        ([{"file": " ", "url": "https://x.org/a.md", "for": "x"}], "file: .* not blank"),
    ],
)
def test_a_bad_also_read_is_named(sources, also_read, message):
    broken = copy.deepcopy(sources[:1])
    broken[0]["also_read"] = also_read
    with pytest.raises(reference_figures.ReferenceDataError, match=f"{broken[0]['id']}.*{message}"):
        reference_figures.check(broken)


def test_the_results_page_lists_every_source_with_its_pages(sources):
    section = results_page.reported_section(sources)
    for source in sources:
        assert f"]({source['url']})" in section, source["id"]
        for page in source["pages"]:
            assert f"({page}.md)" in section


def test_a_hostile_file_is_refused_naming_the_file_source_and_field(sources, tmp_path):
    """load reads through data/reference_results.schema.json: a row whose value is a list and a
    source with a field the format does not have are refused, each by file, source and field."""
    hostile = copy.deepcopy(sources[:2])
    hostile[0]["rows"][0]["value"] = [1, 2]
    hostile[1]["script"] = "<script>alert(1)</script>"
    path = tmp_path / "reference_results.yml"
    path.write_text(yaml.safe_dump({"sources": hostile}), encoding="utf-8")
    with pytest.raises(reference_figures.ReferenceDataError) as refused:
        reference_figures.load(path)
    said = str(refused.value)
    assert said.startswith("reference_results.yml: ")
    assert (
        f"sources[0] ({hostile[0]['id']}).rows[0].value: expected a finite number or text" in said
    )
    assert f"sources[1] ({hostile[1]['id']}): unknown field(s) 'script'" in said
