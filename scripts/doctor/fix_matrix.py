"""Faked machines that show every fix the doctor can print: each Set up recipe on Python 3.9 to
3.13 on an Apple-silicon Mac, whole and with one package missing or mismatched or its plugin
failing; Apple's tensorflow-macos 2.5 to 2.15 with and without its tensorflow-metal; and this
project's Linux pins with the same faults. Read by `make commands-record` and the tests, which
hold each printed install command to what it installs and to what the doctor says after it.

A machine's TensorFlow import is modelled from its packages and variables (`modelled_import`),
so the facts after a fix can be built the same way from what pip installs."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from scripts.core import compatibility, mac_recipes, project_files
from scripts.core.compatibility import minor, version_tuple
from scripts.doctor.checks import LEGACY_FLAG_FROM, LEGACY_TRUE, Check
from scripts.doctor.facts import (
    TENSORFLOW_DISTRIBUTIONS,
    Facts,
    Pins,
    TensorFlowImport,
    project_pins,
)
from scripts.doctor.rules import run_all

MAC_PYTHONS = ("3.9", "3.10", "3.11", "3.12", "3.13")
LINUX_PYTHONS = ("3.11", "3.12")
PINNED = re.compile(r'"([A-Za-z0-9_.-]+)==([^"*]+)"')
# The Keras 3 a faked Mac holds beside TensorFlow 2.16 or later (the project measures with it),
# and a TensorFlow for the CPU recipe on Python 3.13, where 2.16 has no wheel: 2.20.0, one of the
# two with macOS arm64 wheels for 3.13 (pip index, 2026-11-29: 2.21.0 and 2.20.0). It is not the
# newest: `pip install tensorflow` gives 2.21.0 there. Moving it changes the faked machines, so
# the commands record (make commands-record) must be refreshed with it.
KERAS_3 = "3.10.0"
NEWEST_TF = "2.20.0"
PLUGIN_ERROR = "NotFoundError: dlopen(libmetal_plugin.dylib): Symbol not found"
KERAS_ERROR = "ImportError: Keras cannot be imported. Check that it is installed."
# Apple's tensorflow-macos, the only TensorFlow for arm64 Macs before 2.13, at the last release
# of each minor, with the newest Python its macOS arm64 wheels cover (all from 3.9): `pip index
# versions tensorflow-macos --only-binary=:all: --platform macosx_14_0_arm64 --python-version
# 3.X`, 2026-11-29. 2.15.1's wheel holds no TensorFlow (docs/versions.md), so 2.15.0.
TENSORFLOW_MACOS = {
    "2.5.0": "3.9", "2.6.0": "3.9", "2.7.0": "3.9", "2.8.0": "3.9", "2.9.2": "3.10",
    "2.10.0": "3.10", "2.11.0": "3.10", "2.12.0": "3.11", "2.13.1": "3.11", "2.14.1": "3.11",
    "2.15.0": "3.11",
}  # fmt: skip
# From 2.6, tensorflow-macos requires the keras package of its minor; 2.5 had Keras inside.
# Each minor's .0 release, except 2.13, whose keras starts at 2.13.1 on PyPI (tensorflow-macos
# 2.13.1 requires keras>=2.13.1,<2.14).
KERAS_PACKAGE_FROM = (2, 6)
KERAS_OF = {"2.13": "2.13.1"}


@dataclass(frozen=True)
class FakedMachine:
    """One machine the doctor is run on: what it is faked from, and its facts."""

    label: str
    base: str  # the Set up recipe id it is built from, or "linux"
    platform: str  # macos-arm64, linux-x86_64 or linux-aarch64
    facts: Facts


def _imported(tf: str, gpu: bool) -> TensorFlowImport:
    devices = ["CPU:0", "GPU:0"] if gpu else ["CPU:0"]
    return TensorFlowImport(attempted=True, ok=True, seconds=3.0, returncode=0, version=tf,
                            devices=devices, floatx="float32")  # fmt: skip


def _keras_error(tf: str, packages: dict[str, str | None], env: dict[str, str]) -> str | None:
    """Whether tf.keras fails: the flag without tf_keras (TensorFlow 2.15 on), or no Keras."""
    if version_tuple(tf) >= LEGACY_FLAG_FROM and env.get("TF_USE_LEGACY_KERAS") in LEGACY_TRUE:
        return None if packages.get("tf-keras") else KERAS_ERROR
    needs_package = version_tuple(tf) >= KERAS_PACKAGE_FROM
    return KERAS_ERROR if needs_package and not packages.get("keras") else None


def modelled_import(packages: dict[str, str | None], env: dict[str, str]) -> TensorFlowImport:
    """What importing TensorFlow gives with these packages and variables: nothing without a
    TensorFlow; a failed import where the user's test saw this tensorflow-metal fail with this
    TensorFlow (data/compatibility.json); else the GPU listed when a plugin is installed, and
    tf.keras failing as `_keras_error` says."""
    tf = next((packages[name] for name in TENSORFLOW_DISTRIBUTIONS if packages.get(name)), None)
    if not tf:
        return TensorFlowImport()
    metal = packages.get("tensorflow-metal")
    pair = compatibility.pairing(tf, metal) if metal else None
    if pair and pair.verdict == "fail" and pair.tested_row.get("failed_at") == "import":
        error = f"NotFoundError: {pair.tested_row['error']}"
        return TensorFlowImport(attempted=True, ok=False, returncode=1, error=error)
    return replace(_imported(tf, gpu=bool(metal)), keras_error=_keras_error(tf, packages, env))


def facts_after(before: Facts, packages: dict[str, str | None], env: dict[str, str]) -> Facts:
    """The same machine after a fix: these packages and variables, the import modelled again."""
    installed = {name: version for name, version in packages.items() if version}
    return replace(before, packages=installed, env=dict(env),
                   tf=modelled_import(installed, env))  # fmt: skip


def _pins(python: str, system: str, arch: str) -> Pins:
    """This project's pins as pip reads them on that Python, system and architecture."""
    pyproject = project_files.read_text(project_files.ROOT / "pyproject.toml")
    return project_pins(pyproject, python, system, arch)


