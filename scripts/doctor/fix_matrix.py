"""Faked machines that show every fix the doctor can print: each Set up stack on Python 3.9 to
3.13 on an Apple-silicon Mac, whole and with one package missing or mismatched or its plugin
failing, and this project's Linux pins with the same faults. Read by `make commands-record`
and the tests, which hold each printed install command to what it installs."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from scripts.core import mac_stacks, project_files
from scripts.doctor.checks import Check
from scripts.doctor.facts import Facts, TensorFlowImport, project_pins
from scripts.doctor.rules import run_all

MAC_PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
LINUX_PYTHONS = ("3.11", "3.12")
PINNED = re.compile(r'"([A-Za-z0-9_.-]+)==([^"*]+)"')
# The Keras 3 a faked Mac holds beside TensorFlow 2.16 or later (the project measures with it),
# and a TensorFlow for the CPU stack on Python 3.13, where 2.16 has no wheel: 2.20.0, one of the
# two with macOS arm64 wheels for 3.13 (pip index, 2026-11-29: 2.21.0 and 2.20.0). It is not the
# newest: `pip install tensorflow` gives 2.21.0 there. Moving it changes the faked machines, so
# the commands record (make commands-record) must be refreshed with it.
KERAS_3 = "3.10.0"
NEWEST_TF = "2.20.0"
PLUGIN_ERROR = "NotFoundError: dlopen(libmetal_plugin.dylib): Symbol not found"


@dataclass(frozen=True)
class FakedMachine:
    """One machine the doctor is run on: what it is faked from, and its facts."""

    label: str
    base: str  # the Set up stack id it is built from, or "linux"
    platform: str  # macos-arm64, linux-x86_64 or linux-aarch64
    facts: Facts


def _imported(tf: str, gpu: bool) -> TensorFlowImport:
    devices = ["CPU:0", "GPU:0"] if gpu else ["CPU:0"]
    return TensorFlowImport(attempted=True, ok=True, seconds=3.0, returncode=0, version=tf,
                            devices=devices, floatx="float32")  # fmt: skip


def _mac(python: str, packages: dict[str, str], env: dict[str, str]) -> Facts:
    tf = packages.get("tensorflow")
    pins = project_pins(project_files.read_text(project_files.ROOT / "pyproject.toml"), python)
    return Facts(
        system="Darwin", arch="arm64", macos="14.5", rosetta=False, apple_silicon=True,
        python=f"{python}.0", packages=dict(packages), env=dict(env), cpu_model="Apple M1",
        tf=_imported(tf, "tensorflow-metal" in packages) if tf else TensorFlowImport(),
        pins=pins,
    )  # fmt: skip


def _stack_packages(stack: dict, python: str) -> tuple[dict[str, str], dict[str, str]]:
    """The packages and environment a Mac holds after installing the stack as Set up says."""
    pins = dict(PINNED.findall(" ".join(stack["install"])))
    tf = pins.get("tensorflow") or ("2.16.2" if python != "3.13" else NEWEST_TF)
    packages = {"tensorflow": tf, "keras": KERAS_3}
    if stack["match"]["keras"] == "keras2" and "tf-keras" not in pins:
        packages["keras"] = f"{tf.rsplit('.', 1)[0]}.0"  # Keras 2 of the same minor
    env = {}
    if "tf-keras" in pins:
        packages["tf-keras"] = pins["tf-keras"]
        env["TF_USE_LEGACY_KERAS"] = "1"
    if stack["match"]["metal"]:
        packages["tensorflow-metal"] = stack["match"]["metal"]
    return packages, env


def _without(packages: dict[str, str], name: str) -> dict[str, str]:
    return {k: v for k, v in packages.items() if k != name}


def _mac_variants(stack: dict, python: str) -> list[tuple[str, Facts]]:
    """The stack whole, then each package missing or mismatched, the plugin failing."""
    packages, env = _stack_packages(stack, python)
    tf, metal = packages["tensorflow"], packages.get("tensorflow-metal")
    base = _mac(python, packages, env)
    variants = [("as installed", base), ("tensorflow missing", _mac(python, _without(
        _without(packages, "tensorflow"), "tensorflow-metal"), env))]  # fmt: skip
    if metal:
        other = "1.1.0" if metal == "1.2.0" else "1.2.0"
        if mac_stacks.metal_installs(other, python):  # a mismatch pip can install here
            variants.append(
                (
                    f"tensorflow-metal {other} instead",
                    _mac(python, {**packages, "tensorflow-metal": other}, env),
                )
            )
        variants += [
            ("tensorflow-metal missing", _mac(python, _without(packages, "tensorflow-metal"), env)),
            ("plugin fails to load", replace(base, tf=TensorFlowImport(
                attempted=True, ok=False, returncode=1, error=PLUGIN_ERROR))),
            ("no GPU listed", replace(base, tf=_imported(tf, gpu=False))),
        ]  # fmt: skip
    if "tf-keras" in packages:
        variants += [
            ("tf-keras missing", _mac(python, _without(packages, "tf-keras"), env)),
            ("tf-keras of another minor", _mac(python, {**packages, "tf-keras": "2.15.1"}, env)),
            ("TF_USE_LEGACY_KERAS unset", _mac(python, packages, {})),
        ]
    if packages["keras"].startswith("3") and tf.startswith("2.16."):
        variants.append(("Keras 3.5 (retracing)", _mac(python, {**packages, "keras": "3.5.0"}, {})))
    return variants


def _linux(python: str, arch: str, packages: dict[str, str], env: dict[str, str]) -> Facts:
    pins = project_pins(project_files.read_text(project_files.ROOT / "pyproject.toml"), python)
    tf = packages.get("tensorflow-cpu") or packages.get("tensorflow")
    return Facts(system="Linux", arch=arch, python=f"{python}.0", packages=dict(packages),
                 env=dict(env), cpu_features=["avx", "avx2"],
                 tf=_imported(tf, gpu=False) if tf else TensorFlowImport(), pins=pins)  # fmt: skip


def _linux_variants(python: str, arch: str) -> list[tuple[str, Facts]]:
    pins = project_pins(project_files.read_text(project_files.ROOT / "pyproject.toml"), python)
    name = "tensorflow-cpu" if arch == "x86_64" else "tensorflow"
    packages = {name: pins.tensorflow, "keras": pins.keras}
    legacy = {"TF_USE_LEGACY_KERAS": "1"}
    return [
        ("as installed", _linux(python, arch, packages, {})),
        ("tensorflow missing", _linux(python, arch, {"keras": pins.keras}, {})),
        ("tf-keras missing", _linux(python, arch, packages, legacy)),
        ("tf-keras of another minor",
         _linux(python, arch, {**packages, "tf-keras": "2.15.1"}, legacy)),
        ("Keras 3.5 (retracing)", _linux(python, arch, {**packages, "keras": "3.5.0"}, {})),
        ("Keras 2", _linux(python, arch, {**packages, "keras": "2.15.0"}, {})),
    ]  # fmt: skip


def machines() -> list[FakedMachine]:
    """Every faked machine: each Mac stack on each Python its wheels cover, then Linux."""
    found = []
    for python in MAC_PYTHONS:
        for stack in mac_stacks.load()["stacks"]:
            if not mac_stacks.python_fits(stack, python):
                continue
            for label, facts in _mac_variants(stack, python):
                name = f"Mac, Python {python}, {stack['id']}: {label}"
                found.append(FakedMachine(name, stack["id"], "macos-arm64", facts))
    for arch in ("x86_64", "aarch64"):
        for python in LINUX_PYTHONS:
            for label, facts in _linux_variants(python, arch):
                name = f"Linux {arch}, Python {python}: {label}"
                found.append(FakedMachine(name, "linux", f"linux-{arch}", facts))
    return found


def fixes(machine: FakedMachine) -> list[Check]:
    """The checks on this machine that print a fix."""
    return [check for check in run_all(machine.facts) if check.fix]
