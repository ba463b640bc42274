"""Names a reader can trust: no two modules of scripts/ and benchmarks/ share a name up to an
anagram or a reordering of their words (software_stack and stack_software did different jobs),
and no docstring names a .py file that the repository does not hold."""

from __future__ import annotations

import ast
import itertools
import re
from collections import Counter
from pathlib import Path

import pytest

from scripts.core.project_files import ROOT

PACKAGES = ("scripts", "benchmarks")
SOURCE_DIRS = (*PACKAGES, "tests", "snippets", "docs")  # where a named .py file may be
# The same name in two packages, on purpose: each command is the entry point of the stage it
# names (`python -m scripts.measure` runs scripts/measuring/measure.py), and each doctor or tune
# report is named by its package. Renaming these is left to its own change (review 2026-11-28).
SAME_NAME = {
    "measure": "command scripts/measure.py, stage scripts/measuring/measure.py",
    "render": "command scripts/render.py, stage scripts/rendering/render.py",
    "validate": "command scripts/validate.py, stage scripts/results/validate.py",
    "add_sessions": "command scripts/add_sessions.py, stage scripts/results/add_sessions.py",
    "notebooks": "command scripts/notebooks.py, stage scripts/rendering/notebooks.py",
    "report": "scripts/doctor/report.py and scripts/tuning/report.py: each package's report",
}
# A .py name in a docstring that is the reader's file, not the repository's.
READERS_FILES = {"my_model.py": "the reader's model file in tune's usage lines"}
PY_NAME = re.compile(r"(?<![\w/.:-])((?:[\w-]+/)*[\w-]+\.py)\b")


def module_names(root: Path = ROOT) -> dict[str, list[str]]:
    """{module name: [its files]} for every module of scripts/ and benchmarks/."""
    found: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if path.stem not in ("__init__", "__main__"):
                found.setdefault(path.stem, []).append(path.relative_to(root).as_posix())
    return found


def clashes(names: list[str]) -> list[tuple[str, str]]:
    """Pairs of different names with the same letters, or the same words in another order."""
    found = []
    for one, other in itertools.combinations(sorted(names), 2):
        letters = sorted(one.replace("_", "")) == sorted(other.replace("_", ""))
        words = Counter(one.split("_")) == Counter(other.split("_"))
        if letters or words:
            found.append((one, other))
    return found


def test_the_clash_rule_catches_anagrams_and_word_swaps():
    assert clashes(["software_stack", "stack_software"]) == [("software_stack", "stack_software")]
    assert clashes(["stack_probe", "probe_stacks", "stack_match"]) == []
    assert clashes(["notes", "stone", "tones"]) == [
        ("notes", "stone"), ("notes", "tones"), ("stone", "tones"),
    ]  # fmt: skip


def test_no_two_modules_share_a_name_up_to_an_anagram_or_a_word_swap():
    names = module_names()
    assert clashes(list(names)) == []
    shared = {name: files for name, files in names.items() if len(files) > 1}
    unexplained = {name: files for name, files in shared.items() if name not in SAME_NAME}
    assert unexplained == {}, "two modules share a name: rename one, or say why in SAME_NAME"
    assert set(SAME_NAME) <= set(shared), "SAME_NAME lists a name no longer shared: remove it"


def docstrings(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the module's, every class's and every function's docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        kinds = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
        if isinstance(node, kinds) and ast.get_docstring(node, clean=False):
            found.append((getattr(node, "lineno", 1), ast.get_docstring(node, clean=False)))
    return found


def missing_files(text: str, repository_files: set[str]) -> list[str]:
    """The .py names in text that no file of the repository has: a path must exist as given,
    a bare name somewhere."""
    names = {path.rsplit("/", 1)[-1] for path in repository_files}
    missing = []
    for name in PY_NAME.findall(text):
        if name in READERS_FILES:
            continue
        if name not in repository_files if "/" in name else name not in names:
            missing.append(name)
    return missing


def test_the_file_rule_reads_paths_and_bare_names():
    files = {"scripts/core/stack_probe.py", "tests/conftest.py"}
    text = "reads scripts/core/stack_probe.py and conftest.py, not software_probe.py"
    assert missing_files(text, files) == ["software_probe.py"]
    assert missing_files("see https://example.org/a/b.py and tune my_model.py", files) == []
    assert missing_files("scripts/core/probe.py", files) == ["scripts/core/probe.py"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_docstring_names_a_file_that_does_not_exist(package):
    repository_files = {
        p.relative_to(ROOT).as_posix() for top in SOURCE_DIRS for p in (ROOT / top).rglob("*.py")
    }
    problems = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in sorted((ROOT / package).rglob("*.py"))
        for line, text in docstrings(path)
        for name in missing_files(text, repository_files)
    ]
    assert problems == []
