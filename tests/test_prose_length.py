"""Sentences stay short (issue 36): every page in the nav, with the generated prose it
includes (the claim boxes among it), averages at most 20 words per sentence, and no sentence
runs over 40 words outside a source's quoted words. Measured by scripts/prose_measure.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from scripts import prose_measure

AVERAGE = 20.0
LONGEST = 40
CELL = 25  # words in one table cell: one short line; caveats go in notes below the table
# Every nav page's table cells, with the generated tables it includes, are held to CELL (the
# review of 2026-11-28 found cells of 163 and 143 words on Tune; Diagnose, GPU correctness,
# Versions, Set up, Claims, What changed, chips and Input pipeline followed). No page is
# exempt. These pages hold tables, so the cell count must find some there:
TABLE_PAGES = [
    "tune.md", "doctor.md", "gpu-correctness.md", "versions.md", "setup.md", "claims.md",
    "stack-changes.md", "chips.md", "input-pipeline.md",
]  # fmt: skip

# Pages that do not meet the limits yet, with what they may not exceed: their average and how
# many sentences run over LONGEST. The numbers may only go down; a page that meets the limits
# must leave this list (a test says so).
NOT_YET: dict[str, tuple[float, int]] = {}


def over_longest(found: prose_measure.PageMeasure) -> list[prose_measure.Sentence]:
    return [s for s in found.longest if s.own > LONGEST]


@pytest.mark.parametrize("page", prose_measure.nav_pages())
def test_sentences_are_short(page):
    found = prose_measure.measure(page)
    long = over_longest(found)
    average, count = NOT_YET.get(page, (AVERAGE, 0))
    listed = "\n".join(f"  {s.own} words ({s.origin}): {s.text[:120]}" for s in long[:10])
    assert found.per_sentence <= average, (
        f"{page}: {found.per_sentence:.1f} words per sentence, at most {average} allowed"
    )
    assert len(long) <= count, f"{page}: {len(long)} sentences over {LONGEST} words:\n{listed}"


def test_a_page_that_meets_the_limits_leaves_the_list():
    """One test over the whole list, so that it still runs when the list is empty."""
    met = []
    for page in sorted(NOT_YET):
        found = prose_measure.measure(page)
        if found.per_sentence <= AVERAGE and not over_longest(found):
            met.append(page)
    assert not met, f"within the limits now, take out of NOT_YET: {', '.join(met)}"


def test_every_listed_page_is_in_the_nav():
    assert set(NOT_YET) <= set(prose_measure.nav_pages())


def test_the_nav_is_read_in_order():
    pages = prose_measure.nav_pages()
    assert pages[0] == "index.md" and "sources.md" in pages and len(pages) == len(set(pages))


def page(tmp_path: Path, text: str, **included: str) -> prose_measure.PageMeasure:
    docs = tmp_path / "docs"
    (docs / "_generated").mkdir(parents=True)
    for name, body in included.items():
        (docs / "_generated" / f"{name}.md").write_text(body, encoding="utf-8")
    (docs / "p.md").write_text(text, encoding="utf-8")
    return prose_measure.measure("p.md", docs)


def test_sentences_split_at_full_stops_not_inside_code_or_abbreviations(tmp_path):
    found = page(tmp_path, "Use `tf.data.Dataset` here, e.g. for files. Then measure it.\n")
    assert [s.words for s in found.longest] == [6, 3]


def test_code_tables_headings_and_comments_are_not_prose(tmp_path):
    text = (
        "# A heading with many words in it\n\n```python\nx = 1. Then more.\n```\n\n"
        "| a | b |\n|---|---|\n<!-- a comment. Two. -->\nOne sentence here.\n"
    )
    assert page(tmp_path, text).sentences == 1


def test_included_prose_counts_and_quotes_do_not_count_against_the_limit(tmp_path):
    quote = " ".join(["word"] * 50)
    found = page(
        tmp_path,
        'A page.\n\n--8<-- "docs/_generated/box.md"\n',
        box=f'!!! note "Title"\n\n    It said "{quote}" in the thread.\n',
    )
    assert found.sentences == 2
    assert found.longest[0].words == 55 and found.longest[0].own == 5


def test_a_quote_of_several_sentences_stays_quoted_in_each_of_its_parts(tmp_path):
    quote = "One two three. " + " ".join(["Word"] * 45) + "."
    found = page(tmp_path, f"It said “{quote}” Then it ended.\n")
    assert [(s.words, s.own) for s in found.longest] == [(3, 3), (5, 2), (45, 0)]


def test_curly_quotation_marks_pair_before_straight_ones_inside_them(tmp_path):
    found = page(tmp_path, 'It said “one 14" two three” and “four” then.\n')
    assert [(s.words, s.own) for s in found.longest] == [(9, 4)]


@pytest.mark.parametrize("page", prose_measure.nav_pages())
def test_table_cells_are_short(page):
    cells = prose_measure.table_cells(prose_measure.expanded(prose_measure.DOCS / page))
    long = [f"  {n} words ({origin}): {text[:100]}" for n, text, origin in cells if n > CELL]
    assert not long, f"{page}: table cells over {CELL} words:\n" + "\n".join(long)


@pytest.mark.parametrize("page", TABLE_PAGES)
def test_the_cell_count_finds_the_tables_of_pages_that_have_them(page):
    """A page without tables passes the test above with nothing to check; these have some."""
    assert page in prose_measure.nav_pages()
    assert prose_measure.table_cells(prose_measure.expanded(prose_measure.DOCS / page))


def test_table_cells_split_at_bars_but_not_inside_code_or_escapes(tmp_path):
    text = (
        "A page.\n\n| a | b |\n|---|:-:|\n| one two | `x | y` and a\\|b three |\n\n"
        "```\n| not a table cell in code |\n```\n"
    )
    (tmp_path / "p.md").write_text(text, encoding="utf-8")
    cells = prose_measure.table_cells(prose_measure.expanded(tmp_path / "p.md", tmp_path))
    assert [(n, cell) for n, cell, _ in cells] == [
        (1, "a"),
        (1, "b"),
        (2, "one two"),
        (4, "`x | y` and a\\|b three"),
    ]
