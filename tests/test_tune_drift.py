"""tune's memory-and-drift experiment: the model as given over a longer stretch, its last
third's speed against its first third's, and memory growth flagged; GPU memory read where
TensorFlow reports it (fakes stand in for a Mac's Metal GPU and for a plugin that does not)."""

from __future__ import annotations

import json

import pytest

from scripts.tuning import analysis, child, experiments, report
from tests.test_tune_report import FACTS
from tests.test_tune_runner import model_text, reader, tune  # noqa: F401 (a fixture)

MIB = 2**20


def measured(times: list[float], resident: list[int], gpu: list | None = None) -> dict:
    memory = {"resident_bytes": resident, "gpu_bytes": gpu or [None] * len(times)}
    return {"arms": {"as_given": {"times_s": times, "memory": memory, "samples_per_run": 320}}}


def test_a_steady_model_with_flat_memory_is_steady():
    times = [0.010 + 0.0001 * (i % 3) for i in range(30)]
    found = analysis.stretch(measured(times, [500 * MIB] * 30), FACTS)
    assert found["drift"]["verdict"] == "steady"
    assert found["drift"]["low"] <= 1.0 <= found["drift"]["high"]
    assert found["resident_bytes"]["flagged"] is False and found["gpu_bytes"] is None
    text = "\n".join(report.stretch_lines(found))
    assert "steady" in text and "GROWING" not in text and "GPU memory" not in text


def test_a_slowing_model_that_leaks_is_flagged():
    times = [0.010 * (1 + i / 30) for i in range(30)]
    resident = [500 * MIB + i * 4 * MIB for i in range(30)]
    gpu = [1000 * MIB + i * 8 * MIB for i in range(30)]
    found = analysis.stretch(measured(times, resident, gpu), FACTS)
    assert found["drift"]["verdict"] == "slowed down" and found["drift"]["high"] < 1.0
    assert found["resident_bytes"]["flagged"] and found["gpu_bytes"]["flagged"]
    # 80 MiB over the 20 runs of 10 steps between the first third and the last
    assert found["resident_bytes"]["per_step"] == pytest.approx(80 * MIB / 200)
    text = "\n".join(report.stretch_lines(found))
    assert "slowed down (heat, Low Power Mode" in text
    assert "GPU memory (TensorFlow's figure): 1,036 MiB at first, +160.0 MiB" in text
    assert text.count("GROWING: look for a leak (docs/memory.md#what-to-do)") == 2


def test_too_short_a_stretch_says_so():
    found = analysis.stretch(measured([0.01] * 4, [MIB] * 4), FACTS)
    assert found == {"error": "too few timed runs (4)"}
    assert report.stretch_lines(found) == [
        "Over a longer stretch: not measured (too few timed runs (4))"
    ]


class FakeTF:
    """Just the tf.config calls gpu_bytes() makes: a Mac with a Metal GPU, whose plugin may or
    may not report memory, or a machine with no GPU."""

    def __init__(self, gpus: int, memory: dict | Exception):
        self.gpus, self.memory = gpus, memory
        self.config = self
        self.experimental = self

    def list_physical_devices(self, kind=None):
        return ["/physical_device:GPU:0"] * self.gpus

    def get_memory_info(self, device):
        assert device == "GPU:0"
        if isinstance(self.memory, Exception):
            raise self.memory
        return self.memory


def test_gpu_memory_is_read_where_tensorflow_reports_it():
    assert child.gpu_bytes(FakeTF(1, {"current": 123 * MIB, "peak": 200 * MIB})) == 123 * MIB
    unsupported = ValueError("get_memory_info is not supported for device GPU:0")
    assert child.gpu_bytes(FakeTF(1, unsupported)) is None  # a plugin that does not say
    assert child.gpu_bytes(FakeTF(0, {"current": 1})) is None  # no GPU


def test_resident_memory_is_read():
    assert child.resident_bytes() > 10 * MIB


@pytest.mark.end_to_end
def test_the_drift_experiment_runs_on_a_model(root, reader):  # noqa: F811
    (reader / "my_model.py").write_text(model_text())
    done = tune(root, "my_model.py", "--only", "drift", "--budget", "4", "--json", cwd=reader)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["rows"] == []
    stretch = found["stretch"]
    assert stretch["runs"] >= experiments.DRIFT_MIN_ROUNDS
    assert stretch["drift"]["verdict"] in ("steady", "slowed down", "sped up")
    assert stretch["resident_bytes"]["start"] > 10 * MIB
    assert stretch["gpu_bytes"] is None  # no GPU here


def test_memory_is_sampled_once_per_timed_run():
    arm = object.__new__(child.Timed)  # no model: only the sampling is under test
    arm.setup = type("FakeSetup", (), {"tf": FakeTF(0, None)})()
    arm.memory = {"resident_bytes": [], "gpu_bytes": []}
    assert len(arm.sample_memory(3)["resident_bytes"]) == 3
    again = arm.sample_memory(3)  # the same round reported twice: nothing new to sample
    assert len(again["resident_bytes"]) == 3 and again["gpu_bytes"] == [None] * 3
    assert len(arm.sample_memory(4)["resident_bytes"]) == 4