def _mac(python: str, packages: dict[str, str], env: dict[str, str]) -> Facts:
    pins = _pins(python, "Darwin", "arm64")
    return Facts(
        system="Darwin", arch="arm64", macos="14.5", rosetta=False, apple_silicon=True,
        python=f"{python}.0", packages=dict(packages), env=dict(env), cpu_model="Apple M1",
        tf=modelled_import(packages, env), pins=pins,
    )  # fmt: skip


def reader_facts(python: str, packages: dict[str, str], env: dict[str, str]) -> Facts:
    """An Apple-silicon Mac with these packages and variables (a symptom entry's reader)."""
    return _mac(python, packages, env)


def _recipe_packages(recipe: dict, python: str) -> tuple[dict[str, str], dict[str, str]]:
    """The packages and environment a Mac holds after installing the recipe as Set up says."""
    pins = dict(PINNED.findall(" ".join(recipe["install"])))
    tf = pins.get("tensorflow") or ("2.16.2" if python != "3.13" else NEWEST_TF)
    packages = {"tensorflow": tf, "keras": KERAS_3}
    if recipe["match"]["keras"] == "keras2" and "tf-keras" not in pins:
        packages["keras"] = f"{tf.rsplit('.', 1)[0]}.0"  # Keras 2 of the same minor
    env = {}
    if "tf-keras" in pins:
        packages["tf-keras"] = pins["tf-keras"]
        env["TF_USE_LEGACY_KERAS"] = "1"
    if recipe["match"]["metal"]:
        packages["tensorflow-metal"] = recipe["match"]["metal"]
    return packages, env


def _without(packages: dict[str, str], name: str) -> dict[str, str]:
    return {k: v for k, v in packages.items() if k != name}


