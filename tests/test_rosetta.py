"""The instruction-set analogue really changes the kernels oneDNN runs (ONEDNN_VERBOSE=1)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from scripts.core import catalog

SNIPPET = catalog.select(["rosetta/vector_isa"])[0]
MODULE = catalog.load(SNIPPET)
ISA_NAMES = {"AVX2": "Intel AVX2", "AVX": "Intel AVX", "SSE41": "Intel SSE4.1"}

RUN_ONCE = """
import importlib.util, sys
spec = importlib.util.spec_from_file_location("vector_isa", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
run, _ = module.make_workload(sys.argv[2], "full")
run().numpy()
"""


@pytest.mark.skipif(not MODULE.cap_applies(), reason="the cap is an x86-64 Linux oneDNN setting")
@pytest.mark.parametrize("variant", ["avx2", "avx", "sse41"])
def test_each_cap_runs_a_convolution_kernel_for_that_instruction_set(variant, child_env):
    env = dict(child_env, ONEDNN_VERBOSE="1")
    env.pop("ONEDNN_MAX_CPU_ISA", None)  # the snippet must set it itself, before TensorFlow
    done = subprocess.run(
        [sys.executable, "-c", RUN_ONCE, str(SNIPPET.path), variant],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = (done.stdout + done.stderr).splitlines()
    cap = MODULE.CAPS[variant]
    isa = [line.split("isa:", 1)[1].strip() for line in lines if ",info,cpu,isa:" in line]
    assert isa == [ISA_NAMES[cap]], isa
    kernels = {
        line.split(",")[5] for line in lines if line.startswith("onednn_verbose,primitive,exec")
        and line.split(",")[4] == "convolution"
    }  # fmt: skip
    assert kernels, "no convolution ran through oneDNN"
    suffixes = {kernel.rsplit(":", 1)[-1] for kernel in kernels}
    assert suffixes == {cap.lower()}, kernels


def test_only_the_uncapped_variant_where_the_cap_cannot_apply(monkeypatch):
    monkeypatch.setattr("platform.machine", lambda: "arm64")
    module = catalog.load(SNIPPET)
    assert list(module.VARIANTS) == ["no_cap"]


def test_the_cap_is_not_claimed_once_tensorflow_has_started(monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorflow", sys.modules.get("tensorflow", os))
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "ALL")
    with pytest.warns(UserWarning, match="fresh process"):
        MODULE.set_isa_cap("sse41")
    assert os.environ["ONEDNN_MAX_CPU_ISA"] == "ALL"
