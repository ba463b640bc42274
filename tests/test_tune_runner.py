"""tune from the command line on small models, each experiment in child processes: progress
lines, --only and --json, a Keras 2 (tf_keras, a fake wrapping Keras 3) model, bad input
named with its file and function, and nothing written beside the reader's file (what goes
wrong during a run: tests/test_tune_failures.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from scripts.tuning import experiments

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


# The input experiment's variants interleaved in one process (--design fresh): the default, a
# process per variant, starts ten or more TensorFlow processes per run, too slow beside the rest
# of the tests; how it schedules them is tested with fake children (test_tune_iterators.py).
FAST_INPUT = ("--design", "fresh")


def tune(root: Path, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(
        [sys.executable, "-m", "scripts.tune", *args, *FAST_INPUT], cwd=cwd, env=env,
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


@pytest.mark.end_to_end
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


@pytest.mark.end_to_end
def test_one_experiment_measured_with_progress_json_and_nothing_written(root, reader):
    path = reader / "my_model.py"
    path.write_text(model_text())
    before = snapshot(reader)
    done = tune(
        root,
        "my_model.py",
        "--only",
        "input",
        "--budget",
        "5",
        "--json",
        "--html",
        "../report.html",
        cwd=reader,
    )
    assert done.returncode == 0, done.stderr
    assert "<svg" in (reader.parent / "report.html").read_text()  # where it was asked for
    assert "tune: checking my_model.py" in done.stderr  # progress goes to stderr with --json
    assert "input: round" in done.stderr
    found = json.loads(done.stdout)
    assert found["facts"]["data_kind"] == "dataset" and found["facts"]["batch_size"] == 32
    assert {r["arm"] for r in found["rows"]} == {"in_memory", "prefetch"}
    assert all(r["low"] is not None and r["rounds"] >= 5 for r in found["rows"])
    assert set(found["skipped"]) == set(experiments.ORDER) - {"input"}
    assert found["machine"]["description"] and found["software"]["tensorflow"] and found["date"]
    assert snapshot(reader) == before


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


@pytest.mark.end_to_end
def test_a_keras2_tf_keras_model_is_measured(root, reader):
    (reader / "tf_keras.py").write_text(FAKE_TF_KERAS)
    (reader / "my_model.py").write_text(
        model_text().replace("import keras\n", "import tf_keras as keras\n")
    )
    done = tune(root, "my_model.py", "--only", "input", "--budget", "4", cwd=reader)
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Keras 2.16.0 (tf_keras)" in done.stdout
    assert "held in memory" in done.stdout


def check_facts(root: Path, path: Path, out: Path, *options: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-m", "scripts.tuning.child", "--file", str(path),
         "--experiment", "check", "--out", str(out), *options],
        cwd=root, env=dict(os.environ, PYTHONPATH=str(root), TF_CPP_MIN_LOG_LEVEL="2"),
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    found = json.loads(out.read_text())
    assert done.returncode == (1 if found["error"] else 0), done.stderr
    return found


@pytest.mark.end_to_end
def test_a_thread_arm_measures_its_count_where_the_file_pins_its_own(root, reader, tmp_path):
    pinned = "import tensorflow as tf\ntf.config.threading.set_intra_op_parallelism_threads(1)\n"
    path = reader / "my_model.py"
    path.write_text(pinned + model_text())
    out = tmp_path / "check.json"
    assert check_facts(root, path, out)["facts"]["intra_op_threads"] == 1  # as given
    found = check_facts(root, path, out, "--intra-threads", "2")
    assert found["facts"]["intra_op_threads"] == 2  # the arm's, not the file's
    path.write_text(pinned + "tf.constant(0)  # the runtime starts at import\n" + model_text())
    error = check_facts(root, path, out, "--intra-threads", "2")["error"]
    assert error.startswith(f"{path}: importing it set the intra-op threads and started")


def test_isolated_experiments_take_more_process_rounds_as_the_budget_allows():
    from scripts.tuning import runner

    assert runner.process_rounds(5, 3, 4.0) == runner.PROCESS_ROUNDS
    assert runner.process_rounds(96, 3, 4.0) == 8
    assert runner.process_rounds(1e4, 3, 4.0) == runner.MAX_PROCESS_ROUNDS
