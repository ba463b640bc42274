"""Shared by the tune validation tests: run tune on one of tests/tune_models/ at small size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from scripts.tuning import analysis

MODELS = Path(__file__).resolve().parent / "tune_models"


def tune_json(root: Path, model: str, *only: str, budget: float = 12) -> dict:
    args = [a for name in only for a in ("--only", name)]
    done = subprocess.run(
        [sys.executable, "-m", "scripts.tune", str(MODELS / model), *args,
         "--budget", str(budget), "--json"],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def top_recommendation(report: dict) -> dict | None:
    found = analysis.recommendations(report["rows"])
    return found[0] if found else None
