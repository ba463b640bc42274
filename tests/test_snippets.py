"""Every snippet runs at its small size, as a module the harness uses and as a program."""

from __future__ import annotations

import subprocess
import sys

import pytest

from scripts.core import catalog
from scripts.core.rounds import force

SNIPPETS = catalog.measurable_snippets()


def test_there_are_snippets():
    assert SNIPPETS, "no measurable snippet found under snippets/"


def check_variant(module, name: str, variant: str) -> None:
    run, examples = module.make_workload(variant, "small")
    assert callable(run), f"{name}:{variant}: run must be callable"
    assert isinstance(examples, int) and examples > 0, f"{name}:{variant}"
    for _ in range(2):  # the second call is the one the harness times
        result = run()
        assert result is not None, f"{name}:{variant}: run() must return its result"
        force(result)


# ISOLATE_VARIANTS snippets (thread settings...) need each variant in a fresh TensorFlow
# runtime. A child process imports the snippet (TensorFlow imported, its runtime not yet
# started) and checks each variant in a forked copy of itself: as fresh as a new process,
# without importing TensorFlow again. Where fork is unsafe (macOS), one child per variant.
CHECK_IN_CHILD = """
import os, sys, traceback
from pathlib import Path
from scripts.core import catalog
from tests.test_snippets import check_variant
name, path, *variants = sys.argv[1:]
module = catalog.load(catalog.Snippet(name, Path(path)))
if len(variants) == 1:
    check_variant(module, name, variants[0])
    sys.exit(0)
failed = []
for variant in variants:
    pid = os.fork()
    if pid == 0:
        try:
            check_variant(module, name, variant)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    if os.waitpid(pid, 0)[1] != 0:
        failed.append(variant)
sys.exit(f"variants failed: {failed}" if failed else 0)
"""


def check_isolated(snippet, variants: list[str], child_env: dict, root) -> None:
    groups = [variants] if sys.platform == "linux" else [[v] for v in variants]
    for group in groups:
        done = subprocess.run(
            [sys.executable, "-c", CHECK_IN_CHILD, snippet.name, str(snippet.path), *group],
            cwd=root, capture_output=True, text=True, env=child_env, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{snippet.name}: {group}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_every_variant_runs_and_gives_what_the_harness_needs(snippet, child_env, root):
    module = catalog.load(snippet)
    assert module.BASELINE in module.VARIANTS
    for variant, label in module.VARIANTS.items():
        assert isinstance(label, str) and label, f"{snippet.name}:{variant} needs a description"
    if getattr(module, "ISOLATE_VARIANTS", False):
        check_isolated(snippet, list(module.VARIANTS), child_env, root)
        return
    for variant in module.VARIANTS:
        check_variant(module, snippet.name, variant)


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_unknown_variant_is_refused_by_name(snippet):
    module = catalog.load(snippet)
    with pytest.raises(ValueError, match="no_such_variant"):
        module.make_workload("no_such_variant", "small")


@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_runs_as_a_program_and_prints_every_variant(snippet, child_env):
    done = subprocess.run(
        [sys.executable, str(snippet.path), "small"],
        capture_output=True, text=True, env=child_env, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    module = catalog.load(snippet)
    printed = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert printed == list(module.VARIANTS)
    assert all("examples/s" in line for line in done.stdout.splitlines() if line.strip())


def test_snippets_import_only_tensorflow_numpy_and_the_standard_library(root):
    allowed = {"tensorflow", "keras", "numpy"} | set(sys.stdlib_module_names)
    for snippet in catalog.all_snippets():
        for line in snippet.path.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                top = words[1].split(".")[0]
                assert top in allowed, f"{snippet.relpath} imports {top}"
