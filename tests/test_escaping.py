"""Escaping of untrusted strings for pages (scripts/rendering/escaping.py): what Markdown and
HTML would read stays text."""

from __future__ import annotations

import html

import markdown
import pytest

from scripts.rendering import escaping

MARKDOWN = markdown.Markdown(extensions=["tables", "attr_list", "md_in_html"])


@pytest.mark.parametrize(
    "hostile",
    [
        "<script>alert(1)</script>",
        "[link](javascript:alert(2))",
        "<img src=x onerror=alert(3)>",
        "**bold** and _em_",
        "`code` & <b>",
        'x" onclick="alert(1)',
        "a | b {: .cls onclick=x }",
        "\\<script>",
    ],
)
def test_escaped_text_renders_as_itself(hostile):
    rendered = MARKDOWN.reset().convert(escaping.escape(hostile))
    assert "<script" not in rendered and "<img" not in rendered and "<a " not in rendered
    assert "<strong>" not in rendered and "<em>" not in rendered and "<code>" not in rendered
    # Un-escaping the HTML gives back exactly the text.
    assert html.unescape(rendered.removeprefix("<p>").removesuffix("</p>")) == hostile


def test_escaped_text_stays_inside_its_table_cell():
    table = f"| a | b |\n|---|---|\n| {escaping.escape('x | y')} | z |\n"
    rendered = MARKDOWN.reset().convert(table)
    assert rendered.count("<td>") == 2 and "x | y" in rendered


@pytest.mark.parametrize("text", ["plain", "has ``` inside", "```` four", "`one`"])
def test_fence_is_longer_than_any_backtick_run(text):
    block = escaping.fence(text)
    marks = block.split("text", 1)[0]
    assert len(marks) > max((len(r) for r in text.split() if set(r) == {"`"}), default=0)
    assert block.endswith(marks + "\n") and f"\n{text}\n" in block


def test_escaped_results_keeps_ids_names_and_numbers(committed_results):
    data = committed_results[0]
    shown = escaping.escaped_results(data)
    assert shown["machine"]["id"] == data["machine"]["id"]
    assert shown["machine"]["cpu_features"] == data["machine"]["cpu_features"]
    for key, entry in data["entries"].items():
        for field in ("snippet", "variant", "baseline", "snippet_sha256", "stats"):
            assert shown["entries"][key][field] == entry[field]
