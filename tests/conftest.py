"""Shared fixtures: the project root, the committed results, and an environment for child runs."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.core import store as results  # noqa: E402
from scripts.findings import results_views  # noqa: E402
from tests.site_build import build_site, build_site_once, made_once  # noqa: E402
from tests.xdist_groups import scheduling_group  # noqa: E402

# The modules with the longest tests (snippets run as programs, full renders, extra site
# builds), started first so that no long test is left alone at the end of a parallel run.
LONGEST_FIRST = ("tests/test_snippets.py", "tests/test_mac_results.py", "tests/test_site.py")


def pytest_collection_modifyitems(items):
    items.sort(key=lambda item: not item.nodeid.startswith(LONGEST_FIRST))  # stable


@pytest.hookimpl(optionalhook=True)  # pytest -p no:xdist does not know this hook
def pytest_xdist_make_scheduler(config, log):
    """Under pytest-xdist (-n auto --dist loadgroup, as the Makefile runs it) every test is
    scheduled on its own, except the groups tests/xdist_groups.py names (the browser tests;
    modules with a costly module-scoped fixture), each kept on one worker. (xdist's own
    xdist_group mark does not reach the scheduler with pytest 9.2, which no longer reads the
    item._nodeid xdist 3.8 rewrites.)"""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling

    class GroupedTestsTogether(LoadGroupScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scheduling_group(nodeid) or super()._split_scope(nodeid)

    return GroupedTestsTogether(config, log)


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def committed_files() -> list[dict]:
    """Every committed results file as it is stored (sessions), sorted by machine id."""
    paths = sorted((ROOT / "results").glob("*.json"))
    return sorted((results.read(p) for p in paths), key=lambda d: d["machine"]["id"])


@pytest.fixture(scope="session")
def committed_results() -> list[dict]:
    """Every committed results file as the pages read it (results_views.view, pooled spread)."""
    data = results_views.load_all()
    assert data, "results/ holds no results file: run `make measure` and commit the result"
    return data


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site as a local build makes it (--strict, no repository address), built once for
    every test that reads it: links, pages, search and the browser tests. Under pytest-xdist
    the workers share one build, in the run's common temporary directory."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build_site(ROOT, tmp_path_factory.mktemp("site"))
    return build_site_once(ROOT, tmp_path_factory.getbasetemp().parent)


@pytest.fixture(scope="session")
def fresh_render(tmp_path_factory) -> dict[str, str]:
    """What `make render` would write now (render_from_disk: committed results, claims and
    reference files), rendered once for every test that compares against it. Under
    pytest-xdist the first worker renders and leaves it in the run's shared temporary
    directory for the others."""
    from scripts.rendering import render

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return render.render_from_disk()
    shared = tmp_path_factory.getbasetemp().parent
    path = made_once(
        shared,
        "render.json",
        lambda out: out.write_text(json.dumps(render.render_from_disk()), encoding="utf-8"),
    )
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture()
def child_env() -> dict:
    """Environment for running the project's scripts in a child process."""
    return dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="2")
