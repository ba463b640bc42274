"""The snippet server (tests/snippet_server.py) runs each request in a fork and answers with its
real outcome: the program's output and report, its failure with the traceback, a run killed at
its timeout; and one request's end does not take the server with it. On macOS (faked here)
nothing forks: neither the server nor snippet_check inside a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests import forked_program
from tests.snippet_server import SnippetServer

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="the server forks on Linux only")

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


@linux_only
def test_a_run_gives_its_output_and_report(server, snippet, tmp_path):
    report = tmp_path / "report.json"
    done = server.run([str(report), str(snippet), "small"], {}, 120, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "one 4 examples/s\n"
    assert json.loads(report.read_text())["calls"] == {"one": 2}


@linux_only
def test_a_failing_run_is_reported_with_its_traceback(server, snippet, tmp_path):
    done = server.run([str(tmp_path / "r.json"), str(snippet), "broken"], {}, 120, tmp_path)
    assert done.returncode == 1 and "planted failure" in done.stderr


def gone(pid: int) -> bool:
    """The process has ended (absent, or a zombie waiting to be reaped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith(("Z", "X"))
    except FileNotFoundError:
        return True


@linux_only
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


def refuse_forks(monkeypatch) -> None:
    def refused(*args, **kwargs):
        raise AssertionError("a fork, or the forking server started, on macOS")

    monkeypatch.setattr(os, "fork", refused)
    monkeypatch.setattr(subprocess, "Popen", refused)


def test_on_macos_the_server_never_starts_and_each_run_is_a_new_process(
    monkeypatch, root, snippet, tmp_path
):
    monkeypatch.setattr(sys, "platform", "darwin")
    refuse_forks(monkeypatch)
    ran = []

    def run(command, **kwargs):
        ran.append(command)
        return subprocess.CompletedProcess(command, 0, "one 4 examples/s\n", "")

    monkeypatch.setattr(subprocess, "run", run)
    server = SnippetServer(Path(sys.executable), {}, root, tmp_path / "log.txt")
    args = [str(tmp_path / "r.json"), str(snippet), "small"]
    done = server.run(args, {}, 60, tmp_path)
    assert done.returncode == 0 and server.process is None
    assert ran == [[sys.executable, "-m", "tests.snippet_check", *args]]


# snippet_check as the server's fallback runs it on a Mac: TensorFlow imported first, the
# platform faked, and any fork an error.
ON_A_FAKED_MAC = """
import os, sys
import tensorflow
sys.platform = "darwin"
def refused():
    raise AssertionError("os.fork after importing TensorFlow on macOS")
os.fork = refused
from tests import snippet_check
sys.exit(snippet_check.main(sys.argv[1:]))
"""

ISOLATED = """
import subprocess, sys
VARIANTS = {"first": "one", "second": "two"}
BASELINE = "first"
ISOLATE_VARIANTS = True
def make_workload(variant, size="full"):
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    return (lambda: [variant]), 1
if __name__ == "__main__":
    if len(sys.argv) > 2:
        run, examples = make_workload(sys.argv[2], sys.argv[1])
        print(sys.argv[2], len(run()), "examples/s")
    else:
        for variant in VARIANTS:
            subprocess.run([sys.executable, __file__, sys.argv[1], variant], check=True)
"""


def test_on_macos_the_isolated_checks_and_the_programs_own_runs_are_new_processes(root, tmp_path):
    program = tmp_path / "planted" / "isolated.py"
    program.parent.mkdir()
    program.write_text(ISOLATED, encoding="utf-8")
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", ON_A_FAKED_MAC, str(report), str(program), "small"],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
        env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == "first 1 examples/s second 1 examples/s".split()
    found = json.loads(report.read_text(encoding="utf-8"))
    assert found["forked_checks"] is True  # the contract checks ran, each in a new process
    assert [(c["args"], c["how"], c["why"]) for c in found["children"]] == [
        (["small", variant], "new process", "not Linux") for variant in ("first", "second")
    ]


def test_on_macos_the_one_fork_of_the_snippet_tests_refuses(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    refuse_forks(monkeypatch)
    with pytest.raises(RuntimeError, match="Linux only"):
        forked_program.start_fork(lambda: 0)
