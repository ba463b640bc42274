"""Run a snippet as a program once and check, from that one run, what the harness needs.

`python -m tests.snippet_check REPORT SNIPPET_PATH SIZE` runs with a stack's own Python
(tests/test_snippets.py starts it), so it imports only the standard library and what the
stack's environment holds: never pytest.

The snippet runs as `python SNIPPET_PATH SIZE` would run it: as `__main__`, with that argv,
its own `if __name__ == "__main__":` block printing its lines to stdout. One thing differs:
before that block runs, the module's make_workload is wrapped, so every workload the program
builds is checked as the harness uses it (run callable, examples a positive int, every run()
returning a result that can be forced). A variant the program never builds through
make_workload (a snippet whose main has its own path) is then checked directly, each run
called twice (the second call is the one the harness times).

ISOLATE_VARIANTS snippets run each variant in a child process of their own (`sys.executable
__file__ ...`), out of this wrapper's reach. Their variants are checked first, each in a
forked copy of this process (TensorFlow imported, its runtime not yet started: as fresh as a
new process; one child process per variant where fork is unsafe, on macOS), then the program
runs as it is, except that its runs of itself are made in a fork where that is as fresh as a
new process (tests/forked_program.py says when); the report lists each with how it ran.

REPORT receives JSON (Report, typed below; tests/test_snippets.py reads it with read_report,
which names the file and the field of anything amiss): the VARIANTS and BASELINE the module
defines, the checked run() calls per variant, the variants checked directly, and what
make_workload says of an unknown variant. A failed check raises, so the process exits non-zero
with the traceback on stderr.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Literal, TypedDict

from scripts.core import typed_json
from scripts.core.rounds import force
from tests.autograph_rules import tf_keras_autograph
from tests.forked_program import children_forked, fork_is_safe, run_in_fork

# Set to "1" on a stack other than the default one: an ISOLATE_VARIANTS snippet then only runs
# as the program (each variant in its own child, on that stack), without the forked contract
# checks, which test the code's shape and are made on the default stack.
CONTRACT_ONLY_ON_DEFAULT = "SNIPPET_CHECK_PROGRAM_ONLY"


class CheckFailed(AssertionError):
    """A snippet that does not give the harness what it needs; the message names it."""


class ProgramRun(TypedDict):
    """One run an ISOLATE_VARIANTS program made of itself: its arguments, and whether it ran
    in a fork or in a new process, and then why (tests/forked_program.py)."""

    args: list[str]
    how: Literal["fork", "new process"]
    why: str | None


class Report(TypedDict):
    """What one check of a snippet reports (REPORT)."""

    variants: dict[str, str]  # VARIANTS: name -> description
    baseline: str  # BASELINE
    unknown_variant_error: str  # what make_workload("no_such_variant") raised
    isolated: bool  # ISOLATE_VARIANTS
    forked_checks: bool  # its variants checked in forks (the default stack only)
    calls: dict[str, int]  # checked run() calls per variant (not for isolated snippets)
    checked_directly: list[str]  # variants the program never built through make_workload
    children: list[ProgramRun]
    autograph: str  # the AutoGraph rules the run used (tests/autograph_rules.py)


def read_report(path: Path) -> Report:
    """The report at path, held to Report; else typed_json.MessageError naming the file, the
    field and what was expected."""
    return typed_json.read(path, Report, "snippet_check's report")


def is_main_guard(node: ast.stmt) -> bool:
    """`if __name__ == "__main__":` at the module's top level."""
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


class CheckedRun:
    """A workload's run, checked at every call; any other attribute is the run's own."""

    def __init__(self, run, where: str, calls: dict, variant: str) -> None:
        self._run, self._where, self._calls, self._variant = run, where, calls, variant

    def __call__(self, *args, **kwargs):
        result = self._run(*args, **kwargs)
        if result is None:
            raise CheckFailed(f"{self._where}: run() must return its result")
        force(result)
        self._calls[self._variant] = self._calls.get(self._variant, 0) + 1
        return result

    def __getattr__(self, name: str):
        return getattr(self._run, name)


def checked_make_workload(make_workload, name: str, calls: dict):
    def make(variant, *args, **kwargs):
        made = make_workload(variant, *args, **kwargs)
        where = f"{name}:{variant}"
        if not (isinstance(made, tuple) and len(made) == 2):
            raise CheckFailed(f"{where}: make_workload must return (run, examples_per_run)")
        run, examples = made
        if not callable(run):
            raise CheckFailed(f"{where}: run must be callable")
        if not (isinstance(examples, int) and examples > 0):
            raise CheckFailed(f"{where}: examples_per_run must be a positive int: {examples!r}")
        return CheckedRun(run, where, calls, variant), examples

    return make


