"""The measured stacks (data/measured_stacks.yml): their file is checked, each names how its
environment is built, what an environment really loads is probed (a fake Python here), and a
stack's environment is built from its lock with hashes and rebuilt only when the lock changes."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from scripts import stack_env
from scripts.core import measured_stacks, software_stack, stack_probe
from scripts.installs import stack_environment


def test_each_stack_is_named_as_results_name_its_versions_and_selects_its_keras(root):
    """The id is what software_stack names a results entry of these versions; tf-keras is
    selected by TF_USE_LEGACY_KERAS exactly where it is the stack's Keras; a lock exists."""
    for stack in measured_stacks.load():
        software = {"tensorflow": stack.tensorflow, "keras": stack.keras}
        assert software_stack.name(software) == stack.id, stack.id
        assert stack.legacy_keras is (stack.keras_package == "tf-keras"), stack.id
        assert stack.lock is None or (root / stack.lock).is_file(), stack.id


def test_each_lock_pins_the_stacks_tensorflow_and_keras(root):
    for stack in measured_stacks.load():
        lock = (root / (stack.lock or "requirements.txt")).read_text(encoding="utf-8")
        assert f"\n{stack.keras_package}=={stack.keras} " in lock, stack.id
        assert f"tensorflow-cpu=={stack.tensorflow} " in lock, stack.id


def test_the_legacy_keras_variable_is_set_or_removed_as_the_stack_needs():
    keras3, tf_keras = (
        measured_stacks.by_id("tf216-keras3"),
        measured_stacks.by_id("tf216-tf-keras"),
    )
    shell = {"TF_USE_LEGACY_KERAS": "1", "HOME": "/h"}  # a shell that activated the Mac recipe
    assert "TF_USE_LEGACY_KERAS" not in keras3.environ(shell)
    assert tf_keras.environ({"HOME": "/h"})["TF_USE_LEGACY_KERAS"] == "1"


def test_a_bad_stack_file_or_id_is_named(tmp_path):
    path = tmp_path / "stacks.yml"
    path.write_text("- id: x\n  title: 3\n")
    with pytest.raises(measured_stacks.StackError) as refused:
        measured_stacks.load(path)
    assert "stacks.yml: [0]: missing field(s) why, tensorflow" in str(refused.value)
    assert "[0].title: expected text, got 3" in str(refused.value)
    with pytest.raises(measured_stacks.StackError, match="unknown stack 'tf99'.*tf216-keras3"):
        measured_stacks.by_id("tf99")


def fake_python(software: dict, returncode: int = 0):
    def run(command, env):
        assert command[1] == "-c" and env["TF_CPP_MIN_LOG_LEVEL"] == "2"
        run.env = env
        out = json.dumps(software) if returncode == 0 else ""
        return subprocess.CompletedProcess(command, returncode, out, "ImportError: no tensorflow")

    return run


def test_the_probe_records_what_the_environment_loads_and_refuses_another_stack():
    stack = measured_stacks.by_id("tf216-tf-keras")
    loaded = {"python": "3.11.7", "tensorflow": "2.16.2", "keras": "2.16.0",
              "keras_package": "tf-keras", "numpy": "1.26.4", "tensorflow_metal": None}  # fmt: skip
    run = fake_python(loaded)
    assert stack_probe.probe(stack, run) == loaded
    assert run.env["TF_USE_LEGACY_KERAS"] == "1"
    keras3 = {**loaded, "keras": "3.10.0", "keras_package": "keras"}  # the variable had no effect
    with pytest.raises(measured_stacks.StackError, match="which is stack tf216-keras3; rebuild"):
        stack_probe.probe(stack, fake_python(keras3))
    with pytest.raises(
        measured_stacks.StackError, match="could not import TensorFlow: ImportError"
    ):
        stack_probe.probe(stack, fake_python(loaded, returncode=1))


def test_a_stack_environment_is_built_from_its_lock_once(tmp_path):
    (tmp_path / "locks").mkdir()
    (tmp_path / "locks" / "s.txt").write_text("keras==3.15.1 --hash=sha256:00\n")
    stack = measured_stacks.Stack(
        id="s", title="t", tensorflow="2.21.0", keras_package="keras", keras="3.15.1",
        mac_measured=False, why="w", legacy_keras=False, environment=".venv-s", mac="m",
        lock="locks/s.txt",
    )  # fmt: skip
    commands = []

    def run(command):
        commands.append(command)
        if "venv" in command:
            (tmp_path / ".venv-s" / "bin").mkdir(parents=True)
            (tmp_path / ".venv-s" / "bin" / "python").write_text("")

    stack_environment.build(stack, tmp_path, run, say=lambda line: None)
    assert commands[0][1:3] == ["-m", "venv"]
    assert {"--require-hashes", "--no-deps"} <= set(commands[1]) and commands[1][-1].endswith(
        "s.txt"
    )
    stack_environment.build(stack, tmp_path, run, say=lambda line: None)
    assert len(commands) == 2  # the lock did not change: nothing ran
    (tmp_path / "locks" / "s.txt").write_text("keras==3.15.2 --hash=sha256:01\n")
    stack_environment.build(stack, tmp_path, run, say=lambda line: None)
    assert len(commands) == 3 and "venv" not in commands[2]  # reinstalled, not remade


def test_make_test_builds_every_stack_that_has_its_own_environment(root, monkeypatch):
    built = []
    monkeypatch.setattr(stack_environment, "build", built.append)
    assert stack_env.main(["--all"]) == 0
    assert [stack.id for stack in built] == [s.id for s in measured_stacks.load() if s.lock]
    assert "tf221-keras3" in [stack.id for stack in built]
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^test: .*\bstack-envs\b", makefile, re.MULTILINE)
    assert "scripts.stack_env --all" in makefile
    assert stack_env.main(["no-such-stack"]) == 2


def test_mac_measured_says_what_the_results_files_hold(committed_files):
    """mac_measured is true exactly where a Mac's results file has a session of the stack; while
    it is false, every session of the stack ran on a Linux CPU with no GPU, which is what the
    doctor tells a Mac reader (scripts/doctor/rules_measured_stack.py)."""
    for stack in measured_stacks.load():
        machines = [
            data["machine"]
            for data in committed_files
            if any(session["stack"] == stack.id for session in data["sessions"])
        ]
        assert stack.mac_measured == any(m["os"] == "Darwin" for m in machines), stack.id
        if not stack.mac_measured:
            assert machines, f"{stack.id}: no results file has a session of it"
            for m in machines:
                assert m["os"] == "Linux" and m["tf_devices"] == ["CPU:0"], (stack.id, m["id"])