def _mac_variants(recipe: dict, python: str) -> list[tuple[str, Facts]]:
    """The recipe whole, then each package missing or mismatched, the plugin failing."""
    packages, env = _recipe_packages(recipe, python)
    tf, metal = packages["tensorflow"], packages.get("tensorflow-metal")
    base = _mac(python, packages, env)
    variants = [("as installed", base), ("tensorflow missing", _mac(python, _without(
        _without(packages, "tensorflow"), "tensorflow-metal"), env))]  # fmt: skip
    if metal:
        other = "1.1.0" if metal == "1.2.0" else "1.2.0"
        if mac_recipes.metal_installs(other, python):  # a mismatch pip can install here
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
    if minor(tf) == LEGACY_FLAG_FROM and "tf-keras" not in packages:
        # The flag left set from a tf-keras environment (Set up: it outlives `deactivate`).
        variants.append(("TF_USE_LEGACY_KERAS set, no tf-keras",
                         _mac(python, packages, {"TF_USE_LEGACY_KERAS": "1"})))  # fmt: skip
    return variants


def _tensorflow_macos_variants(version: str, python: str) -> list[tuple[str, Facts]]:
    """tensorflow-macos with the Keras it requires: with Apple's tensorflow-metal for it (where
    that has a wheel for this Python), that plugin failing to load, and without a plugin."""
    packages = {"tensorflow-macos": version}
    if version_tuple(version) >= KERAS_PACKAGE_FROM:
        release = f"{minor(version)[0]}.{minor(version)[1]}"
        packages["keras"] = KERAS_OF.get(release, f"{release}.0")
    variants = [("without tensorflow-metal", _mac(python, packages, {}))]
    metal = compatibility.working_metal(version)
    if metal and mac_recipes.metal_installs(metal, python):
        whole = _mac(python, {**packages, "tensorflow-metal": metal}, {})
        variants += [
            (f"with tensorflow-metal {metal}", whole),
            (f"tensorflow-metal {metal} fails to load", replace(whole, tf=TensorFlowImport(
                attempted=True, ok=False, returncode=1, error=PLUGIN_ERROR))),
        ]  # fmt: skip
    return variants


def _linux(python: str, arch: str, packages: dict[str, str], env: dict[str, str]) -> Facts:
    pins = _pins(python, "Linux", arch)
    return Facts(system="Linux", arch=arch, python=f"{python}.0", packages=dict(packages),
                 env=dict(env), cpu_features=["avx", "avx2"],
                 tf=modelled_import(packages, env), pins=pins)  # fmt: skip


def _linux_variants(python: str, arch: str) -> list[tuple[str, Facts]]:
    pins = _pins(python, "Linux", arch)
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
    """Every faked machine: each Mac recipe on each Python its wheels cover, then Linux."""
    found = []
    for python in MAC_PYTHONS:
        for recipe in mac_recipes.load()["recipes"]:
            if not mac_recipes.python_fits(recipe, python):
                continue
            for label, facts in _mac_variants(recipe, python):
                name = f"Mac, Python {python}, {recipe['id']}: {label}"
                found.append(FakedMachine(name, recipe["id"], "macos-arm64", facts))
    for version, newest in TENSORFLOW_MACOS.items():
        for python in MAC_PYTHONS:
            if minor(python) > minor(newest):
                continue
            for label, facts in _tensorflow_macos_variants(version, python):
                name = f"Mac, Python {python}, tensorflow-macos {version}: {label}"
                found.append(FakedMachine(name, "tensorflow-macos", "macos-arm64", facts))
    for arch in ("x86_64", "aarch64"):
        for python in LINUX_PYTHONS:
            for label, facts in _linux_variants(python, arch):
                name = f"Linux {arch}, Python {python}: {label}"
                found.append(FakedMachine(name, "linux", f"linux-{arch}", facts))
    return found


def fixes(machine: FakedMachine) -> list[Check]:
    """The checks on this machine that print a fix."""
    return [check for check in run_all(machine.facts) if check.fix]
