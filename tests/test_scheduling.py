"""How pytest-xdist spreads the tests (tests/xdist_groups.py): the groups name real modules,
each for the reason it gives, and every other test goes alone."""

from __future__ import annotations

import ast

import pytest

from scripts.core.project_files import ROOT
from tests.xdist_groups import ONE_WORKER_MODULES, scheduling_group


def module_scoped_fixtures(module: str) -> list[str]:
    """The names of the module's fixtures declared with scope="module"."""
    tree = ast.parse((ROOT / module).read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                words = ast.unparse(decorator)
                if "fixture" in words and 'scope="module"' in words.replace("'", '"'):
                    found.append(node.name)
    return found


@pytest.mark.parametrize("module", ONE_WORKER_MODULES)
def test_each_one_worker_module_exists_and_has_a_module_fixture_to_share(module):
    """A module is kept on one worker so that its module-scoped fixture is made once: a
    module renamed, or one left without such a fixture, no longer needs its place."""
    assert (ROOT / module).is_file(), f"ONE_WORKER_MODULES names {module}, which does not exist"
    assert module_scoped_fixtures(module), f"{module} has no module-scoped fixture to share"


def test_browser_tests_share_a_group_each_listed_module_its_own_and_the_rest_go_alone():
    assert scheduling_group("tests/browser/test_pages.py::test_x[a]") == "browser"
    module = ONE_WORKER_MODULES[0]
    assert scheduling_group(f"{module}::test_a") == scheduling_group(f"{module}::test_b[1]")
    assert scheduling_group(f"{module}::test_a") == module
    assert scheduling_group("tests/test_snippets.py::test_runs[mlp-tf216-keras3]") is None
    assert scheduling_group("docs/setup.md::line 12") is None