def check_variant(make_workload, name: str, variant: str, size: str, calls: dict) -> None:
    """The harness's use of one variant: build it, call its run twice, force each result."""
    run, _ = checked_make_workload(make_workload, name, calls)(variant, size)
    for _ in range(2):  # the second call is the one the harness times
        run()


def check_isolated(path: Path, namespace: dict, name: str, size: str) -> None:
    """Every variant in a fresh TensorFlow runtime: forked on Linux, a new process elsewhere.
    What a check prints (TensorFlow's logs) goes to stderr: it is not the program's output."""
    failed = []
    for variant in namespace["VARIANTS"]:
        if fork_is_safe():

            def check(variant: str = variant) -> int:
                check_variant(namespace["make_workload"], name, variant, size, {})
                return 0

            code = run_in_fork(check, out=2)
        else:
            code = subprocess.run(
                [sys.executable, "-c", ONE_VARIANT, str(path), name, variant, size],
                stdout=sys.stderr, check=False,
            ).returncode  # fmt: skip
        if code != 0:
            failed.append(variant)
    if failed:
        raise CheckFailed(f"{name}: variants failed in a fresh runtime: {failed}")


# One variant of an ISOLATE_VARIANTS snippet in a process of its own (where fork is unsafe).
ONE_VARIANT = """
import sys
from pathlib import Path
from tests.snippet_check import check_variant, module_without_main
path, name, variant, size = sys.argv[1:]
namespace, _ = module_without_main(Path(path), "snippet_under_check")
check_variant(namespace["make_workload"], name, variant, size, {})
"""


def module_without_main(path: Path, module_name: str) -> tuple[dict, list[ast.stmt]]:
    """Execute the snippet's module body as module_name, all but its main block, which is
    returned for the caller to run."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    main_blocks = [node for node in tree.body if is_main_guard(node)]
    tree.body = [node for node in tree.body if not is_main_guard(node)]
    module = types.ModuleType(module_name)
    module.__file__ = str(path)
    sys.modules[module_name] = module
    exec(compile(tree, str(path), "exec"), module.__dict__)  # noqa: S102 - our own snippet
    return module.__dict__, main_blocks


def check_program(path: Path, size: str) -> Report:
    """Run the snippet as `python path size` would, its workloads checked; returns the report."""
    name = path.with_suffix("").relative_to(path.parents[1]).as_posix()
    autograph = tf_keras_autograph()
    sys.argv = [str(path), size]
    sys.path.insert(0, str(path.parent))  # as Python does for a script
    namespace, main_blocks = module_without_main(path, "__main__")
    if not main_blocks:
        raise CheckFailed(f'{name}: no `if __name__ == "__main__":` block to run')
    variants = namespace.get("VARIANTS")
    if not isinstance(variants, dict) or not variants:
        raise CheckFailed(f"{name}: VARIANTS must be a non-empty dict name -> text")
    make_workload = namespace["make_workload"]
    calls: dict[str, int] = {}
    isolated = bool(namespace.get("ISOLATE_VARIANTS", False))
    forked = isolated and os.environ.get(CONTRACT_ONLY_ON_DEFAULT) != "1"
    if forked:
        check_isolated(path, namespace, name, size)
    elif not isolated:
        namespace["make_workload"] = checked_make_workload(make_workload, name, calls)
    main = ast.Module(body=main_blocks, type_ignores=[])
    children: list[dict] = []  # the program's own runs of itself (ISOLATE_VARIANTS)
    try:
        with children_forked(path, children):
            exec(compile(main, str(path), "exec"), namespace)  # noqa: S102 - our own snippet
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise
    sys.stdout.flush()
    directly = [] if isolated else [v for v in variants if calls.get(v, 0) < 2]
    for variant in directly:
        check_variant(make_workload, name, variant, size, calls)
    return {
        "variants": variants,
        "baseline": namespace.get("BASELINE"),
        "unknown_variant_error": unknown_variant_error(make_workload, size),
        "isolated": isolated,
        "forked_checks": forked,
        "calls": calls,
        "checked_directly": directly,
        "children": children,
        "autograph": autograph,
    }


def unknown_variant_error(make_workload, size: str) -> str:
    """What make_workload says of a variant it does not have (it must raise ValueError)."""
    try:
        make_workload("no_such_variant", size)
    except ValueError as error:
        return str(error)
    raise CheckFailed("make_workload('no_such_variant') must raise ValueError naming it")


def main(argv: list[str]) -> int:
    report, path, size = argv
    result = check_program(Path(path).resolve(), size)
    Path(report).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
