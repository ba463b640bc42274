"""tune when things go wrong, from the command line on small models: an experiment that
fails alone (its model refusing a policy, its process dying), data that runs out, and Ctrl-C
keeping what was measured."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.test_tune_runner import FAST_INPUT, model_text, reader, tune  # noqa: F401 (a fixture)


@pytest.mark.end_to_end
def test_a_failing_experiment_fails_alone_and_data_that_runs_out_is_named(root, reader):  # noqa: F811
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


@pytest.mark.end_to_end
def test_ctrl_c_prints_what_was_measured(root, reader):  # noqa: F811
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
        *FAST_INPUT,
    ]
    # A shell without job control starts a background job with SIGINT ignored, and a child
    # inherits that: tune would never see the Ctrl-C. Started from a Python handler, the child
    # gets the default action, so Python raises KeyboardInterrupt there however pytest started.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        child = subprocess.Popen(
            command,
            cwd=reader,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
    finally:
        signal.signal(signal.SIGINT, inherited)
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
    assert child.returncode == 130, errors[-2000:] + text[-3000:]
    assert "interrupted (Ctrl-C): the table holds what was measured until then" in text
    assert "held in memory" in text  # the input experiment's rows are there
    # graph was cut short or never started, and says so
    assert "XLA on" in text or "graph execution: not run (interrupted)" in text
    assert "Traceback" not in errors


@pytest.mark.end_to_end
def test_an_experiment_whose_process_dies_fails_alone(root, reader):  # noqa: F811
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


OUT_OF_MEMORY_ABOVE = """
import keras
import numpy as np
import tensorflow as tf

STEPS_PER_RUN = 2


class Small(keras.Sequential):
    def train_step(self, data):
        if data[0].shape[0] > {limit}:  # as a device without the memory for it would
            raise tf.errors.ResourceExhaustedError(None, None, "OOM when allocating tensor")
        return super().train_step(data)


def build_model():
    model = Small([keras.Input(shape=(8,)), keras.layers.Dense(4)])
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    return model


def training_data():
    x = np.zeros((256, 8), np.float32)
    return x, np.zeros((256, 4), np.float32), 32
"""


@pytest.mark.end_to_end
def test_larger_batches_stop_cleanly_at_the_memory_ceiling(root, reader):  # noqa: F811
    (reader / "fits_64.py").write_text(OUT_OF_MEMORY_ABOVE.format(limit=64))
    (reader / "fits_16.py").write_text(OUT_OF_MEMORY_ABOVE.format(limit=16))
    done = tune(root, "fits_64.py", "--only", "batch", "--budget", "4", "--json", cwd=reader)
    assert done.returncode == 0, done.stderr
    rows = {r["arm"]: r for r in json.loads(done.stdout)["rows"]}
    assert rows["batch_x2"]["low"] is not None  # 64 fits: measured
    assert rows["batch_x4"]["verdict"] == "failed"
    assert rows["batch_x4"]["note"].startswith("did not fit in memory (ResourceExhaustedError")
    done = tune(root, "fits_16.py", "--budget", "4", "--json", cwd=reader)
    assert done.returncode == 2
    error = json.loads(done.stdout)["error"]
    assert error.startswith("fits_16.py: training_data()'s batches of 32 do not fit in memory")
    assert error.endswith("expected a batch size the CPU can hold")
