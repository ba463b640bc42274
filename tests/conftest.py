"""Shared fixtures: the project root, the committed results, and an environment for child runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.core import store as results  # noqa: E402
from tests.site_build import build_site  # noqa: E402


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def committed_results() -> list[dict]:
    data = results.load_all()
    assert data, "results/ holds no results file: run `make measure` and commit the result"
    return data


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as a local build makes it (--strict, no repository address), built once for
    every test that reads it: links, pages, search and the browser tests."""
    return build_site(ROOT, tmp_path_factory.mktemp("site"))


@pytest.fixture()
def child_env() -> dict:
    """Environment for running the project's scripts in a child process."""
    return dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
