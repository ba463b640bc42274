"""Each doctor rule against hand-made facts, for every outcome, Mac cases included (run on Linux)."""

from __future__ import annotations

import re
import signal
from dataclasses import replace

import pytest

from scripts.core import compatibility, mac_recipes
from scripts.doctor import rules
from scripts.doctor.facts import Facts, Pins, TensorFlowImport
from scripts.doctor.faked_facts import LINUX_TF, MAC_TF, PINS, GiB, linux, mac
from scripts.doctor.rules import Status


def rosetta(**changes) -> Facts:
    """The same Mac, but Python is an x86_64 build that Rosetta 2 translates."""
    return mac(arch="x86_64", rosetta=True, **changes)


def mac_with(tf_version: str, metal: str | None, keras: str = "3.10.0", **changes) -> Facts:
    """A Mac with this TensorFlow, tensorflow-metal (None: not installed) and Keras."""
    packages = {"tensorflow": tf_version, "keras": keras}
    if metal:
        packages["tensorflow-metal"] = metal
    changes.setdefault("tf", replace(MAC_TF, version=tf_version))
    return mac(packages=packages, **changes)


def crashed(returncode: int, **changes) -> TensorFlowImport:
    return TensorFlowImport(attempted=True, ok=False, returncode=returncode, **changes)


def recommended_mac(**changes) -> Facts:
    """A Mac with the recipe the Set up page recommends (data/mac_recipes.json)."""
    packages = {"tensorflow": "2.16.2", "tf-keras": "2.16.0", "keras": "3.10.0",
                "tensorflow-metal": "1.1.0"}  # fmt: skip
    changes.setdefault("env", {"TF_USE_LEGACY_KERAS": "1"})
    return mac(packages=packages, **changes)


AVX_GUARD_LINE = (
    "The TensorFlow library was compiled to use AVX instructions, but these aren't available "
    "on your machine."
)
NO_TF = TensorFlowImport()
NO_GPU = replace(MAC_TF, devices=["CPU:0"])

