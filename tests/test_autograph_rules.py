"""The snippet tests' AutoGraph rule for tf-keras reaches a program's runs of itself that start
a new process (tests/autograph_rules.py), and only when the run asks for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

from tests import autograph_rules
from tests.forked_program import children_forked

# Prints what it finds; with the argument "tf", also whether AutoGraph's rules, once
# imported, leave tf-keras unconverted (TensorFlow is imported only then).
PROGRAM = """
import json, os, sys
seen = {
    "argv": sys.argv[1:],
    "name": __name__,
    "path0": sys.path[0],
    "cwd_on_path": os.getcwd() in sys.path,
    "tensorflow_before": "tensorflow" in sys.modules,
}
if sys.argv[-1] == "tf":
    from tensorflow.python.autograph.core import config
    seen["tf_keras_unconverted"] = any(
        isinstance(r, config.DoNotConvert) and r.matches("tf_keras")
        for r in config.CONVERSION_RULES
    )
print(json.dumps(seen))
"""


def run(root, tmp_path, wrapped: bool, asked: bool, *args: str) -> dict:
    """What the program saw, run as `python PROGRAM ARG...` or through the wrapper."""
    program = tmp_path / "program.py"
    program.write_text(PROGRAM, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(autograph_rules.TF_KERAS_UNCONVERTED, None)
    if asked:
        env[autograph_rules.TF_KERAS_UNCONVERTED] = "1"
    wrapper = ["-m", "tests.autograph_rules"] if wrapped else []
    done = subprocess.run(
        [sys.executable, *wrapper, str(program), "small", *args],
        cwd=tmp_path.parent, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_new_process_runs_the_program_as_python_would(root, tmp_path):
    direct = run(root, tmp_path, False, False)
    assert direct["argv"] == ["small"] and direct["path0"] == str(tmp_path), direct
    assert run(root, tmp_path, True, False) == direct
    assert run(root, tmp_path, True, True) == direct  # the rule imports nothing by itself


def test_asked_the_rule_is_in_tensorflows_rules_once_the_program_imports_them(root, tmp_path):
    # The installed TensorFlow's own rules, read from its file: without the rule, not there.
    package = Path(find_spec("tensorflow").submodule_search_locations[0])  # not imported
    config = package / "python" / "autograph" / "core" / "config.py"
    assert "DoNotConvert('tf_keras')" not in config.read_text(encoding="utf-8"), (
        "this TensorFlow leaves tf-keras unconverted itself: the rule, and this test, can go"
    )
    assert run(root, tmp_path, True, True, "tf")["tf_keras_unconverted"] is True


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
