"""The overhead benchmark runs (its numbers are a benchmark's, read by people, never asserted:
a timed test on shared cores would fail for the machine's reasons, not tune's)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest


@pytest.mark.end_to_end
def test_the_overhead_benchmark_runs(root):
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.tune.overhead", "scripts/tuning/template.py",
         "--budget", "0"],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert re.search(
        r"scripts/tuning/template.py: \d\.\d{4} \(\d\.\d{4}-\d\.\d{4}\), 20 rounds", done.stdout
    )


def test_the_page_shows_the_committed_benchmark(root):
    from benchmarks.tune import overhead

    found = overhead.load(overhead.RUN_JSON)
    assert overhead.TABLE_MD.read_text(encoding="utf-8") == overhead.render(found)
    page = (root / "docs" / "tune-validation.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/overhead.md"' in page
    snippet_models = {row["file"] for row in found["rows"] if "tests/tune_models/" in row["file"]}
    assert len(snippet_models) >= 3  # issue 19: at least three of the guide's models
