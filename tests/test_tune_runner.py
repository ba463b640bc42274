"""tune from the command line on small models, each experiment in child processes: progress
lines, --only and --json, a Keras 2 (tf_keras, a fake wrapping Keras 3) model, bad input
named with its file and function, an experiment that fails alone, data that runs out,
Ctrl-C keeping what was measured, and nothing written beside the reader's file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

SMALL_MODEL = """
import keras
import numpy as np
import tensorflow as tf

STEPS_PER_RUN = 3


def build_model():
    {policy_check}
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(4)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def training_data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 8), dtype=np.float32)
    y = rng.standard_normal((256, 4), dtype=np.float32)
    return {data}
"""
DATASET = "tf.data.Dataset.from_tensor_slices((x, y)).batch(32)"


def model_text(data: str = DATASET, policy_check: str = "pass") -> str:
    return textwrap.dedent(SMALL_MODEL).format(data=data, policy_check=policy_check)


def tune(root: Path, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, "-m", "scripts.tune", *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def snapshot(folder: Path) -> dict:
    return {p: p.stat().st_mtime_ns for p in folder.rglob("*")}


@pytest.fixture()
def reader(tmp_path) -> Path:
    folder = tmp_path / "reader"
    folder.mkdir()
    return folder


def test_a_bad_file_is_refused_before_any_child_starts(root, reader):
    (reader / "my_model.py").write_text("def build_model():\n    pass\n")
    done = tune(root, "my_model.py", cwd=reader, timeout=30)
    assert done.returncode == 2
    assert (
        "error: my_model.py: training_data() is not defined; expected a function training_data()"
        in done.stdout
    )
    assert "Nothing was measured." in done.stdout
    assert "Traceback" not in done.stderr


def test_a_model_that_cannot_train_on_its_batches_is_named(root, reader):
    wrong = "tf.data.Dataset.from_tensor_slices((x, y[:, :3])).batch(32)"
    (reader / "my_model.py").write_text(model_text(wrong))
    done = tune(root, "my_model.py", "--json", cwd=reader)
    assert done.returncode == 2, done.stderr
    error = json.loads(done.stdout)["error"]
    assert error.startswith(
        "my_model.py: build_model()'s model could not take a training step on the CPU"
    )
    assert "expected a model that trains on those batches" in error


def test_one_experiment_measured_with_progress_json_and_nothing_written(root, reader):
    path = reader / "my_model.py"
    path.write_text(model_text())
    before = snapshot(reader)
    done = tune(root, "my_model.py", "--only", "input", "--budget", "5", "--json", cwd=reader)
    assert done.returncode == 0, done.stderr
    assert "tune: checking my_model.py" in done.stderr  # progress goes to stderr with --json
    assert "input: round" in done.stderr
    found = json.loads(done.stdout)
    assert found["facts"]["data_kind"] == "dataset" and found["facts"]["batch_size"] == 32
    assert {r["arm"] for r in found["rows"]} == {"in_memory", "prefetch"}
    assert all(r["low"] is not None and r["rounds"] >= 5 for r in found["rows"])
    assert set(found["skipped"]) == {"graph", "batch", "threads", "precision", "drift"}
    assert found["machine"]["description"] and found["software"]["tensorflow"] and found["date"]
    assert snapshot(reader) == before


def test_a_failing_experiment_fails_alone_and_data_that_runs_out_is_named(root, reader):
    # Under a mixed policy build_model() raises; the dataset is built on a generator object,
    # so it runs out once read past its 8 batches.
    refuses_mixed = "assert keras.mixed_precision.global_policy().name == 'float32', 'float32 only'"
    once = (
        "tf.data.Dataset.from_generator(lambda g=iter([(x[i:i + 32], y[i:i + 32]) for i in "
        "range(0, 256, 32)]): g, output_signature=(tf.TensorSpec((32, 8)), tf.TensorSpec((32, 4))))"
    )
    (reader / "my_model.py").write_text(model_text(policy_check=refuses_mixed))
    (reader / "once.py").write_text(model_text(once))
    done = tune(
        root,
        "my_model.py",
        "--only",
        "graph",
        "--only",
        "precision",
        "--budget",
        "5",
        "--json",
        cwd=reader,
    )
    assert done.returncode == 0, done.stderr
    rows = {r["arm"]: r for r in json.loads(done.stdout)["rows"]}
    assert rows["xla_on"]["low"] is not None  # measured
    for name in ("mixed_float16", "mixed_bfloat16"):
        assert rows[name]["verdict"] == "failed"
        assert (
            "my_model.py: build_model() raised AssertionError: float32 only" in rows[name]["note"]
        )
    done = tune(root, "once.py", "--only", "input", "--budget", "5", "--json", cwd=reader)
    rows = json.loads(done.stdout)["rows"]
    assert rows and all(r["verdict"] == "failed" for r in rows)
    assert "once.py: training_data()'s dataset ran out after" in rows[0]["note"]
    assert "expected a dataset that can be read many times" in rows[0]["note"]


FAKE_TF_KERAS = '''
"""A stand-in for Keras 2's tf_keras (not installed here): Keras 3 underneath, its model
classes named as tf_keras names them, so tune takes the Keras 2 path."""
import keras
from keras import Input, layers, mixed_precision, optimizers  # noqa: F401

__version__ = "2.16.0"


class Model(keras.Model):
    pass


class Sequential(keras.Sequential, Model):
    pass


Model.__module__ = "tf_keras.src.engine.training"
Sequential.__module__ = "tf_keras.src.engine.sequential"
'''


def test_a_keras2_tf_keras_model_is_measured(root, reader):
    (reader / "tf_keras.py").write_text(FAKE_TF_KERAS)
    (reader / "my_model.py").write_text(
        model_text().replace("import keras\n", "import tf_keras as keras\n")
    )
    done = tune(root, "my_model.py", "--only", "input", "--budget", "4", cwd=reader)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Keras 2.16.0 (tf_keras)" in done.stdout
    assert "held in memory" in done.stdout


def test_ctrl_c_prints_what_was_measured(root, reader):
    (reader / "my_model.py").write_text(model_text())
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    command = [
        sys.executable,
        "-m",
        "scripts.tune",
        "my_model.py",
        "--only",
        "input",
        "--only",
        "graph",
        "--budget",
        "200",
    ]
    child = subprocess.Popen(
        command,
        cwd=reader,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    lines = []
    deadline = time.monotonic() + 90
    for line in child.stdout:  # progress comes on stdout without --json
        lines.append(line)
        if "input: round" in line or time.monotonic() > deadline:
            break
    time.sleep(3)  # a few more rounds
    os.killpg(child.pid, signal.SIGINT)  # as the terminal sends Ctrl-C to the whole group
    rest, errors = child.communicate(timeout=60)
    text = "".join(lines) + rest
    assert child.returncode == 130, errors
    assert "interrupted (Ctrl-C): the table holds what was measured until then" in text
    assert "held in memory" in text  # the input experiment's rows are there
    # graph was cut short or never started, and says so
    assert "XLA on" in text or "graph execution: not run (interrupted)" in text
    assert "Traceback" not in errors


def test_an_experiment_whose_process_dies_fails_alone(root, reader):
    dies_in_graph = "import os, sys\n    if 'graph' in sys.argv: os._exit(3)"
    (reader / "my_model.py").write_text(model_text(policy_check=dies_in_graph))
    done = tune(
        root,
        "my_model.py",
        "--only",
        "input",
        "--only",
        "graph",
        "--budget",
        "5",
        "--json",
        cwd=reader,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    rows = {r["arm"]: r for r in found["rows"]}
    assert rows["in_memory"]["low"] is not None  # input was measured
    assert rows["xla_on"]["verdict"] == "failed"
    assert any(
        n.startswith("graph execution failed: graph: the child process stopped (exit status 3)")
        for n in found["notes"]
    )
