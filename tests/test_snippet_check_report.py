"""snippet_check's report (tests/snippet_check.py, Report), held to its type when
tests/test_snippets.py reads it: a hostile report is refused naming the file, the field and
what was expected, not met later as a KeyError or a wrong comparison. No snippet runs here; the
snippet runs in test_snippets.py read every real report the same way."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import typed_json
from tests import snippet_check

REPORT = {
    "variants": {"plain": "a plain loop", "fast": "the fast one"},
    "baseline": "plain",
    "unknown_variant_error": "unknown variant 'no_such_variant'; expected plain or fast",
    "isolated": True,
    "forked_checks": True,
    "calls": {},
    "checked_directly": [],
    "children": [
        {"args": ["small", "plain"], "how": "fork", "why": None},
        {"args": ["small", "fast"], "how": "new process", "why": "fork is not safe on macOS"},
    ],
    "autograph": "tensorflow's rules",
}

# (what a hostile copy changes, what the refusal says after the file's name)
HOSTILE = {
    "no calls": (lambda r: r.pop("calls"), "the top level: missing field(s) calls"),
    "a call count as text": (
        lambda r: r.update(calls={"plain": "2"}),
        "calls.plain: expected a whole number, got '2'",
    ),
    "no baseline named": (lambda r: r.update(baseline=None), "baseline: expected text, got None"),
    "a variant without its description": (
        lambda r: r["variants"].update(fast=None),
        "variants.fast: expected text, got None",
    ),
    "a run neither forked nor new": (
        lambda r: r["children"][0].update(how="thread"),
        "children[0].how: expected one of 'fork', 'new process', got 'thread'",
    ),
}


def write(tmp_path, report: dict):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return path


def test_a_report_as_snippet_check_writes_it_is_read(tmp_path):
    assert snippet_check.read_report(write(tmp_path, REPORT)) == REPORT


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_report_is_refused_naming_the_file_and_the_field(case, tmp_path):
    change, expected = HOSTILE[case]
    report = copy.deepcopy(REPORT)
    change(report)
    path = write(tmp_path, report)
    with pytest.raises(typed_json.MessageError) as refused:
        snippet_check.read_report(path)
    said = str(refused.value)
    assert said.startswith(f"snippet_check's report, {path}: "), said
    assert expected in said, said
