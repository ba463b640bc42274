"""Logic in the ceiling, graph-execution, threads and measuring snippets: FLOP counts, the trace
counter, the timing helper, the P-core probe and the profiler file listing."""

from __future__ import annotations

import platform
import subprocess
import sys
import time

import pytest
import tensorflow as tf

from scripts.core import catalog


def load(name: str):
    return catalog.load(catalog.Snippet(name, catalog.SNIPPETS_DIR / f"{name}.py"))


def test_matmul_flops_are_two_n_cubed_per_matmul():
    matmul = load("ceiling/matmul")
    assert matmul.matmul_flops(10) == 2000.0
    n, count = matmul.SIZES["full"]
    assert matmul.flops("float32", "full") == 2.0 * n**3 * count
    run, examples = matmul.make_workload("float32", "small")
    assert examples == matmul.SIZES["small"][1]
    assert run().shape == (examples,)  # one forced element per matmul


def test_conv_step_flops_count_forward_and_both_gradients():
    conv = load("graph_execution/conv_step")
    batch = 2
    # By hand for the three layers of LAYERS on 32x32 images (SAME padding):
    layer1 = 2 * batch * 32 * 32 * 32 * 3 * 3 * 3  # no input gradient for the images
    layer2 = 2 * batch * 16 * 16 * 64 * 3 * 3 * 32
    layer3 = 2 * batch * 8 * 8 * 64 * 3 * 3 * 64
    head = 2 * batch * 64 * 10
    assert conv.step_flops(batch) == 2 * layer1 + 3 * layer2 + 3 * layer3 + 3 * head


def test_first_call_flops_for_the_conv_and_the_matmul():
    first = load("measuring/first_call")
    assert first.flops("matmul_2048", "full") == 2.0 * 2048**3
    assert first.flops("conv2d_call", "full") == 2.0 * 100 * 94 * 94 * 32 * 7 * 7 * 3
    assert first.flops("train_on_batch", "full") is None


@pytest.mark.parametrize(
    "variant, expected",
    [
        ("eager", lambda calls: calls),  # eager runs the Python body on every call
        ("python_scalar", lambda calls: calls),  # a trace per call: the trap
        ("tensor_step", lambda calls: calls),  # lengths still change: still a trace per call
        ("input_signature", lambda calls: 1),
        ("reduce_retracing", lambda calls: 2),  # one exact shape, then one generalised
    ],
)
def test_trace_counter_counts_python_body_runs(variant, expected):
    retracing = load("graph_execution/retracing")
    run, _ = retracing.make_workload(variant, "small")
    for _ in range(2):
        run()
    calls = 2 * retracing.CALLS_PER_RUN["small"]
    assert run.body_runs() == expected(calls)


def test_trace_counter_agrees_with_tensorflow_own_count():
    retracing = load("graph_execution/retracing")
    counter = [0]
    function, _ = retracing.make_function("python_scalar", counter)
    x = tf.ones((2, 3, retracing.FEATURES))
    kernel = tf.eye(retracing.FEATURES)
    for step in range(4):
        function(x, kernel, step)
    function(x, kernel, 0)  # a value seen before reuses its graph
    assert counter[0] == function.experimental_get_tracing_count() == 4


class FakeTensor:
    def __init__(self, log):
        self.log = log

    def numpy(self):
        self.log.append("forced")
        return 0.0


def test_time_call_times_the_first_call_alone_and_forces_every_result():
    first_call = load("measuring/first_call")
    log: list[str] = []
    calls = []

    def fn():
        calls.append(1)
        time.sleep(0.05 if len(calls) == 1 else 0.001)
        return [FakeTensor(log)]

    timing = first_call.time_call(fn, warmup=3, repeats=5)
    assert len(calls) == len(log) == 3 + 5  # the first call counts as one of the warm-ups
    assert timing["first_s"] >= 0.05
    assert timing["median_s"] < 0.03
    assert timing["spread"] >= 0


