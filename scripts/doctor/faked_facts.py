"""Facts typed in by hand, never read from a machine: a healthy Linux machine set up as this
project pins it, and an M1 Mac with TensorFlow 2.16, tensorflow-metal 1.1.0 and Keras 3.

The rules' tests build their cases from these (tests/test_doctor_rules.py), and the Diagnose
page shows what the doctor prints for the faked Mac (scripts/doctor/faked_mac_page.py), under
a label that says no Mac ran it. Every figure here (RAM, disk, import time) is made up."""

from __future__ import annotations

from dataclasses import replace

from scripts.doctor.facts import Facts, Pins, TensorFlowImport

GiB = 2**30
PINS = Pins("3.10", "3.13", tensorflow="2.16.2", keras="3.10.0", metal="1.1.0")

LINUX_TF = TensorFlowImport(
    attempted=True, ok=True, seconds=3.2, returncode=0, version="2.16.2",
    location="/venv/site-packages/tensorflow/__init__.py", devices=["CPU:0"], cuda_build=False,
    onednn=True, keras_module="keras._tf_keras.keras", keras_version="3.10.0", floatx="float32",
)  # fmt: skip
MAC_TF = replace(LINUX_TF, devices=["CPU:0", "GPU:0"], onednn=None)


def linux(**changes) -> Facts:
    """A healthy Linux machine set up as this project pins it."""
    facts = Facts(
        system="Linux", arch="x86_64", os_version="Debian GNU/Linux 12 (bookworm)",
        python="3.11.7", packages={"tensorflow-cpu": "2.16.2", "keras": "3.10.0"},
        cpu_model="Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz", logical_cores=2,
        cpu_features=["avx", "avx2", "avx512f", "avx512_vnni", "fma", "sse4_2"],
        ram_bytes=16 * GiB, swap_total_bytes=2 * GiB, swap_used_bytes=0,
        disk_path="/work/main", disk_free_bytes=80 * GiB, nvidia_gpus=None, tf=LINUX_TF, pins=PINS,
    )  # fmt: skip
    return replace(facts, **changes)


def mac(**changes) -> Facts:
    """A healthy M1 Mac, native arm64, with the pinned TensorFlow and tensorflow-metal."""
    facts = linux(
        system="Darwin", arch="arm64", os_version="macOS 14.5", macos="14.5", rosetta=False,
        apple_silicon=True, cpu_model="Apple M1", cpu_features=[], logical_cores=8,
        packages={"tensorflow": "2.16.2", "tensorflow-macos": "2.16.2",
                  "tensorflow-metal": "1.1.0", "keras": "3.10.0"},
        nvidia_gpus=None, tf=MAC_TF,
    )  # fmt: skip
    return replace(facts, **changes)
