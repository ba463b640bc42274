"""The fork that stands in for a new process in the snippet tests (tests/forked_program.py,
tests/snippet_server.py) is used only where it is as fresh as one, and falls back otherwise.

The planted program sets TensorFlow's thread pools, which raises once the runtime has started:
run in a fork of a process that imported TensorFlow but ran nothing, it must succeed; once the
parent has run an op, the same call must go to a new process (and succeed there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests import forked_program
from tests.snippet_server import needs_new_process

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the fork is used on Linux only")

PLANTED = """
import sys
import tensorflow as tf
tf.config.threading.set_intra_op_parallelism_threads(1)  # RuntimeError once it has started
print("ran", sys.argv[1], int(tf.reduce_sum(tf.ones([3]))), flush=True)
if sys.argv[1] == "fail":
    sys.exit(3)
"""

# Runs in a child: TensorFlow imported, nothing run; then the same calls after an op has run.
SCENARIOS = """
import json, subprocess, sys
from pathlib import Path
import tensorflow as tf
from tests.forked_program import children_forked
program = Path(sys.argv[1])
record, results = [], {}
with children_forked(program, record):
    results["plain"] = subprocess.run([sys.executable, str(program), "plain"]).returncode
    results["captured"] = subprocess.run(
        [sys.executable, str(program), "captured"], capture_output=True, text=True
    ).stdout
    try:
        subprocess.run([sys.executable, str(program), "fail"], check=True)
    except subprocess.CalledProcessError as error:
        results["fail"] = error.returncode
    results["env"] = subprocess.run(
        [sys.executable, str(program), "env"], env={**__import__("os").environ}
    ).returncode
    tf.reduce_sum(tf.ones([2]))  # the runtime starts here
    results["after_start"] = subprocess.run([sys.executable, str(program), "late"]).returncode
print(json.dumps({"record": record, "results": results}))
"""


@pytest.fixture(scope="module")
def scenarios(root, tmp_path_factory):
    program = tmp_path_factory.mktemp("planted") / "planted.py"
    program.write_text(PLANTED, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", SCENARIOS, str(program)], cwd=root, capture_output=True,
        text=True, timeout=300, check=False,
        env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    *printed, last = done.stdout.strip().splitlines()
    return json.loads(last), printed


def test_a_fork_of_an_imported_tensorflow_can_still_set_its_threads(scenarios):
    found, printed = scenarios
    assert found["results"]["plain"] == 0
    assert found["results"]["captured"] == "ran captured 3\n"  # captured, not printed
    assert "ran plain 3" in printed and not any("captured" in line for line in printed)
    assert [r["how"] for r in found["record"][:2]] == ["fork", "fork"]


def test_the_exit_code_of_the_forked_program_is_kept(scenarios):
    found, _ = scenarios
    assert found["results"]["fail"] == 3
    assert found["record"][2] == {"args": ["fail"], "how": "fork", "why": None}


def test_another_environment_or_a_started_runtime_gets_a_new_process(scenarios):
    found, printed = scenarios
    env, late = found["record"][3], found["record"][4]
    assert env["how"] == "new process" and env["why"] == "asks for ['env']"
    assert late["how"] == "new process" and "runtime has started" in late["why"]
    # In a new process the thread setting still works: the program ran to its end.
    assert found["results"]["after_start"] == 0 and "ran late 3" in printed


def test_other_programs_are_left_to_subprocess(tmp_path):
    program = tmp_path / "planted.py"
    assert forked_program.why_not_forked(["ls", str(program)], program, {}) is not None
    other = tmp_path / "other.py"
    assert forked_program.why_not_forked([sys.executable, str(other)], program, {}) == (
        "another program"
    )


def test_a_snippet_that_sets_the_environment_at_its_top_runs_in_a_new_process(tmp_path):
    sets = tmp_path / "sets.py"
    sets.write_text(
        textwrap.dedent("""
            import os
            os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
            import tensorflow as tf
        """),
        encoding="utf-8",
    )
    inside = tmp_path / "inside.py"
    inside.write_text(
        textwrap.dedent("""
            import os
            def cap():
                os.environ["ONEDNN_MAX_CPU_ISA"] = "AVX2"
            if __name__ == "__main__":
                os.environ["X"] = "1"
        """),
        encoding="utf-8",
    )
    assert needs_new_process(sets) and not needs_new_process(inside)
