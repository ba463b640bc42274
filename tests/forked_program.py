"""Run `python PROGRAM ARG...` in a forked copy of this process instead of a new interpreter.

The program's file is executed afresh as `__main__`, with that argv, in the fork; what is
saved is the start of a new interpreter and the imports this process has already made
(TensorFlow's takes about 2 s of CPU on the project's machines). That is as fresh as a new
process only while TensorFlow's runtime has not started here: no op run, no device listed,
no thread setting made (tensorflow.python.eager.context has made no context). Thread pools,
device visibility, AutoGraph's conversions and every first-call cost then start in the fork,
as they would in a new process. Where this process cannot promise that, or the call asks for
something a fork would not honour (another environment, another directory), the real
subprocess.run runs the program instead.

Linux only (fork after TensorFlow's import is not safe on macOS): start_fork, the one place
the snippet tests fork, refuses on any other platform, and every caller starts a new process
there instead.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import traceback
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests import autograph_rules

# subprocess.run's keywords a forked run honours; any other makes it a real new process.
HONOURED = {"check", "capture_output", "text"}


def fork_is_safe() -> bool:
    """Whether a fork of a process that imported TensorFlow is as fresh as a new process: on
    Linux only. On macOS the Objective-C runtime and Metal refuse to be used after a fork."""
    return sys.platform == "linux"


def runtime_started() -> bool:
    """True once TensorFlow has made its runtime context in this process (or cannot say)."""
    context = sys.modules.get("tensorflow.python.eager.context")
    if context is None:
        return False
    safe = getattr(context, "context_safe", None)
    return safe is None or safe() is not None


def why_not_forked(args, program: Path, kwargs: dict) -> str | None:
    """Why the call `subprocess.run(args, **kwargs)` must start a new process, or None."""
    if not fork_is_safe():
        return "not Linux"
    if not isinstance(args, list | tuple) or len(args) < 2 or args[0] != sys.executable:
        return "not this Python running a file"
    if Path(args[1]).resolve() != program.resolve():
        return "another program"
    unknown = set(kwargs) - HONOURED
    if unknown:
        return f"asks for {sorted(unknown)}"
    if runtime_started():
        return "TensorFlow's runtime has started in this process"
    return None


def exec_as_main(argv: list[str]) -> int:
    """Execute argv[0] as `python argv[0] argv[1:]` would, in this process; its exit code."""
    path = Path(argv[0]).resolve()
    sys.argv = list(argv)
    sys.path.insert(0, str(path.parent))  # as Python does for a script
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    sys.modules["__main__"] = module
    random.seed()  # a new process seeds from the OS; a fork would repeat the parent's state
    try:
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), module.__dict__)  # noqa: S102
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    return 0


def start_fork(run, out: int | None = None, err: int | None = None) -> int:
    """Fork; the fork calls run() with its stdout and stderr on the given descriptors (this
    process's own where None) and exits with what run() returns (1 if it raised, with the
    traceback on stderr), without this process's clean-up. Returns the fork's pid. The only
    fork in the snippet tests: it refuses where fork_is_safe() does not hold."""
    if not fork_is_safe():
        raise RuntimeError(f"no fork after importing TensorFlow on {sys.platform}: Linux only")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            if out is not None:
                os.dup2(out, 1)
            if err is not None:
                os.dup2(err, 2)
            code = run()
        except BaseException:
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:  # noqa: BLE001 - a closed stream cannot lose us the code
                    pass
            os._exit(code)
    return pid


def run_in_fork(run, out: int | None = None, err: int | None = None) -> int:
    """start_fork(run, out, err), then wait for the fork; its exit code."""
    pid = start_fork(run, out, err)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def fork_and_run(argv: list[str], out: int | None = None, err: int | None = None) -> int:
    """Run exec_as_main(argv) in a fork, its output on the given descriptors; its exit code."""
    return run_in_fork(lambda: exec_as_main(argv), out, err)


def run_forked(args: list[str], capture_output=False, text=False, check=False):
    """subprocess.run(args, ...) for `python PROGRAM ARG...`, the program run in a fork."""
    if not capture_output:
        code, stdout, stderr = fork_and_run(list(args[1:])), None, None
    else:
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            code = fork_and_run(list(args[1:]), out.fileno(), err.fileno())
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
        if text:
            stdout, stderr = stdout.decode(), stderr.decode()
    if check and code != 0:
        raise subprocess.CalledProcessError(code, args, stdout, stderr)
    return subprocess.CompletedProcess(args, code, stdout, stderr)


@contextmanager
def children_forked(program: Path, record: list[dict]) -> Iterator[None]:
    """While inside, subprocess.run calls that start `program` again in this Python run in a
    fork where that is as fresh as a new process; record gets one entry per such call: its
    arguments and how it ran ("fork", or "new process" with why). A new process keeps the
    AutoGraph rule a fork would inherit where its environment asks for it
    (tests/autograph_rules.py)."""
    real_run = subprocess.run

    def run(args, *more, **kwargs):
        starts_program = (
            isinstance(args, list | tuple)
            and len(args) > 1
            and args[0] == sys.executable
            and str(args[1]).endswith(program.name)
        )
        why = "positional arguments" if more else why_not_forked(args, program, kwargs)
        if starts_program:
            record.append({"args": [str(a) for a in args[2:]], "how": "fork" if why is None
                           else "new process", "why": why})  # fmt: skip
        if why is None:
            return run_forked(list(args), **kwargs)
        if starts_program and autograph_rules.asked(kwargs.get("env")):
            args = [sys.executable, "-m", "tests.autograph_rules", *args[1:]]
        return real_run(args, *more, **kwargs)

    subprocess.run = run
    try:
        yield
    finally:
        subprocess.run = real_run
