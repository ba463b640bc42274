"""The snippet server (tests/snippet_server.py) runs each request in a fork and answers with its
real outcome: the program's output and report, its failure with the traceback, a run killed at
its timeout; and one request's end does not take the server with it."""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.snippet_server import SnippetServer

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the server forks on Linux only")

SNIPPET = """
import subprocess, sys, time
import tensorflow as tf
VARIANTS = {"one": "the only variant"}
BASELINE = "one"
if sys.argv[1] == "slow":  # starts a process of its own, then outlasts its timeout
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    open(__file__ + ".pid", "w").write(str(child.pid))  # (not os.environ: see needs_new_process)
    time.sleep(120)
if sys.argv[1] == "broken":
    raise ZeroDivisionError("planted failure")
def make_workload(variant, size="full"):
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    return (lambda: tf.reduce_sum(tf.ones([4]))), 4
if __name__ == "__main__":
    run, examples = make_workload("one", sys.argv[1])
    run()
    print("one", int(run()), "examples/s")
"""


@pytest.fixture(scope="module")
def server(root, tmp_path_factory):
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    log = tmp_path_factory.mktemp("server") / "log.txt"
    started = SnippetServer(sys.executable, env, root, log)
    yield started
    started.close()


@pytest.fixture(scope="module")
def snippet(tmp_path_factory):
    path = tmp_path_factory.mktemp("planted") / "planted.py"
    path.write_text(textwrap.dedent(SNIPPET), encoding="utf-8")
    return path


def test_a_run_gives_its_output_and_report(server, snippet, tmp_path):
    report = tmp_path / "report.json"
    done = server.run([str(report), str(snippet), "small"], {}, 120, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "one 4 examples/s\n"
    assert json.loads(report.read_text())["calls"] == {"one": 2}


def test_a_failing_run_is_reported_with_its_traceback(server, snippet, tmp_path):
    done = server.run([str(tmp_path / "r.json"), str(snippet), "broken"], {}, 120, tmp_path)
    assert done.returncode == 1 and "planted failure" in done.stderr


def gone(pid: int) -> bool:
    """The process has ended (absent, or a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith(("Z", "X"))
    except FileNotFoundError:
        return True


def test_a_run_past_its_timeout_is_killed_and_the_server_goes_on(server, snippet, tmp_path):
    slow, pid_file = tmp_path / "slow", Path(f"{snippet}.pid")
    slow.mkdir()
    done = server.run([str(slow / "r.json"), str(snippet), "slow"], {}, 5, slow)
    assert done.returncode < 0 and "killed after its timeout of 5 s" in done.stderr
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(grandchild), "the process the run started outlived the run's timeout"
    again = server.run([str(tmp_path / "r.json"), str(snippet), "small"], {}, 120, tmp_path)
    assert again.returncode == 0 and again.stdout == "one 4 examples/s\n"
