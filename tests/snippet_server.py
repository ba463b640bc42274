"""One stack's snippet runner for a test session, and the client the tests talk to it with.

`python -m tests.snippet_server` runs with the stack's own Python and environment. It imports
TensorFlow (and the Keras `from tensorflow import keras` gives on that stack) once, checks
that this started no runtime, then reads one request per line on stdin: the arguments of
`python -m tests.snippet_check REPORT SNIPPET SIZE`, extra environment variables and two
files for the run's stdout and stderr. Each request runs in a fork of the server, where
snippet_check runs the snippet as a program: TensorFlow imported, its runtime not started, as
fresh as a new process (tests/forked_program.py says why), without the 2 s of CPU a new
interpreter spends importing TensorFlow. It answers with the run's exit code on one line.

The fork cannot take back what the snippet's own module does to the environment before it
imports TensorFlow: a snippet whose top level touches os.environ is run in a new process
instead (needs_new_process). So is every snippet on a platform other than Linux, where a fork
after TensorFlow's import is not safe (forked_program.fork_is_safe): there the server is
never started.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.forked_program import fork_is_safe, start_fork

READY = "ready"


def needs_new_process(snippet: Path) -> bool:
    """A snippet whose module-level code names os.environ: what it sets there before its
    imports would take effect in a new process but not in a fork of an imported TensorFlow."""
    import ast

    from tests.snippet_check import is_main_guard

    tree = ast.parse(snippet.read_text(encoding="utf-8"))
    definitions = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    top_level = [n for n in tree.body if not (isinstance(n, definitions) or is_main_guard(n))]
    return any("environ" in ast.unparse(node) for node in top_level)


def why_new_process(snippet: Path) -> str | None:
    """Why the snippet's run must start a new process rather than a fork; None if it need not."""
    if not fork_is_safe():
        return f"{sys.platform}: a fork after TensorFlow's import is safe on Linux only"
    if needs_new_process(snippet):
        return "its top level touches os.environ"
    return None


def serve() -> int:
    """The server's loop: import once, then one forked snippet_check per request line."""
    import tensorflow  # noqa: F401 - the import every run would otherwise repeat
    from tensorflow import keras  # noqa: F401 - and the Keras this stack gives tf.keras
    from tensorflow.python.eager import context

    from tests import snippet_check

    if context.context_safe() is not None:
        print(
            "importing TensorFlow started its runtime: a fork would not be fresh", file=sys.stderr
        )
        return 2
    print(READY, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        code = run_request(request, snippet_check)
        print(json.dumps({"returncode": code}), flush=True)
    return 0


def run_request(request: dict, snippet_check) -> int:
    """One run of snippet_check.main(args) in a fork, killed after its timeout with every
    process it started."""

    def run() -> int:
        os.setpgid(0, 0)  # its own group, so a timeout also stops what it started
        os.environ.update(request["env"])
        return snippet_check.main(list(request["args"]))

    with open(request["stdout"], "wb") as out, open(request["stderr"], "wb") as err:
        pid = start_fork(run, out.fileno(), err.fileno())
    deadline = time.monotonic() + request["timeout"]
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:  # it had not made its group yet
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            with open(request["stderr"], "a", encoding="utf-8") as err:
                err.write(f"\nkilled after its timeout of {request['timeout']} s\n")
            return -signal.SIGKILL
        time.sleep(0.02)


class SnippetServer:
    """The tests' end: starts `python -m tests.snippet_server` with a stack's Python and
    environment, and runs snippet_check through it (or in a new process where it must)."""

    def __init__(self, python: Path, env: dict, root: Path, log: Path) -> None:
        self.python, self.env, self.root, self.log = python, env, root, log
        self.process = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [str(self.python), "-m", "tests.snippet_server"],
            cwd=self.root, env=self.env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=open(self.log, "wb"), text=True,
        )  # fmt: skip
        first = self.answer(timeout=300)
        if first != READY:
            raise RuntimeError(f"the snippet server did not start: {self.log_tail()}")

    def answer(self, timeout: float) -> str:
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(f"no answer from the snippet server: {self.log_tail()}")
        return line.strip()

    def log_tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]

    def run(self, args: list[str], extra_env: dict, timeout: float, tmp: Path):
        """snippet_check with args; a CompletedProcess with its stdout and stderr as text."""
        out, err = tmp / "stdout.txt", tmp / "stderr.txt"
        if why_new_process(Path(args[1])) is not None:
            command = [str(self.python), "-m", "tests.snippet_check", *args]
            try:
                return subprocess.run(
                    command, cwd=self.root, env=dict(self.env, **extra_env),
                    capture_output=True, text=True, timeout=timeout, check=False,
                )  # fmt: skip
            except subprocess.TimeoutExpired as late:
                said = late.stderr.decode(errors="replace") if late.stderr else ""
                note = f"\nkilled after its timeout of {timeout} s\n"
                return subprocess.CompletedProcess(command, -signal.SIGKILL, "", said + note)
        if self.process is None:
            self.start()
        request = {"args": args, "env": extra_env, "timeout": timeout, "stdout": str(out),
                   "stderr": str(err)}  # fmt: skip
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        code = json.loads(self.answer(timeout=timeout + 60))["returncode"]
        return subprocess.CompletedProcess(
            args, code, out.read_text(encoding="utf-8", errors="replace"),
            err.read_text(encoding="utf-8", errors="replace"),
        )  # fmt: skip

    def close(self) -> None:
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


if __name__ == "__main__":
    sys.exit(serve())
