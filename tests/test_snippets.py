"""Every snippet runs at its small size on every measured stack, as a program, and gives the
harness what it needs; a snippet that cannot run on a stack is skipped there by name."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

from scripts.core import catalog, measured_stacks
from tests import autograph_rules, snippet_check
from tests.snippet_server import SnippetServer

SNIPPETS = catalog.measurable_snippets()


def test_there_are_snippets():
    assert SNIPPETS, "no measurable snippet found under snippets/"


STACKS = measured_stacks.load()


def stack_marks(stack_id: str):
    """The stack dimension's mark: every stack but the default carries `stack_matrix`
    (pyproject.toml), so `make check` runs the default stack only and `make test` runs them all;
    the page code blocks (tests/test_page_code.py) take the same mark."""
    return () if stack_id == measured_stacks.DEFAULT else pytest.mark.stack_matrix


STACK_PARAMS = [pytest.param(stack, id=stack.id, marks=stack_marks(stack.id)) for stack in STACKS]


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def stack_for_test(stack: measured_stacks.Stack, root) -> measured_stacks.Stack:
    """The stack, if its environment is here; a missing one fails in CI (`make test` builds
    every stack's environment) and skips elsewhere, naming the command that builds it."""
    missing = stack.missing(root)
    if missing and in_ci():
        pytest.fail(f"CI=true but {missing}")
    if missing:
        pytest.skip(missing)
    return stack


@pytest.fixture(scope="session")
def snippet_servers(root, tmp_path_factory):
    """One snippet server per stack for this test process (tests/snippet_server.py), started
    at its first run: TensorFlow is imported once per stack, not once per snippet."""
    servers: dict[str, SnippetServer] = {}
    logs = tmp_path_factory.mktemp("snippet-servers")

    def server_for(stack: measured_stacks.Stack) -> SnippetServer:
        if stack.id not in servers:
            env = stack.environ(dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"))
            servers[stack.id] = SnippetServer(
                stack.interpreter(root), env, root, logs / f"{stack.id}.log"
            )
        return servers[stack.id]

    yield server_for
    for server in servers.values():
        server.close()


# On TF 2.16.2 + tf-keras, AutoGraph converts tf-keras's own code at a training step's first
# trace (TF 2.21's rules leave it out): 20 of a variant's 21 s there. The tf-keras runs took
# about 560 of a quiet run's 2,000 worker-seconds (2-core Xeon, 2026-11-29). So the runs leave
# tf-keras unconverted (tests/autograph_rules.py), as TF 2.21 does, except this
# snippet's, which keeps TensorFlow's own rules: a tf-keras fit() traced as a reader's is.
# `make measure` always runs the snippets as readers do.
ON_TENSORFLOWS_AUTOGRAPH_RULES = "graph_execution/fit_jit"


def leaves_tf_keras_unconverted(snippet, stack: measured_stacks.Stack) -> bool:
    return stack.legacy_keras and snippet.name != ON_TENSORFLOWS_AUTOGRAPH_RULES


def run_as_program(snippet, stack, server, tmp_path) -> tuple[str, snippet_check.Report]:
    """One run of `python <snippet> small` with the stack's Python and TF_USE_LEGACY_KERAS,
    every workload it builds checked as the harness uses it (tests/snippet_check.py): its
    printed output and the check's report."""
    report = tmp_path / "report.json"
    extra = {}
    if stack.id != measured_stacks.DEFAULT:  # the forked contract checks run on the default
        extra[snippet_check.CONTRACT_ONLY_ON_DEFAULT] = "1"
    if leaves_tf_keras_unconverted(snippet, stack):
        extra[autograph_rules.TF_KERAS_UNCONVERTED] = "1"
    done = server.run([str(report), str(snippet.path), "small"], extra, 600, tmp_path)
    assert done.returncode == 0, f"{snippet.name} on {stack.id}:\n{done.stderr[-3000:]}"
    return done.stdout, snippet_check.read_report(report)


# One run per snippet per stack serves both the harness's contract and the program's output.
@pytest.mark.parametrize("stack", STACK_PARAMS)
@pytest.mark.parametrize("snippet", SNIPPETS, ids=lambda s: s.name)
def test_runs_as_a_program_on_every_stack_and_gives_what_the_harness_needs(
    snippet, stack, snippet_servers, root, tmp_path
):
    reason = catalog.skip_reason(snippet, stack.id)
    if reason:
        pytest.skip(f"{snippet.name} on {stack.id}: {reason} (SKIP_ON_STACKS)")
    stack = stack_for_test(stack, root)
    stdout, report = run_as_program(snippet, stack, snippet_servers(stack), tmp_path)
    variants = report["variants"]
    assert report["baseline"] in variants
    assert report["autograph"] == (
        "tf_keras left unconverted"
        if leaves_tf_keras_unconverted(snippet, stack)
        else "tensorflow's rules"
    )
    for variant, label in variants.items():
        assert isinstance(label, str) and label, f"{snippet.name}:{variant} needs a description"
    assert "no_such_variant" in report["unknown_variant_error"]
    # The harness's contract: every variant built and its run called at least twice (the
    # second call is the one the harness times), each result forced (snippet_check.py);
    # ISOLATE_VARIANTS ones each in a fresh runtime (a failure there fails the run).
    if report["isolated"]:  # forked contract checks on the default stack, the program on all
        assert report["forked_checks"] is (stack.id == measured_stacks.DEFAULT), report
        # The program ran itself once per variant, each in a fork with TensorFlow's runtime
        # not started or, where that could not be promised, in a new process.
        assert [child["args"][-1] for child in report["children"]] == list(variants), report
        assert all(c["how"] == "fork" or c["why"] for c in report["children"]), report
    if not report["isolated"]:
        assert set(report["calls"]) == set(variants), report
        assert all(calls >= 2 for calls in report["calls"].values()), report
    # The program's output: one line per variant, in order, each with its rate.
    printed = [line.split()[0] for line in stdout.splitlines() if line.strip()]
    assert printed == list(variants), f"{snippet.name} on {stack.id}:\n{stdout}"
    assert all("examples/s" in line for line in stdout.splitlines() if line.strip())


# Every run a snippet declares it cannot make (SKIP_ON_STACKS), (snippet, stack) -> reason, as
# reviewed: a new skip is written here too, so that none comes in unnoticed.
DECLARED_SKIPS: dict[tuple[str, str], str] = {}


def test_the_skipped_runs_are_exactly_the_declared_ones_each_with_its_reason():
    known = {stack.id for stack in STACKS}
    found = {}
    for snippet in catalog.all_snippets():
        for stack_id, reason in catalog.skips_on_stacks(snippet).items():
            assert stack_id in known, f"{snippet.relpath}: SKIP_ON_STACKS names {stack_id!r}"
            assert len(reason) <= 160, f"{snippet.relpath}: a one-line reason, please"
            found[(snippet.name, stack_id)] = reason
    assert found == DECLARED_SKIPS


def test_snippets_import_only_tensorflow_numpy_and_the_standard_library(root):
    allowed = {"tensorflow", "keras", "numpy"} | set(sys.stdlib_module_names)
    for snippet in catalog.all_snippets():
        for line in snippet.path.read_text().splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                top = words[1].split(".")[0]
                assert top in allowed, f"{snippet.relpath} imports {top}"


RUN_TEST = (
    "tests/test_snippets.py::test_runs_as_a_program_on_every_stack_and_gives_what_the_harness_needs"
)


def pytest_arguments(makefile: str, target: str) -> list[str]:
    """The arguments `make <target>` gives pytest, read from its recipe in the Makefile."""
    recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, f"the Makefile has no {target} target"
    [line] = [line for line in recipe.group(1).splitlines() if "$(PYTEST)" in line]
    arguments = shlex.split(line.split("$(PYTEST)", 1)[1])
    # Options only: a path would narrow the run, and the collection below adds its own.
    assert not [a for a in arguments if a.startswith("tests") or ".py" in a], (target, arguments)
    return arguments


def snippet_runs_collected(arguments: list[str], root) -> set[str]:
    """The snippet runs pytest collects with these arguments, without xdist (-p no:xdist, as
    one debugs a test: this also fails if the suite cannot run without it)."""
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
               *arguments, "tests/test_snippets.py"]  # fmt: skip
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return {line for line in done.stdout.splitlines() if line.startswith(RUN_TEST + "[")}


def test_make_test_runs_every_snippet_on_every_stack_and_make_check_the_default_one(root):
    """Every (snippet, stack) item is in `make test`'s one pytest run; `make check` holds the
    default stack's and no other. A snippet or a stack left out of either fails here."""
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    every = {f"{RUN_TEST}[{snippet.name}-{stack.id}]" for snippet in SNIPPETS for stack in STACKS}
    default = {item for item in every if item.endswith(f"-{measured_stacks.DEFAULT}]")}
    assert len(every) == len(SNIPPETS) * len(STACKS) and default
    assert snippet_runs_collected(pytest_arguments(makefile, "test"), root) == every
    assert snippet_runs_collected(pytest_arguments(makefile, "check"), root) == default
