"""tune's Mac paths, with fakes (the project's machines have no Mac and no GPU): the Metal GPU
picked up as TensorFlow lists it, the GPU-or-CPU experiment in processes of its own (the GPU
hidden in one), the GPU correctness check, and a Mac without tensorflow-metal."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from scripts.core import provenance
from scripts.tuning import analysis, child, experiments, model_file, report, runner
from tests.mac_samples import FakeMac
from tests.test_tune_report import FACTS, timings
from tests.test_tune_runner import model_text, reader  # noqa: F401 (a fixture)

METAL_FACTS = {**FACTS, "devices": ["CPU:0", "GPU:0"], "gpu": True, "keras_package": "keras"}


def test_with_a_metal_gpu_the_gpu_experiments_run_and_threads_do_not():
    chosen, skipped = runner.plan(None, METAL_FACTS)
    assert "device" in chosen and "correctness" in chosen
    assert "GPU is in use" in skipped["threads"]
    chosen, skipped = runner.plan(None, FACTS)
    assert skipped["device"] == skipped["correctness"] == "TensorFlow sees no GPU here"
    machine = provenance.collect_machine(FakeMac())
    machine["tensorflow_metal"] = "1.1.0"
    provenance.set_devices(machine, METAL_FACTS["devices"])
    assert machine["description"].endswith("tensorflow-metal 1.1.0")
    assert runner.mac_gpu_note(machine, {"tensorflow_metal": "1.1.0"}, METAL_FACTS) is None


def test_the_cpu_arm_hides_the_gpu_in_processes_of_its_own(monkeypatch):
    calls = []

    def fake_child(path, experiment, say, facts=None, options=(), timeout=0):
        calls.append(options)
        name = options[options.index("--arm") + 1]
        seconds = 0.004 if name == "cpu_only" else 0.010  # a small model: the CPU wins
        return {"arms": {name: {"samples_per_run": 320, "times_s": timings(seconds, rounds=5)}}}

    monkeypatch.setattr(runner, "run_child", fake_child)
    measured = runner.run_isolated(
        Path("my_model.py"), "device", METAL_FACTS, lambda line: None, 60
    )
    hidden = [options for options in calls if "--hide-gpu" in options]
    assert len(calls) == 2 * runner.PROCESS_ROUNDS and len(hidden) == runner.PROCESS_ROUNDS
    assert all(options[options.index("--arm") + 1] == "cpu_only" for options in hidden)
    (row,) = analysis.rows_for("device", measured, METAL_FACTS)
    # one time per process (the median of its five runs), paired by process round
    assert row.recommended and row.rounds == runner.PROCESS_ROUNDS
    runs = measured["arms"]["cpu_only"]["run_times_s"]
    assert [len(times) for times in runs] == [runner.RUNS_PER_PROCESS] * runner.PROCESS_ROUNDS
    assert 'tf.config.set_visible_devices([], "GPU")' in row.change


@pytest.mark.end_to_end
def test_the_child_can_hide_a_gpu_before_tensorflow_starts(root, reader, tmp_path):  # noqa: F811
    (reader / "my_model.py").write_text(model_text())
    out = tmp_path / "check.json"
    done = subprocess.run(
        [sys.executable, "-m", "scripts.tuning.child", "--file", str(reader / "my_model.py"),
         "--experiment", "check", "--hide-gpu", "--out", str(out)],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"gpu": false' in out.read_text()


def test_the_correctness_check_runs_the_readers_model_on_two_devices(reader):  # noqa: F811
    # No GPU here: the same code path with the CPU on both sides must agree exactly.
    path = reader / "my_model.py"
    path.write_text(model_text())
    setup = child.Setup(path)
    found = child.device_agreement(setup, ("/CPU:0", "/CPU:0"))
    assert found["agrees"] and found["first_difference"] is None
    assert found["steps"] == 3 and found["loss_cpu"] == found["loss_gpu"]
    assert "agree within tolerance" in report.correctness_line(found)
    assert model_file.keras_package(setup.model()) == "keras"


def test_a_difference_beyond_the_guides_tolerance_is_named():
    import numpy as np

    same = [np.ones((2, 2), np.float32)]
    assert child.first_difference([1.0, 0.5], [1.0, 0.5 * (1 + 5e-4)], same, same) is None
    moved = [np.array([[1.0, 1.0], [1.0, 1.1]], np.float32)]
    assert (
        child.first_difference([1.0], [1.0], same, moved)
        == "weight 0[3]: 1.1 on the GPU, 1 on the CPU"
    )
    assert child.first_difference([1.0, 0.5], [1.0, 0.6], same, same).startswith(
        "loss at step 2: 0.6 on the GPU"
    )
    line = report.correctness_line(
        {"steps": 2, "agrees": False, "first_difference": "loss at step 2: ..."}
    )
    assert (
        "DIFFER: loss at step 2" in line
        and "gpu-correctness.md#what-to-do-when-they-differ" in line
    )


def test_the_tolerance_is_the_guides(root):
    source = (root / "snippets" / "correctness" / "device_agreement.py").read_text()
    (line,) = [line for line in source.splitlines() if line.startswith("RTOL, ATOL = ")]
    assert (experiments.RTOL, experiments.ATOL) == ast.literal_eval(line.split("=", 1)[1].strip())


@pytest.mark.end_to_end
def test_a_mac_without_tensorflow_metal_is_told_why_there_is_no_gpu(root, reader):  # noqa: F811
    path = reader / "my_model.py"
    path.write_text(model_text())
    found = runner.tune(path, ["graph"], budget_s=4, say=lambda line: None, probe=FakeMac())
    assert found["error"] is None
    assert found["machine"]["os"] == "Darwin" and found["machine"]["metal_gpu"] is False
    note = found["notes"][0]
    assert note.startswith("no GPU on this Mac: tensorflow-metal is not installed")
    assert "docs/setup.md#check-that-tensorflow-sees-the-gpu" in note
    assert found["skipped"]["device"] == "TensorFlow sees no GPU here"
    text = report.to_text(found)
    assert "Apple M1 Max" in text and "CPU only" in text
    installed = runner.mac_gpu_note(found["machine"], {"tensorflow_metal": "1.1.0"}, found["facts"])
    assert "tensorflow-metal 1.1.0 is installed but TensorFlow lists no GPU" in installed
    linux = {**found["machine"], "os": "Linux"}
    assert runner.mac_gpu_note(linux, {}, found["facts"]) is None


def test_on_a_mac_with_the_metal_gpu_the_xla_arm_is_skipped_quoting_keras(
    monkeypatch,
    reader,  # noqa: F811
):
    path = reader / "my_model.py"
    path.write_text(model_text())
    experiments_run = []

    def fake_child(path, experiment, say, facts=None, options=(), timeout=0):
        if experiment == "check":
            return {"facts": {**METAL_FACTS, "run_eagerly": False, "jit_compile": False}}
        experiments_run.append(experiment)
        return {"arms": {}}

    monkeypatch.setattr(runner, "run_child", fake_child)
    found = runner.tune(path, ["graph"], budget_s=4, say=lambda line: None, probe=FakeMac())
    assert found["facts"]["metal_gpu"] is True
    assert "graph" not in experiments_run
    assert found["skipped"]["graph"] == experiments.XLA_ON_METAL
    assert '"XLA not supported with TF on MacOS GPU"' in found["skipped"]["graph"]
    # the same model run eagerly still gets its graph arm: a Mac's GPU does not stop that
    eager = {**found["facts"], "run_eagerly": True}
    assert [arm.name for arm in experiments.arms("graph", eager)] == ["as_given", "graph"]
    # and elsewhere (Linux, or a Mac without a GPU) the XLA arm is run
    linux = {**found["machine"], "os": "Linux"}
    assert runner.metal_gpu(linux, found["facts"]) is False
    assert runner.metal_gpu(found["machine"], {**found["facts"], "gpu": False}) is False


def test_with_tf_keras_on_a_mac_the_xla_arm_is_skipped_gpu_or_not(monkeypatch, reader):  # noqa: F811
    """tf-keras's can_jit_compile turns jit_compile off on any Apple-silicon Mac (mac-advice I4):
    without a listed GPU too, the arm would train the model as given."""
    path = reader / "my_model.py"
    path.write_text(model_text())
    experiments_run = []
    facts = {**FACTS, "keras_package": "tf_keras", "run_eagerly": False, "jit_compile": False}

    def fake_child(path, experiment, say, facts_=None, options=(), timeout=0):
        if experiment == "check":
            return {"facts": dict(facts)}
        experiments_run.append(experiment)
        return {"arms": {}}

    monkeypatch.setattr(runner, "run_child", lambda p, e, s, facts=None, options=(), timeout=0:
                        fake_child(p, e, s, facts, options, timeout))  # fmt: skip
    found = runner.tune(path, ["graph"], budget_s=4, say=lambda line: None, probe=FakeMac())
    assert found["facts"]["gpu"] is False and found["facts"]["apple_silicon"] is True
    assert "graph" not in experiments_run
    assert found["skipped"]["graph"] == experiments.XLA_TF_KERAS_ON_MAC
    assert "Falling back to `jit_compile=False`" in found["skipped"]["graph"]
    # Keras 3 on the same Mac without a listed GPU gets its XLA arm
    keras3 = {**found["facts"], "keras_package": "keras"}
    assert [arm.name for arm in experiments.arms("graph", keras3)] == ["as_given", "xla_on"]