CASES = {
    rules.check_python: [
        ("supported", linux(), Status.PASS, "requires-python) needs 3.10 to 3.12"),
        ("too old", linux(python="3.9.18"), Status.WARN, "`pip install .` refuse this Python"),
        ("too new", linux(python="3.13.0"), Status.WARN, "3.13.0"),
        ("no pins", linux(pins=Pins()), Status.SKIP, "no pins"),
        # On a Mac the reader's Python is judged by the recipe table's wheels, not the pins.
        ("mac 3.9", mac(python="3.9.19"), Status.PASS, "wheels for Python 3.9 to 3.11"),
        ("mac 3.12", mac(python="3.12.4"), Status.WARN, "3.9 to 3.11 only"),
        ("mac 3.13", mac(python="3.13.0", packages={}, tf=NO_TF), Status.WARN, "CPU only"),
        ("mac 3.14", mac(python="3.14.0", packages={}, tf=NO_TF), Status.FAIL, "no recipe"),
    ],
    rules.check_architecture: [
        ("mac native", mac(), Status.PASS, "arm64, native"),
        ("mac rosetta", rosetta(), Status.FAIL, "translated by Rosetta 2"),
        (
            "mac rosetta, no proc_translated",
            mac(arch="x86_64", rosetta=False),
            Status.FAIL,
            "hw.optional.arm64",
        ),
        (
            "intel mac",
            mac(arch="x86_64", rosetta=False, apple_silicon=False),
            Status.WARN,
            "Intel Mac",
        ),
        ("linux", linux(), Status.PASS, "x86_64 on Linux"),
        ("arch unknown", linux(arch=""), Status.WARN, "gave nothing"),
    ],
    rules.check_macos: [
        ("linux", linux(), Status.SKIP, "not macOS"),
        ("recent", mac(), Status.PASS, "needs 12.1+"),
        # Was a FAIL: Apple's plugin page asks for 12.0 and the wheels are tagged 12.0.
        ("older than the table", mac(macos="12.0.1"), Status.WARN, "older than 12.1"),
        ("too old for any metal", mac(macos="11.7.10"), Status.FAIL, "older than 12.1"),
        ("old metal needs 12.0", mac_with("2.8.0", "0.4.0", macos="12.0"), Status.PASS, "12.0+"),
        ("metal missing, too old", mac_with("2.16.2", None, macos="11.7"), Status.FAIL, "11.7"),
        ("version unknown", mac(macos=None), Status.WARN, "no macOS version"),
    ],
    rules.check_tensorflow: [
        ("pinned", linux(), Status.PASS, "tensorflow-cpu 2.16.2"),
        ("mac shim and tensorflow", mac(), Status.PASS, "tensorflow 2.16.2 + tensorflow-macos"),
        ("missing on linux", linux(packages={}), Status.FAIL, "not installed"),
        ("missing on mac", mac(packages={}), Status.FAIL, "not installed"),
        (
            "versions differ",
            mac(packages={"tensorflow": "2.16.2", "tensorflow-macos": "2.15.0"}),
            Status.FAIL,
            "different versions",
        ),
        (
            "cpu and full",
            linux(packages={"tensorflow": "2.16.2", "tensorflow-cpu": "2.16.2"}),
            Status.WARN,
            "two distributions",
        ),
        ("not the pin", linux(packages={"tensorflow-cpu": "2.15.1"}), Status.WARN, "measures with"),
        (
            "mac, a listed recipe that is not the pin",
            mac(packages={"tensorflow": "2.15.1", "keras": "2.15.0", "tensorflow-metal": "1.1.0"}),
            Status.PASS,
            "the mac recipe check below",
        ),
        (
            "missing on linux arm64",
            linux(arch="aarch64", packages={}),
            Status.FAIL,
            "not installed",
        ),
    ],
    rules.check_import: [
        ("imports", linux(), Status.PASS, "in 3.2 s"),
        ("nothing to import", linux(packages={}, tf=NO_TF), Status.SKIP, "no TensorFlow"),
        (
            "hangs",
            linux(tf=TensorFlowImport(attempted=True, timed_out=True, timeout_s=60)),
            Status.FAIL,
            "did not finish within 60 s",
        ),
        (
            "illegal instruction under rosetta",
            rosetta(tf=crashed(-signal.SIGILL)),
            Status.FAIL,
            "illegal instruction",
        ),
        ("illegal instruction on linux", linux(tf=crashed(-signal.SIGILL)), Status.FAIL, "SIGILL"),
        (
            "avx check under rosetta",
            rosetta(macos="15.1", tf=crashed(-signal.SIGABRT, error=AVX_GUARD_LINE)),
            Status.FAIL,
            "own CPU check",
        ),
        (
            "avx check in a linux container",
            linux(cpu_features=["sse4_2"], tf=crashed(-signal.SIGABRT, error=AVX_GUARD_LINE)),
            Status.FAIL,
            "does not advertise",
        ),
        ("segfault", linux(tf=crashed(-signal.SIGSEGV)), Status.FAIL, "SIGSEGV"),
        (
            "metal plugin fails to load",
            mac_with(
                "2.18.0",
                "1.1.0",
                tf=crashed(
                    1,
                    error="NotFoundError: dlopen(libmetal_plugin.dylib): Symbol not found: "
                    "__ZN3tsl8internal10LogMessageC1EPKcii",
                ),
            ),
            Status.FAIL,
            "tensorflow-metal 1.1.0 plugin",
        ),
        (
            "python error",
            linux(tf=crashed(1, error="ImportError: numpy.core.multiarray failed")),
            Status.FAIL,
            "numpy.core.multiarray",
        ),
        (
            "shadowed install",
            linux(tf=replace(LINUX_TF, version="2.15.0")),
            Status.WARN,
            "another installation",
        ),
    ],
    rules.check_metal: [
        ("linux", linux(), Status.SKIP, "macOS only"),
        ("rosetta", rosetta(), Status.SKIP, "architecture"),
        (
            "no tensorflow",
            mac(packages={"tensorflow-metal": "1.1.0"}, tf=NO_TF),
            Status.SKIP,
            "no TensorFlow",
        ),
        ("missing", mac_with("2.16.2", None), Status.WARN, "CPU only"),
        ("missing, tf 2.20", mac_with("2.20.0", None), Status.WARN, "not installed"),
        ("pinned pair", mac(), Status.PASS, "worked in a user's test"),
        ("tested fail 2.18", mac_with("2.18.0", "1.1.0"), Status.FAIL, "Symbol not found"),
        ("tested fail at verify", mac_with("2.11.0", "0.7.0"), Status.FAIL, "failed at verify"),
        (
            "2.18 row read as 1.2.0",
            mac_with("2.18.0", "1.2.0"),
            Status.PASS,
            "prints 1.1.0: this guide reads it as 1.2.0",
        ),
        ("tested ok 2.19", mac_with("2.19.0", "1.2.0"), Status.PASS, "TensorFlow 2.19.0"),
        ("apple table only", mac_with("2.5.0", "0.1.2"), Status.PASS, "Apple's table"),
        ("mismatch", mac_with("2.15.0", "1.2.0"), Status.WARN, "in neither table"),
        (
            "project pin on python 3.12",
            mac(
                python="3.12.4",
                pins=replace(PINS, metal="1.2.0"),
                packages={"tensorflow": "2.16.2", "tensorflow-metal": "1.2.0", "keras": "3.10.0"},
            ),
            Status.WARN,
            "this project pins it",
        ),
        ("newer than both tables", mac_with("2.21.0", "1.2.0"), Status.WARN, "no row"),
    ],
    rules.check_gpu: [
        ("metal loaded", mac(), Status.PASS, "GPU:0 listed"),
        (
            "plugin not loaded",
            mac(tf=replace(NO_GPU, plugin_log=["metal_plugin: init failed"])),
            Status.FAIL,
            "did not load: metal_plugin",
        ),
        ("metal missing", mac_with("2.16.2", None), Status.SKIP, "no GPU plugin"),
        ("import failed", mac(tf=crashed(1, error="x")), Status.SKIP, "did not import"),
        ("linux cpu only", linux(), Status.PASS, "no NVIDIA GPU"),
        (
            "linux gpu unused",
            linux(nvidia_gpus=["GPU 0: NVIDIA A10G"]),
            Status.WARN,
            "1 NVIDIA GPU(s) present",
        ),
        (
            "linux gpu hidden",
            linux(nvidia_gpus=["GPU 0: A10G"], env={"CUDA_VISIBLE_DEVICES": ""}),
            Status.WARN,
            "lists none",
        ),
        (
            "linux gpu used",
            linux(tf=replace(LINUX_TF, devices=["CPU:0", "GPU:0"])),
            Status.PASS,
            "(CUDA)",
        ),
        ("rosetta", rosetta(), Status.SKIP, "checked on"),
    ],
    rules.check_devices: [
        ("listed", mac(), Status.PASS, "CPU:0, GPU:0"),
        (
            "cuda hidden",
            linux(tf=replace(LINUX_TF, cuda_build=True), env={"CUDA_VISIBLE_DEVICES": "-1"}),
            Status.WARN,
            "CUDA_VISIBLE_DEVICES='-1'",
        ),
        (
            "set without cuda",
            linux(env={"CUDA_VISIBLE_DEVICES": ""}),
            Status.PASS,
            "no CUDA GPU to hide",
        ),
        ("import failed", linux(tf=crashed(1)), Status.SKIP, "did not import"),
    ],
    rules.check_keras: [
        ("keras 3", linux(), Status.PASS, "Keras 3 (3.10.0) is tf.keras"),
        ("keras 3 on mac", mac(), Status.PASS, "Keras 3"),
        (
            "legacy without tf-keras",
            linux(env={"TF_USE_LEGACY_KERAS": "1"}),
            Status.FAIL,
            "tf-keras is not installed",
        ),
        (
            "legacy, tf-keras minor differs",
            linux(
                env={"TF_USE_LEGACY_KERAS": "True"},
                packages={"tensorflow-cpu": "2.16.2", "tf-keras": "2.15.1"},
            ),
            Status.WARN,
            "minor versions differ",
        ),
        (
            "legacy ok",
            linux(
                env={"TF_USE_LEGACY_KERAS": "1"},
                packages={"tensorflow-cpu": "2.16.2", "tf-keras": "2.16.0"},
            ),
            Status.PASS,
            "tf-keras",
        ),
        (
            "tf.keras broken",
            linux(tf=replace(LINUX_TF, keras_error="ImportError: no keras")),
            Status.FAIL,
            "does not import",
        ),
        (
            "keras 2 with tf 2.16",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "2.15.0"}),
            Status.WARN,
            "uses Keras 3",
        ),
        (
            "keras 3 with tf 2.15",
            linux(
                packages={"tensorflow-cpu": "2.15.1", "keras": "3.3.3"},
                tf=replace(LINUX_TF, version="2.15.1"),
            ),
            Status.WARN,
            "before 2.16",
        ),
        ("other backend", linux(env={"KERAS_BACKEND": "jax"}), Status.WARN, "KERAS_BACKEND=jax"),
        (
            "mac, tf-keras installed but the flag unset",
            recommended_mac(env={}),
            Status.WARN,
            "TF_USE_LEGACY_KERAS is not set to 1",
        ),
        (
            "linux, tf-keras installed but the flag unset",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.10.0", "tf-keras": "2.16.0"}),
            Status.PASS,
            "Keras 3 (3.10.0) is tf.keras",
        ),
        ("no tensorflow", linux(packages={}, tf=NO_TF), Status.SKIP, "no TensorFlow"),
    ],
    rules.check_retracing: [
        (
            "keras 3.6",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.6.0"}),
            Status.WARN,
            "traces its step again",
        ),
        (
            "keras 3.3",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.3.3"}),
            Status.WARN,
            "3.3.3",
        ),
        (
            "keras 3.7",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.7.0"}),
            Status.PASS,
            "did not retrace",
        ),
        ("keras 3.10", linux(), Status.PASS, "did not retrace"),
        (
            "keras 3.1 unchecked",
            linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.1.0"}),
            Status.SKIP,
            "not checked",
        ),
        (
            "tf 2.17",
            linux(
                packages={"tensorflow-cpu": "2.17.0", "keras": "3.4.1"},
                tf=replace(LINUX_TF, version="2.17.0"),
            ),
            Status.SKIP,
            "applies to",
        ),
        ("legacy keras", linux(env={"TF_USE_LEGACY_KERAS": "1"}), Status.SKIP, "applies to"),
        (
            "mac, metal 1.2.0, keras 3.5",
            mac_with("2.16.2", "1.2.0", keras="3.5.0"),
            Status.WARN,
            "traces its step again",
        ),
    ],
    rules.check_mac_recipe: [
        ("linux", linux(), Status.SKIP, "Apple-silicon"),
        ("rosetta", rosetta(), Status.SKIP, "Apple-silicon"),
        ("no tensorflow", mac(packages={}, tf=NO_TF), Status.SKIP, "no TensorFlow"),
        ("recommended", recommended_mac(), Status.PASS, "the recommended recipe"),
        # Was a PASS naming 'tf-keras ?' while the keras check failed for the same reason.
        (
            "legacy flag without tf-keras",
            mac(env={"TF_USE_LEGACY_KERAS": "1"}),
            Status.SKIP,
            "tf-keras, which is not installed",
        ),
        (
            "keras 3 with metal 1.1.0",
            mac(),
            Status.WARN,
            "reported problems: Reported much slower on the GPU",
        ),
        (
            "keras 3 with metal 1.2.0",
            mac_with("2.16.2", "1.2.0"),
            Status.WARN,
            "keras-team/keras#21668",
        ),
        (
            "tf 2.15 with keras 2",
            mac(
                packages={"tensorflow": "2.15.1", "keras": "2.15.0", "tensorflow-metal": "1.1.0"},
                tf=replace(MAC_TF, version="2.15.1"),
            ),
            Status.PASS,
            "a listed recipe",
        ),  # fmt: skip
        # Was a PASS: training on this pair was reported wrong (tf-keras#140, forum 778640).
        ("tf 2.19 with metal 1.2.0", mac_with("2.19.0", "1.2.0"), Status.WARN, "loss rising"),
        ("cpu only", mac_with("2.20.0", None), Status.PASS, "CPU only"),
        ("unlisted", mac_with("2.13.0", "1.0.0"), Status.WARN, "none of the recipes"),
    ],
    rules.check_optimizer: [
        ("linux", linux(), Status.SKIP, "Apple-silicon"),
        ("rosetta", rosetta(), Status.SKIP, "Apple-silicon"),
        ("mac keras 3", mac(), Status.PASS, "no legacy optimizers"),
        (
            "mac keras 2.11",
            mac(
                packages={"tensorflow-macos": "2.11.0", "keras": "2.11.0"},
                tf=replace(MAC_TF, version="2.11.0"),
            ),
            Status.WARN,
            "compile with XLA",
        ),
        (
            "mac keras 2.12",
            mac(
                packages={"tensorflow-macos": "2.12.0", "keras": "2.12.0"},
                tf=replace(MAC_TF, version="2.12.0"),
            ),
            Status.PASS,
            "swaps every optimizer",
        ),
        (
            "mac keras 2.13",
            mac(
                packages={"tensorflow": "2.13.1", "keras": "2.13.1"},
                tf=replace(MAC_TF, version="2.13.1"),
            ),
            Status.PASS,
            "swaps every optimizer",
        ),
        (
            "mac keras 2.15",
            mac(
                packages={"tensorflow": "2.15.1", "keras": "2.15.0"},
                tf=replace(MAC_TF, version="2.15.1"),
            ),
            Status.PASS,
            "instances such as tf.keras.optimizers.Adam() do not",
        ),
        (
            "mac keras 2.10",
            mac(
                packages={"tensorflow-macos": "2.10.0", "keras": "2.10.0"},
                tf=replace(MAC_TF, version="2.10.0"),
            ),
            Status.PASS,
            "older than",
        ),
        ("mac tf-keras 2.16", recommended_mac(), Status.PASS, "tf-keras 2.16.0: optimizer names"),
        (
            "mac keras 2.14.0, the first to swap names only",
            mac(
                packages={"tensorflow": "2.14.0", "keras": "2.14.0"},
                tf=replace(MAC_TF, version="2.14.0"),
            ),
            Status.PASS,
            "instances such as tf.keras.optimizers.Adam() do not",
        ),
        ("no keras", mac(packages={"tensorflow": "2.16.2"}), Status.SKIP, "no Keras"),
    ],
    rules.check_measured_stack: [
        ("tf 2.16 keras 3", linux(), Status.PASS, "the guide's measured stack tf216-keras3"),
        (
            "tf 2.16 tf-keras",
            linux(
                packages={"tensorflow-cpu": "2.16.2", "keras": "3.10.0", "tf-keras": "2.16.0"},
                env={"TF_USE_LEGACY_KERAS": "1"},
                tf=replace(LINUX_TF, keras_module="tf_keras.api._v2.keras", keras_version="2.16.0"),
            ),
            Status.PASS,
            "TensorFlow 2.16.2 with tf-keras 2.16.0 as tf.keras: the guide's measured stack tf216-tf-keras",
        ),
        (
            "tf 2.21 keras 3",
            linux(
                packages={"tensorflow-cpu": "2.21.0", "keras": "3.15.1"},
                tf=replace(LINUX_TF, version="2.21.0", keras_version="3.15.1"),
            ),
            Status.PASS,
            "the guide's measured stack tf221-keras3",
        ),
        (
            "tf 2.19 unmeasured",
            mac_with("2.19.0", "1.2.0"),
            Status.PASS,
            "(tf219-keras3): none of the guide's measured stacks (tf216-keras3, tf216-tf-keras, tf221-keras3); nearest: tf221-keras3",
        ),
        (
            "tf 2.15 unmeasured",
            linux(
                packages={"tensorflow-cpu": "2.15.1", "keras": "2.15.0"},
                tf=replace(
                    LINUX_TF,
                    version="2.15.1",
                    keras_module="keras.api._v2.keras",
                    keras_version="2.15.0",
                ),
            ),
            Status.PASS,
            "TensorFlow 2.15.1 with Keras 2.15.0 as tf.keras (tf215-keras2): none of the guide's measured stacks",
        ),
        # the import failed: what the variable and the packages make tf.keras
        (
            "import failed, flag set",
            linux(
                packages={"tensorflow-cpu": "2.16.2", "keras": "3.10.0", "tf-keras": "2.16.0"},
                env={"TF_USE_LEGACY_KERAS": "1"},
                tf=crashed(1),
            ),
            Status.PASS,
            "measured stack tf216-tf-keras",
        ),
        ("no tensorflow", linux(packages={}, tf=NO_TF), Status.SKIP, "no TensorFlow"),
        (
            "flag without tf-keras",
            linux(env={"TF_USE_LEGACY_KERAS": "1"}, tf=crashed(1)),
            Status.SKIP,
            "tf-keras, which is not installed",
        ),
    ],
    rules.check_float64: [
        ("mac float64", mac(tf=replace(MAC_TF, floatx="float64")), Status.WARN, "float64"),
        ("mac float32", mac(), Status.PASS, "float32"),
        ("linux float64", linux(tf=replace(LINUX_TF, floatx="float64")), Status.PASS, "float64"),
        ("import failed", linux(tf=crashed(1)), Status.SKIP, "unknown"),
    ],
    rules.check_xla: [
        ("linux", linux(), Status.SKIP, "TF_XLA_FLAGS unset"),
        (
            "mac auto jit",
            mac(env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=2"}),
            Status.WARN,
            "no compiler for the Metal GPU",
        ),
        (
            "mac auto jit off",
            mac(env={"TF_XLA_FLAGS": "--tf_xla_auto_jit=0"}),
            Status.PASS,
            "auto_jit=0",
        ),
        ("mac unset", mac(), Status.PASS, "unset"),
    ],
    rules.check_memory: [
        ("no swap used", linux(), Status.PASS, "16.0 GiB RAM; no swap in use"),
        ("no swap at all", linux(swap_total_bytes=0), Status.PASS, "no swap configured"),
        (
            "swap in use, pressure normal",
            mac(swap_used_bytes=3 * GiB // 2, memory_pressure="normal"),
            Status.PASS,
            "memory pressure normal; 1.5 GiB of swap in use",
        ),
        (
            "swap in use, pressure unknown",
            mac(swap_used_bytes=2**20),
            Status.PASS,
            "1.0 MiB of swap in use; memory pressure unknown",
        ),
        (
            "pressure warning",
            mac(
                swap_used_bytes=3 * GiB // 2,
                memory_pressure="warning",
                memory_pressure_detail="kern.memorystatus_vm_pressure_level = 2",
            ),
            Status.WARN,
            "memory pressure warning (kern.memorystatus_vm_pressure_level = 2)",
        ),  # fmt: skip
        ("pressure critical", linux(memory_pressure="critical"), Status.WARN, "critical"),
        (
            "swap unknown",
            linux(swap_total_bytes=None, swap_used_bytes=None),
            Status.PASS,
            "swap use unknown",
        ),
        ("nothing known", linux(ram_bytes=None, swap_used_bytes=None), Status.SKIP, "unknown"),
    ],
    rules.check_disk: [
        ("plenty", linux(), Status.PASS, "80.0 GiB free at /work/main"),
        ("low", linux(disk_free_bytes=2 * GiB), Status.WARN, "2.0 GiB free"),
        ("unknown", linux(disk_free_bytes=None), Status.SKIP, "unknown"),
    ],
    rules.check_cpu: [
        ("linux avx-512", linux(), Status.PASS, "AVX2 yes, AVX-512 yes (avx512f avx512_vnni)"),
        (
            "linux amx",
            linux(cpu_features=["avx", "avx2", "amx_tile"]),
            Status.PASS,
            "AMX yes (amx_tile)",
        ),
        ("linux avx2 only", linux(cpu_features=["avx", "avx2"]), Status.PASS, "AVX-512 no"),
        ("linux no avx", linux(cpu_features=["sse4_2"]), Status.FAIL, "no AVX"),
        ("linux arm", linux(arch="aarch64", cpu_features=["asimd"]), Status.PASS, "asimd"),
        ("mac", mac(), Status.PASS, "Apple M1, 8 logical cores"),
    ],
    rules.check_onednn: [
        ("on", linux(), Status.PASS, "on (TF_ENABLE_ONEDNN_OPTS unset)"),
        (
            "off",
            linux(env={"TF_ENABLE_ONEDNN_OPTS": "0"}, tf=replace(LINUX_TF, onednn=False)),
            Status.PASS,
            "off (TF_ENABLE_ONEDNN_OPTS=0)",
        ),
        (
            "off by default",
            linux(tf=replace(LINUX_TF, onednn=False)),
            Status.PASS,
            "off (TF_ENABLE_ONEDNN_OPTS unset)",
        ),
        ("unknown", linux(tf=crashed(1)), Status.SKIP, "did not say"),
        ("mac", mac(), Status.SKIP, "Linux only"),
    ],
}

PARAMS = [
    pytest.param(rule, facts, status, text, id=f"{rule.__name__}-{case}")
    for rule, cases in CASES.items()
    for case, facts, status, text in cases
]


@pytest.mark.parametrize("rule, facts, status, text", PARAMS)
def test_rule(rule, facts, status, text):
    check = rule(facts)
    assert (check.status, text in check.found) == (status, True), check
    if status in (Status.WARN, Status.FAIL):
        assert check.fix, f"{check.name} {status.value} without a fix"
        assert check.guide and check.guide.startswith("docs/"), check


def test_every_rule_has_cases_for_each_of_its_outcomes():
    assert set(CASES) == set(rules.RULES)
    for rule, cases in CASES.items():
        assert len({status for _, _, status, _ in cases}) >= 2, rule.__name__


@pytest.mark.parametrize(
    "facts, fix",
    [
        (rosetta(), "arch -arm64 python3 -m venv"),
        (mac_with("2.16.2", None), 'pip install "tensorflow-metal==1.1.0"'),
        (mac_with("2.15.0", "1.2.0"), 'pip install "tensorflow-metal==1.1.0"'),
        (mac_with("2.13.0", None), 'pip install "tensorflow-metal==1.0.0"'),
        (mac_with("2.19.0", "1.1.0"), 'pip install "tensorflow-metal==1.2.0"'),
        (mac_with("2.18.0", "1.1.0"), 'pip install "tensorflow-metal==1.2.0"'),
        (linux(cpu_features=["sse4_2"]), "docker run --platform linux/arm64"),
    ],
    ids=[
        "rosetta",
        "metal missing",
        "metal mismatch",
        "tf 2.13",
        "tf 2.19",
        "tf 2.18",
        "linux without avx",
    ],
)
def test_mac_fixes_name_the_command(facts, fix):
    checks = {check.name: check for check in rules.run_all(facts)}
    fixes = " | ".join(check.fix or "" for check in checks.values())
    assert fix in fixes


def test_tensorflow_missing_fix_is_the_platform_install():
    assert rules.check_tensorflow(linux(packages={})).fix == (
        'python -m pip install "tensorflow-cpu==2.16.2" "keras==3.10.0"'
    )
    # On a Mac the fix installs the recommended recipe, not this project's measuring pins.
    assert rules.check_tensorflow(mac(packages={})).fix == (
        'python -m pip install "tensorflow==2.16.2" "tf-keras==2.16.0" "tensorflow-metal==1.1.0"'
        " && export TF_USE_LEGACY_KERAS=1"
    )


def test_metal_rule_reads_the_shared_data_file(monkeypatch):
    """No second copy of the table: change the data and the verdict changes."""
    data = compatibility.load()
    rows = [dict(row, result="FAIL", error="made up") for row in data["tested"]["rows"]]
    monkeypatch.setattr(
        compatibility, "load", lambda path=None: dict(data, tested=dict(data["tested"], rows=rows))
    )
    assert rules.check_metal(mac()).status is Status.FAIL


def test_rosetta_mac_reports_the_translation_first_and_fails():
    checks = rules.run_all(rosetta(tf=crashed(-signal.SIGILL)))
    by_name = {check.name: check for check in checks}
    assert by_name["architecture"].status is Status.FAIL
    assert by_name["tensorflow import"].fix == by_name["architecture"].fix


def test_a_rule_that_raises_becomes_a_warning(monkeypatch):
    def broken(facts):
        raise KeyError("surprise")

    monkeypatch.setattr(rules, "RULES", (rules.check_python, broken))
    checks = rules.run_all(linux())
    assert [c.status for c in checks] == [Status.PASS, Status.WARN]
    assert "surprise" in checks[1].found and checks[1].name == "broken"


def test_healthy_machines_have_no_failures():
    for facts in (linux(), recommended_mac()):
        statuses = {check.name: check.status for check in rules.run_all(facts)}
        assert Status.FAIL not in statuses.values(), statuses
        assert Status.WARN not in statuses.values(), statuses


def test_onednn_off_by_default_says_how_to_turn_it_on():
    off = rules.check_onednn(linux(tf=replace(LINUX_TF, onednn=False)))
    assert "TF_ENABLE_ONEDNN_OPTS=1" in off.note
    chosen_off = linux(env={"TF_ENABLE_ONEDNN_OPTS": "0"}, tf=replace(LINUX_TF, onednn=False))
    assert rules.check_onednn(chosen_off).note is None  # the reader chose it: nothing to add
    assert "round-off" in rules.check_onednn(linux()).note


@pytest.mark.parametrize(
    "macos, words",
    [("15.1", "ROSETTA_ADVERTISE_AVX=1"), ("14.5", "not to run AVX"), (None, "version unknown")],
)
def test_rosetta_note_follows_the_macos_version(macos, words):
    check = rules.check_architecture(rosetta(macos=macos))
    assert check.status is Status.FAIL and words in check.note
    assert "1.2.0 have no x86_64 wheel (0.1.0 to 1.0.0 did)" in check.note


def test_recipe_rule_reads_the_shared_data_file(monkeypatch):
    """No second copy of the recipes: mark the recommended recipe 'warn' and the rule warns."""
    data = mac_recipes.load()
    recipes = [
        dict(s, advice="warn") if s["id"] == data["recommended"] else s for s in data["recipes"]
    ]
    monkeypatch.setattr(mac_recipes, "load", lambda path=None: dict(data, recipes=recipes))
    assert rules.check_mac_recipe(recommended_mac()).status is Status.WARN


def test_keras_3_is_never_offered_as_the_optimizer_cure():
    for facts in (mac(packages={"tensorflow": "2.11.0", "keras": "2.11.0"},
                      tf=replace(MAC_TF, version="2.11.0")), mac()):  # fmt: skip
        check = rules.check_optimizer(facts)
        assert "keras==3" not in (check.fix or "") and "Keras 3" not in (check.fix or "")


# --- every fix printed on a faked Mac installs on that Mac's Python ---------------------------

MAC_PYTHONS = ("3.9.19", "3.10.14", "3.11.9", "3.12.4", "3.13.0")
PINNED = re.compile(r'"([A-Za-z0-9_.-]+)==([^"]+)"')


def _recipe_macs(python: str) -> list[tuple[str, Facts]]:
    """A Mac with each Set up recipe whose wheels cover this Python, as the recipe installs it."""
    macs = []
    for recipe in mac_recipes.load()["recipes"]:
        if not mac_recipes.python_fits(recipe, python):
            continue
        install = " ".join(recipe["install"])
        pins = dict(PINNED.findall(install))
        tf = pins.get("tensorflow") or ("2.16.2" if python < "3.13" else "2.20.0")
        packages = {"tensorflow": tf, "keras": "3.10.0"}
        env = {}
        if "tf-keras" in pins:
            packages["tf-keras"] = pins["tf-keras"]
            env["TF_USE_LEGACY_KERAS"] = "1"
        elif recipe["match"]["keras"] == "keras2":
            packages["keras"] = f"{tf.rsplit('.', 1)[0]}.0"
        if recipe["match"]["metal"]:
            packages["tensorflow-metal"] = recipe["match"]["metal"]
        tf_import = replace(MAC_TF, version=tf)
        if not recipe["match"]["metal"]:
            tf_import = replace(tf_import, devices=["CPU:0"])
        base = mac(python=python, packages=packages, env=env, tf=tf_import)
        macs.append((recipe["id"], base))
        if "tf-keras" in pins:  # the flag forgotten
            macs.append((f"{recipe['id']}, flag unset", replace(base, env={})))
        if recipe["match"]["metal"] and minor_of(tf) == (2, 16):  # retracing Keras 3.5
            keras35 = {k: v for k, v in packages.items() if k != "tf-keras"}
            macs.append((f"{recipe['id']}, keras 3.5", replace(base, env={},
                         packages=dict(keras35, keras="3.5.0"))))  # fmt: skip
        if recipe["match"]["metal"]:
            macs.append((f"{recipe['id']}, no gpu", replace(base, tf=replace(NO_GPU, version=tf))))
            error = crashed(
                1, error="NotFoundError: dlopen(libmetal_plugin.dylib): Symbol not found"
            )
            macs.append((f"{recipe['id']}, plugin fails", replace(base, tf=error)))
            macs.append((f"{recipe['id']}, macOS 12.0", replace(base, macos="12.0")))
            no_metal = {k: v for k, v in packages.items() if k != "tensorflow-metal"}
            macs.append((f"tf {tf} without metal", replace(base, packages=no_metal)))
    return macs


def minor_of(version: str) -> tuple[int, ...]:
    return compatibility.minor(version)


FAKED_MACS = [
    pytest.param(facts, id=f"python {python[:4]}: {name}")
    for python in MAC_PYTHONS
    for name, facts in [("no tensorflow", mac(python=python, packages={}, tf=NO_TF))]
    + _recipe_macs(python)
]


def _installs_on(package: str, version: str, python: str, facts: Facts) -> bool:
    """Whether pip can install package==version on this Mac's Python (data/mac_recipes.json)."""
    if package == "tensorflow-metal":
        return mac_recipes.metal_installs(version, python)
    if package == "tensorflow" and version in facts.packages.values():
        return True  # installed already, so its wheel exists here
    recipes = [
        s for s in mac_recipes.load()["recipes"] if f'"{package}=={version}"' in str(s["install"])
    ]
    return any(mac_recipes.python_fits(recipe, python) for recipe in recipes) or package == "keras"


@pytest.mark.parametrize("facts", FAKED_MACS)
def test_every_fix_on_a_mac_installs_on_its_python(facts):
    """Done when every fix printed on a faked Mac names packages with wheels for its Python."""
    for check in rules.run_all(facts):
        fix = check.fix or ""
        for package, version in PINNED.findall(fix):
            assert _installs_on(package, version, facts.python, facts), (check.name, fix)
        if re.search(r"pip install tensorflow\b(?!-)", fix):  # unpinned: the CPU-only recipe
            cpu = next(s for s in mac_recipes.load()["recipes"] if s["match"]["metal"] is None)
            assert mac_recipes.python_fits(cpu, facts.python), (check.name, fix)


def test_the_metal_suggested_on_python_3_12_is_not_the_projects_own_pin():
    """The project pins tensorflow-metal 1.2.0 on 3.12 for its own measuring environment, a
    pairing data/mac_recipes.json warns readers about: a reader with TensorFlow 2.16.2 and no
    plugin is told that 1.1.0, the release for it, has no 3.12 wheel, and given the routes."""
    reader = mac_with("2.16.2", None, python="3.12.4", pins=replace(PINS, metal="1.2.0"))
    check = rules.check_metal(reader)
    assert check.status is Status.WARN and "1.2.0" not in check.fix, check.fix
    assert check.fix.startswith("tensorflow-metal 1.1.0, the release for TensorFlow 2.16, has no")


@pytest.mark.parametrize("python", ["3.12.4", "3.13.0"])
def test_a_mac_the_recommended_recipe_misses_gets_the_cpu_and_the_gpu_route(python):
    fix = rules.check_tensorflow(mac(python=python, packages={}, tf=NO_TF)).fix
    assert "tensorflow-metal" not in fix and "python -m pip install tensorflow" in fix
    assert "python3.11 -m venv" in fix
    warned = mac_with("2.19.0", "1.2.0", keras="3.9.2", python="3.12.4")
    assert rules.check_mac_recipe(warned).fix.startswith(
        "on Python 3.12: python -m pip uninstall -y tensorflow-metal;"
    )


def test_python_3_9_on_a_mac_is_fine_for_the_recommended_recipe():
    """Every listed recipe has 3.9 wheels; the project's own range is not the reader's, and
    elsewhere it is said to be the project's, not TensorFlow's."""
    assert rules.check_python(recommended_mac(python="3.9.19")).status is Status.PASS
    outside = rules.check_python(linux(python="3.9.18"))
    assert outside.status is Status.WARN and "this project's environment" in outside.found
    assert "TensorFlow 2.16.2" not in outside.found  # TensorFlow 2.16.2 itself has 3.9 wheels


def test_linux_arm64_fix_installs_tensorflow_not_tensorflow_cpu():
    """tensorflow-cpu has no Linux aarch64 wheel (pip: no matching distribution)."""
    fix = rules.check_tensorflow(linux(arch="aarch64", packages={}, tf=NO_TF)).fix
    assert fix == 'python -m pip install "tensorflow==2.16.2" "keras==3.10.0"'


def test_retracing_fix_on_a_mac_is_the_recommended_recipe_not_keras_37():
    facts = mac_with("2.16.2", "1.2.0", keras="3.5.0")
    check = rules.check_retracing(facts)
    assert "keras>=3.7" not in check.fix and "tf-keras==2.16.0" in check.fix
    assert "keras-team/keras#21668" in check.note
    on_linux = rules.check_retracing(linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.5.0"}))
    assert on_linux.fix == 'python -m pip install "keras>=3.7"'


def test_tf_219_with_metal_120_and_keras_3_warns_with_the_reports():
    check = rules.check_mac_recipe(mac_with("2.19.0", "1.2.0", keras="3.9.2"))
    assert check.status is Status.WARN
    assert check.source == "https://github.com/keras-team/tf-keras/issues/140"
    assert "778640" in check.found


def test_import_keras_is_keras_3_even_when_tf_keras_is_tf_keras():
    """TF_USE_LEGACY_KERAS routes tf.keras only; the keras package stays Keras 3."""
    facts = recommended_mac(
        tf=replace(MAC_TF, keras_module="tf_keras.api._v2.keras", keras_version="2.16.0")
    )
    keras = rules.check_keras(facts)
    assert keras.status is Status.PASS and "import tf_keras as keras" in keras.note
    assert "`import keras` still loads Keras 3.10.0" in keras.note
    assert "import tf_keras as keras" in rules.check_mac_recipe(facts).note


def test_the_flag_forgotten_on_a_mac_is_fixed_by_setting_it():
    check = rules.check_keras(recommended_mac(env={}))
    assert check.status is Status.WARN and check.fix.startswith("export TF_USE_LEGACY_KERAS=1")
    assert rules.check_mac_recipe(recommended_mac(env={})).status is Status.WARN


# --- moving a Mac off tensorflow-macos: remove it first ---------------------------------------

PLUGIN_FAILS = crashed(1, error="NotFoundError: dlopen(libmetal_plugin.dylib): Symbol not found")


def _mac_215(packages: dict[str, str]) -> Facts:
    """A Mac on TensorFlow 2.15 whose plugin fails to load (its fix is the recommended recipe)."""
    return mac(packages={"keras": "2.15.0", "tensorflow-metal": "1.1.0", **packages},
               tf=PLUGIN_FAILS)  # fmt: skip


@pytest.mark.parametrize(
    "packages",
    [
        {"tensorflow": "2.15.0", "tensorflow-macos": "2.15.0"},  # as pip lists the 2.15.0 install
        {"tensorflow": "2.15.0"},  # tensorflow 2.15.0's arm64 wheel only pulls in tensorflow-macos
    ],
)
def test_a_fix_to_tensorflow_216_removes_tensorflow_macos_first(packages):
    checks = {check.name: check for check in rules.run_all(_mac_215(packages))}
    fix = checks["tensorflow import"].fix
    recommended = next(l for l in mac_recipes.recommended()["install"] if " pip " in l)  # noqa: E741
    assert fix.startswith(
        f"python -m pip uninstall -y tensorflow-macos tensorflow && {recommended}"
    )
    assert "its files among the new TensorFlow's" in fix


@pytest.mark.parametrize(
    "packages",
    [
        {"tensorflow": "2.15.1"},  # the whole TensorFlow in tensorflow's own wheel
        {"tensorflow": "2.16.2"},
    ],
)
def test_a_fix_from_tensorflow_without_tensorflow_macos_removes_nothing(packages):
    checks = {check.name: check for check in rules.run_all(_mac_215(packages))}
    assert "tensorflow-macos" not in checks["tensorflow import"].fix


def test_a_fix_that_already_uninstalls_every_tensorflow_does_not_repeat_it():
    """Different versions of tensorflow and tensorflow-macos: the tensorflow check's fix
    uninstalls both, then installs the recipe once."""
    facts = mac(packages={"tensorflow": "2.16.2", "tensorflow-macos": "2.15.0", "keras": "3.10.0",
                          "tensorflow-metal": "1.1.0"})  # fmt: skip
    check = next(c for c in rules.run_all(facts) if c.name == "tensorflow")
    assert check.status is Status.FAIL
    assert check.fix.count("uninstall") == 1 and "tensorflow-macos" in check.fix


@pytest.mark.parametrize(
    ("arch", "name", "no_deps"),
    [("x86_64", "tensorflow-cpu", True), ("aarch64", "tensorflow", False)],
)
def test_tf_keras_beside_tensorflow_cpu_is_installed_without_its_tensorflow(arch, name, no_deps):
    facts = linux(arch=arch, packages={name: "2.16.2", "keras": "3.10.0"},
                  env={"TF_USE_LEGACY_KERAS": "1"})  # fmt: skip
    fix = next(c for c in rules.run_all(facts) if c.name == "keras").fix
    assert fix.startswith(
        "python -m pip install " + ("--no-deps " if no_deps else "") + '"tf-keras'
    )


# --- TensorFlow 2.15 reads TF_USE_LEGACY_KERAS (mac-advice M3) --------------------------------

# The Set up page's TensorFlow 2.15 recipe as pip lists it: the thin tensorflow wheel, the
# tensorflow-macos it pulls in, the Keras 2.15 that requires, and the plugin.
RECIPE_215 = {"tensorflow": "2.15.0", "tensorflow-macos": "2.15.0", "keras": "2.15.0",
             "tensorflow-metal": "1.1.0"}  # fmt: skip
KERAS_CANNOT = "ImportError: Keras cannot be imported. Check that it is installed."


def test_tf_215_with_the_flag_and_no_tf_keras_is_not_sent_to_keras_3():
    """TensorFlow 2.15.0 routes tf.keras to tf_keras under the flag, as 2.16 does: the fix
    unsets the flag (tf.keras is then the Keras 2.15 it requires) or installs tf-keras 2.15;
    installing Keras 3 beside tensorflow-macos 2.15 would fix neither."""
    facts = mac(packages=RECIPE_215, env={"TF_USE_LEGACY_KERAS": "1"},
                tf=replace(MAC_TF, version="2.15.0", keras_error=KERAS_CANNOT))  # fmt: skip
    check = rules.check_keras(facts)
    assert check.status is Status.FAIL and "tf-keras is not installed" in check.found
    assert "keras==3" not in check.fix
    assert check.fix.startswith("unset TF_USE_LEGACY_KERAS")
    assert '"tf-keras~=2.15.0"' in check.fix


def test_tf_215_with_the_flag_and_tf_keras_names_tf_keras_as_tf_keras():
    packages = {**RECIPE_215, "tf-keras": "2.15.1"}
    facts = mac(packages=packages, env={"TF_USE_LEGACY_KERAS": "1"},
                tf=replace(MAC_TF, version="2.15.0"))  # fmt: skip
    check = rules.check_keras(facts)
    assert check.status is Status.PASS and "tf-keras 2.15.1" in check.found


def test_a_missing_keras_before_216_is_the_keras_2_of_that_minor():
    packages = {k: v for k, v in RECIPE_215.items() if k != "keras"}
    facts = mac(packages=packages, tf=replace(MAC_TF, version="2.15.0", keras_error=KERAS_CANNOT))
    assert rules.check_keras(facts).fix == 'python -m pip install "keras~=2.15.0"'


def test_on_python_312_the_cpu_comes_before_an_untested_plugin_pair():
    """mac-advice I6: TensorFlow 2.18 without a plugin on Python 3.12. Set up's answer there is
    the CPU; the 1.2.0 pair comes second, and the note says no test tried it with 2.18."""
    check = rules.check_metal(mac_with("2.18.0", None, python="3.12.4"))
    assert check.status is Status.WARN
    assert check.fix.startswith("on Python 3.12: TensorFlow stays on the CPU (nothing to install)")
    cpu, pair = check.fix.index("nothing to install"), check.fix.index('"tensorflow-metal==1.2.0"')
    assert cpu < pair
    assert "did not try TensorFlow 2.18 with 1.2.0" in check.note
