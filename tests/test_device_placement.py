"""Device placement: the placement log is read right, the GPU variant exists only with a GPU,
and the measured output shows what the page says each call did."""

from __future__ import annotations

import pytest

from scripts.core import catalog


def load(name: str):
    return catalog.load(catalog.select([name])[0])


def test_placement_log_is_summarised_by_device():
    placement = load("device_placement/placement")
    log = [
        "a: (_Arg): /job:localhost/replica:0/task:0/device:GPU:0",
        "matmul: (MatMul): /job:localhost/replica:0/task:0/device:GPU:0",
        "Relu: (Relu): /job:localhost/replica:0/task:0/device:GPU:0",
        "Shape: (Shape): /job:localhost/replica:0/task:0/device:CPU:0",
        "default        1.00 ms/run  512 examples/s | ran on GPU:0",
    ]
    assert placement.placement_summary(log) == "MatMul, Relu -> GPU:0; Shape -> CPU:0"


def test_gpu_variant_is_listed_only_when_a_gpu_is_seen():
    compare = load("device_placement/compare")
    import tensorflow as tf

    if tf.config.list_physical_devices("GPU"):
        assert list(compare.VARIANTS) == ["cpu", "gpu"]
        return
    assert list(compare.VARIANTS) == ["cpu"]
    with pytest.raises(RuntimeError, match="needs a GPU"):
        compare.make_workload("gpu", "small")


def placement_lines(data: dict) -> dict[str, str]:
    output = data.get("outputs", {}).get("device_placement/placement")
    if output is None:
        return {}
    return {line.split()[0]: line for line in output["text"].splitlines() if line.strip()}


def test_the_measured_output_shows_what_each_call_did(committed_results):
    checked = 0
    for data in committed_results:
        lines = placement_lines(data)
        if not lines:
            continue
        checked += 1
        assert "placement log: " in lines["default"] and "MatMul" in lines["default"]
        assert "ran on CPU:0" in lines["forced_cpu"]
        assert "ran on CPU:0" in lines["hidden_gpus"] and "usable 0" in lines["hidden_gpus"]
        assert "RuntimeError caught" in lines["late_change"]
        if "GPUs found 0" in lines["requested_gpu"]:  # soft placement: the CPU, silently
            assert "ran on CPU:0" in lines["requested_gpu"]
    assert checked, "no machine has a captured output of device_placement/placement"


def test_a_first_call_is_several_times_a_warmed_up_run(committed_results):
    """Claim C3d: one timed train_on_batch call measures set-up, not the device."""
    checked = 0
    for data in committed_results:
        for key, entry in data["entries"].items():
            if key.startswith("device_placement/compare:"):
                stats = entry["stats"]
                assert stats["first_call_s"] >= 3 * stats["median_s"], key
                checked += 1
    assert checked


LOGGING = """
import tensorflow as tf
tf.constant(1.0)  # the runtime starts here
tf.debugging.set_log_device_placement(True)  # too late: no effect
tf.function(lambda x: tf.nn.relu(x))(tf.ones(2))
"""

LOGGING_OFF = """
import tensorflow as tf
tf.debugging.set_log_device_placement(True)  # before the runtime starts: takes effect
tf.function(lambda x: tf.nn.relu(x))(tf.ones(2))
tf.debugging.set_log_device_placement(False)  # after: no effect, the logging stays on
print("--- switched off")
tf.function(lambda x: tf.nn.sigmoid(x))(tf.ones(2))
"""


def run_python(code: str, env: dict) -> str:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300,
        check=True,
    )  # fmt: skip
    return done.stdout


def test_placement_logging_counts_only_when_set_before_the_runtime_starts(child_env):
    """What the page says about tf.debugging.set_log_device_placement in TensorFlow 2.16."""
    late = run_python(LOGGING, child_env)
    assert "(Relu)" not in late
    early = run_python(LOGGING_OFF, child_env)
    before, after = early.split("--- switched off")
    assert "(Relu)" in before and "(Sigmoid)" in after