def test_wait_for_passes_plain_values_through():
    first_call = load("measuring/first_call")
    assert first_call.wait_for(1.5) == 1.5


def test_performance_cores_reads_sysctl_on_a_mac(monkeypatch):
    small = load("threads/small_model")
    asked = []

    def fake_run(command, **kwargs):
        asked.append(command)
        return subprocess.CompletedProcess(command, 0, stdout="8\n", stderr="")

    monkeypatch.setattr(small.platform, "system", lambda: "Darwin")
    monkeypatch.setattr(small.subprocess, "run", fake_run)
    assert small.performance_cores() == 8
    assert asked == [["sysctl", "-n", "hw.perflevel0.physicalcpu"]]

    failing = subprocess.CompletedProcess([], 1, stdout="", stderr="unknown oid")
    monkeypatch.setattr(small.subprocess, "run", lambda command, **kwargs: failing)
    assert small.performance_cores() is None  # an Intel Mac has no perflevel keys


def test_performance_cores_is_none_off_macos(monkeypatch):
    small = load("threads/small_model")
    monkeypatch.setattr(small.platform, "system", lambda: "Linux")
    assert small.performance_cores() is None


def test_thread_settings_are_refused_once_the_runtime_runs():
    small = load("threads/small_model")
    tf.constant(1.0) + 1  # the runtime is running from here on
    current = tf.config.threading.get_intra_op_parallelism_threads()
    with pytest.raises(RuntimeError, match="cannot be modified after initialization"):
        small.set_threads(current + 1, 0)


def test_profiler_listing_hides_the_date_and_the_host(tmp_path, monkeypatch):
    profiler = load("measuring/profiler")
    monkeypatch.setattr(profiler.socket, "gethostname", lambda: "my-mac")
    run_dir = tmp_path / "plugins" / "profile" / "2026_01_02_03_04_05"
    run_dir.mkdir(parents=True)
    (run_dir / "my-mac.xplane.pb").write_bytes(b"x")
    assert profiler.files_written(str(tmp_path)) == ["plugins/profile/<date_time>/<host>.xplane.pb"]


def test_profiled_run_writes_a_trace():
    profiler = load("measuring/profiler")
    run, _ = profiler.make_workload("profiled", "small")
    run()
    assert any(name.endswith(".xplane.pb") for name in profiler.files_written(run.logdir.name))


ONEDNN_PRIMITIVES = """
import sys
from pathlib import Path
from scripts.core import catalog
module = catalog.load(catalog.Snippet("graph_execution/conv_step", Path(sys.argv[1])))
run, _ = module.make_workload(sys.argv[2], "small")
run()
run()
"""


@pytest.mark.parametrize("variant, onednn_convolutions", [("tf_function", True), ("xla", False)])
def test_convolutions_run_in_onednn_only_without_xla(variant, onednn_convolutions, child_env, root):
    """With oneDNN on, TensorFlow's own kernels run the convolutions through it and XLA's do
    not; oneDNN's verbose log names every primitive it executes. oneDNN is on by default only
    on some CPUs (AVX-512 VNNI/BF16, AMX), so the test turns it on."""
    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("oneDNN is TensorFlow's CPU kernel library on x86 builds only")
    path = str(catalog.SNIPPETS_DIR / "graph_execution" / "conv_step.py")
    done = subprocess.run(
        [sys.executable, "-c", ONEDNN_PRIMITIVES, path, variant],
        cwd=root, capture_output=True, text=True, timeout=300, check=False,
        env=dict(child_env, ONEDNN_VERBOSE="1", TF_ENABLE_ONEDNN_OPTS="1"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    executed = [line for line in done.stdout.splitlines() if ",exec,cpu," in line]
    assert executed, "oneDNN logged nothing: is this build using it?"
    assert any(",exec,cpu,convolution," in line for line in executed) == onednn_convolutions
