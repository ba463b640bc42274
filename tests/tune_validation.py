"""Shared by the tune validation tests: run tune on one of tests/tune_models/ at small size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.tune import validation
from tests.test_tune_runner import FAST_INPUT


def tune_json(root: Path, model: str, *only: str, budget: float = 1) -> dict:
    """tune on the model with the least budget: every variant gets its minimum rounds and an
    interval, which is what the live runs check (verdicts come from committed runs)."""
    args = [a for name in only for a in ("--only", name)]
    done = subprocess.run(
        [sys.executable, "-m", "scripts.tune", str(validation.MODELS / model), *args,
         "--budget", str(budget), "--json", *FAST_INPUT],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def committed_verdicts(case) -> tuple[bool, bool]:
    """(found on the slow variant, clean on the better one) in the committed full run: the
    verdicts tests read, since no live timing decides a test (issue 27)."""
    run = validation.load()
    return validation.judged(next(e for e in run["cases"] if e["name"] == case.name))


def measured_with_intervals(report: dict, experiment: str) -> list[dict]:
    """The experiment's rows of a small live run, each checked to carry its interval."""
    assert not report["error"], report["error"]
    rows = [row for row in report["rows"] if row["experiment"] == experiment]
    assert rows, report["rows"]
    for row in rows:
        assert row["low"] <= row["point"] <= row["high"], row
    return rows
