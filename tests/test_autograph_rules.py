"""The snippet tests' AutoGraph rule for tf-keras reaches a program's runs of itself that start
a new process (tests/autograph_rules.py), and only when the run asks for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests import autograph_rules
from tests.forked_program import children_forked

# Prints what it finds before and after importing TensorFlow's AutoGraph rules.
PROGRAM = """
import json, os, sys
before = "tensorflow" in sys.modules
from tensorflow.python.autograph.core import config
print(json.dumps({
    "argv": sys.argv[1:],
    "name": __name__,
    "path0": sys.path[0],
    "cwd_on_path": os.getcwd() in sys.path,
    "tensorflow_before": before,
    "tf_keras_unconverted": any(
        isinstance(r, config.DoNotConvert) and r.matches("tf_keras")
        for r in config.CONVERSION_RULES
    ),
}))
"""


def run(root, tmp_path, wrapped: bool, asked: bool) -> dict:
    """What the program saw, run as `python PROGRAM ARG...` or through the wrapper."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(autograph_rules.TF_KERAS_UNCONVERTED, None)
    if asked:
        env[autograph_rules.TF_KERAS_UNCONVERTED] = "1"
    wrapper = ["-m", "tests.autograph_rules"] if wrapped else []
    done = subprocess.run(
        [sys.executable, *wrapper, str(program), "small", "float32"],
        cwd=tmp_path.parent, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_new_process_runs_the_program_as_python_would_with_the_rule_only_when_asked(
    root, tmp_path
):
    direct = run(root, tmp_path, wrapped=False, asked=False)
    assert direct["path0"] == str(tmp_path) and not direct["tensorflow_before"]
    assert run(root, tmp_path, wrapped=True, asked=False) == direct
    asked = run(root, tmp_path, wrapped=True, asked=True)
    assert asked == dict(direct, tf_keras_unconverted=True)


def test_a_run_that_cannot_fork_goes_through_the_rule_only_when_its_environment_asks(
    tmp_path, monkeypatch
):
    program = tmp_path / "snippet.py"
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda args, *more, **kw: calls.append(list(args)))
    asking = {autograph_rules.TF_KERAS_UNCONVERTED: "1"}
    record: list[dict] = []
    with children_forked(program, record):
        subprocess.run([sys.executable, str(program), "small", "a"], env=asking)
        subprocess.run([sys.executable, str(program), "small", "b"], env={})
        subprocess.run([sys.executable, "other.py"], env=asking)
    assert calls == [
        [sys.executable, "-m", "tests.autograph_rules", str(program), "small", "a"],
        [sys.executable, str(program), "small", "b"],
        [sys.executable, "other.py"],
    ]
    assert [r["how"] for r in record] == ["new process", "new process"]
