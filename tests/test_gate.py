"""`make check` (the edit loop's gate) and `make test-end-to-end` (CI's job beside it) together
run every test on the default stack, and `make test` runs every test: the marks split the suite,
they never drop a test."""

from __future__ import annotations

import subprocess
import sys

from tests.test_snippets import pytest_arguments


def mark_expression(makefile: str, target: str) -> str | None:
    """The -m expression `make <target>` gives pytest, or None."""
    arguments = pytest_arguments(makefile, target)
    return arguments[arguments.index("-m") + 1] if "-m" in arguments else None


def test_the_gate_and_the_end_to_end_job_split_the_default_stack_and_make_test_runs_all(root):
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    assert mark_expression(makefile, "test") is None
    # (not S and not E) and (E and not S) are disjoint, and together are `not S`: every item
    # but the other stacks' snippet runs and page blocks, which `make test` and stacks.yml run.
    assert mark_expression(makefile, "check") == "not stack_matrix and not end_to_end"
    assert mark_expression(makefile, "test-end-to-end") == "end_to_end and not stack_matrix"


def test_every_browser_test_is_end_to_end(root):
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
               "tests/browser"]  # fmt: skip
    every = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    gate = subprocess.run([*command, "-m", "not end_to_end"], cwd=root, capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert every.returncode == 0, every.stdout + every.stderr
    assert sum("::" in line for line in every.stdout.splitlines()) > 10
    assert not [line for line in gate.stdout.splitlines() if "::" in line], gate.stdout
