"""The data files' YAML holds no text cut short by a comment: in a plain (unquoted) value, a
space before '#' starts a comment, so a title like `resolves #99)` silently loses its end."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from scripts.core.catalog import ROOT

DATA_FILES = sorted((ROOT / "data").rglob("*.yml"))


def inline_comments(text: str) -> list[tuple[int, str]]:
    """(line number, the text from the value's end) of every comment that follows a value on
    the same line, read from PyYAML's tokens: what is left of a line after its last token."""
    lines = text.splitlines()
    ends: dict[int, int] = {}
    for token in yaml.scan(text, Loader=yaml.SafeLoader):
        mark = token.end_mark
        ends[mark.line] = max(ends.get(mark.line, 0), mark.column)
    found = []
    for number, column in sorted(ends.items()):
        if number >= len(lines) or lines[number].lstrip().startswith("#"):
            continue  # a comment line of its own cuts nothing
        rest = lines[number][column:]
        if rest.strip().startswith("#"):
            found.append((number + 1, rest))
    return found


def cut_values(text: str) -> list[int]:
    """Lines where ' #' cuts a value: an intended comment after a value takes two spaces."""
    return [number for number, rest in inline_comments(text) if not rest.startswith("  #")]


def test_a_title_with_an_issue_number_is_caught_unless_quoted():
    cut = "sources:\n  - title: RELEASE.md (0.1 alpha 2 resolves #99)\n"
    assert yaml.safe_load(cut)["sources"][0]["title"] == "RELEASE.md (0.1 alpha 2 resolves"
    assert cut_values(cut) == [2]
    quoted = 'sources:\n  - title: "RELEASE.md (0.1 alpha 2 resolves #99)"\n'
    assert cut_values(quoted) == []
    intended = "legacy_keras: true  # TF_USE_LEGACY_KERAS=1\n# a comment line\n"
    assert cut_values(intended) == []


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_value_in_a_data_file_is_cut_by_a_comment(path: Path):
    cut = cut_values(path.read_text(encoding="utf-8"))
    assert not cut, (
        f"{path.relative_to(ROOT)}: line(s) {cut}: ' #' after an unquoted value starts a YAML "
        "comment and cuts the value; quote the value (an intended comment takes two spaces)"
    )
