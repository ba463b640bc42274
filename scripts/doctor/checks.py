"""What the doctor's rule modules share: the `Check` a rule returns, the pages and sources
checks cite, the thresholds and words the rules consult, and readings of the collected `Facts`
(which TensorFlow and Keras, which Mac, which recipe to suggest).

A fix is a command to run or a guide page to read; the guide paths are the site's source
paths (docs/*.md), some of them pages still to be written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from scripts.core import compatibility, mac_recipes
from scripts.core.compatibility import minor, same_version, version_tuple
from scripts.doctor.facts import TENSORFLOW_DISTRIBUTIONS, Facts


class Status(str, Enum):
    PASS = "PASS"
    WARN = "WARN"
    FAIL = "FAIL"
    SKIP = "SKIP"


@dataclass(frozen=True)
class Check:
    """One line of the report; WARN and FAIL carry a fix."""

    name: str
    status: Status
    found: str
    fix: str | None = None
    guide: str | None = None
    note: str | None = None
    source: str | None = None


# --- the guide's pages a fix points at (the site's source paths) -----------------------------

SETUP = "docs/setup.md"
VERSIONS = "docs/versions.md"
DEVICES = "docs/device-placement.md"
# The symptom index (data/symptoms.yml): a WARN or FAIL that matches a reported symptom
# points at its entry, which links on to the evidence.
SYMPTOMS = "docs/symptoms.md"
CORRECTNESS = "docs/gpu-correctness.md"
FUSED_DENSE_CHECK = f"{VERSIONS}#the-fused-dense-bug-a-check-you-can-run"

# --- the sources a check prints (each in the ledger, data/sources.yml) ----------

ROSETTA_DOC = (
    "https://developer.apple.com/documentation/apple-silicon/"
    "about-the-rosetta-translation-environment"
)
OPTIMIZER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/59438"
KERAS_211_XLA_ISSUE = "https://github.com/tensorflow/tensorflow/issues/58988"
KERAS_2_14_OPTIMIZERS = (
    "https://github.com/keras-team/keras/blob/v2.14.0/keras/optimizers/__init__.py"
)
ADAMW_ISSUE = "https://github.com/keras-team/tf-keras/issues/176"
# Users' advice for TensorFlow in an amd64 container on an Apple-silicon Mac: an arm64 image.
AVX_IN_CONTAINER_ISSUE = "https://github.com/tensorflow/tensorflow/issues/52845"
# TensorFlow's own AVX check message, seen under QEMU.
AVX_GUARD_ISSUE = "https://github.com/tensorflow/tensorflow/issues/52972"
# The sysctl's handler, which returns the NOTE_MEMORYSTATUS_PRESSURE_* values (1, 2, 4).
MEMORY_PRESSURE_SOURCE = (
    "https://github.com/apple-oss-distributions/xnu/blob/"
    "4f1223e81cd707a65cc109d0b8ad6653699da3c4/bsd/kern/kern_memorystatus_notify.c"
)
XLA_METAL_ISSUE = "https://github.com/NVlabs/sionna/issues/78"
# tf-keras's can_jit_compile: jit_compile is switched off, with a warning, on any Apple-silicon Mac.
TF_KERAS_NO_XLA = "https://github.com/keras-team/tf-keras/blob/v2.16.0/tf_keras/utils/tf_utils.py"
FLOAT64_QUOTE = "https://github.com/JuliaGPU/Metal.jl/issues/84"
TF_INSTALL = "https://www.tensorflow.org/install/pip"
LEGACY_KERAS_SOURCE = (
    "https://github.com/tensorflow/tensorflow/blob/v2.16.2/tensorflow/python/util/lazy_loader.py"
)
KERAS37_METAL12_ISSUE = "https://github.com/keras-team/keras/issues/21668"
APPLE_PLUGIN_PAGE = "https://developer.apple.com/metal/tensorflow-plugin"

# --- what the rules compare the facts with (the version tables and wheels are data files,
# read through scripts/core: data/compatibility.json and data/mac_recipes.json) ---------------

# The TensorFlow from which tf.keras is Keras 3 unless TF_USE_LEGACY_KERAS chooses tf-keras.
KERAS_3_FROM = (2, 16)
# The TensorFlow from which TF_USE_LEGACY_KERAS routes tf.keras to tf_keras: 2.15.0 reads it as
# 2.16 does (its tensorflow/__init__.py sets _tf_uses_legacy_keras, and KerasLazyLoader imports
# tf_keras, or raises "Keras cannot be imported" without it; read in the tensorflow-cpu 2.15.0
# wheel).
LEGACY_FLAG_FROM = (2, 15)
LEGACY_KERAS_2_15_SOURCE = (
    "https://github.com/tensorflow/tensorflow/blob/v2.15.0/tensorflow/python/util/lazy_loader.py"
)
# TensorFlow 2.16 reads TF_USE_LEGACY_KERAS as true for exactly these values, and uses it only
# to choose what tf.keras loads: `import keras` is the keras package either way.
LEGACY_TRUE = ("true", "True", "1")
# Apple's plugin page asks for macOS 12.0 or later; tensorflow-metal's wheels are tagged 12.0.
MACOS_FLOOR = "12.0"
# Words in an import error that point at the tensorflow-metal plugin.
PLUGIN_WORDS = ("metal", "tensorflow-plugins", "symbol not found", "library not loaded", "dlopen")
DISK_WARN_BYTES = 5 * 2**30  # the doctor's own threshold, not a measured limit
# TensorFlow's own CPU check at import, when the build's instructions are not advertised.
AVX_GUARD = "compiled to use AVX"

# --- shared readings of the facts ----------------------------------------------------------


def tf_distributions(f: Facts) -> dict[str, str]:
    """The installed distributions that provide the `tensorflow` module, with versions."""
    return {name: f.packages[name] for name in TENSORFLOW_DISTRIBUTIONS if f.packages.get(name)}


def tf_version(f: Facts) -> str | None:
    """The TensorFlow version: as imported, else as installed."""
    return f.tf.version or next(iter(tf_distributions(f).values()), None)


def is_mac(f: Facts) -> bool:
    return f.system == "Darwin"


def is_arm_mac(f: Facts) -> bool:
    """A native arm64 process on an Apple-silicon Mac."""
    return is_mac(f) and f.arch == "arm64" and not f.rosetta


def is_translated(f: Facts) -> bool:
    """An x86_64 process on an Apple-silicon Mac: Rosetta says so, or the hardware is arm64."""
    return is_mac(f) and (bool(f.rosetta) or (f.arch == "x86_64" and bool(f.apple_silicon)))


def legacy_keras(f: Facts) -> bool:
    return f.env.get("TF_USE_LEGACY_KERAS") in LEGACY_TRUE


def keras_in_use(f: Facts) -> tuple[str, str | None]:
    """('tf-keras' | 'keras', version): which Keras `tf.keras` means with this TensorFlow."""
    tf = tf_version(f)
    if tf and version_tuple(tf) >= LEGACY_FLAG_FROM and legacy_keras(f):
        return "tf-keras", f.packages.get("tf-keras")
    return "keras", f.packages.get("keras")


def metal_to_suggest(f: Facts) -> str | None:
    """The tensorflow-metal the compatibility data gives for this TensorFlow. Not this
    project's own pin: on Python 3.12 the project pins 1.2.0 for its measuring environment,
    a pairing in neither table that data/mac_recipes.json warns readers about."""
    tf = tf_version(f)
    return compatibility.working_metal(tf) if tf else None


def install_command(f: Facts, fresh: bool = False) -> str:
    """On a Mac, the recipe for this Python (data/mac_recipes.json); on Linux, this project's pins.

    fresh: TensorFlow is about to be uninstalled, so the command must install it again.
    """
    if is_arm_mac(f):
        return mac_recipe_command(f, fresh)
    tf, keras = f.pins.tensorflow, f.pins.keras
    if not tf or not keras:
        return f"see {SETUP}"
    if f.system == "Linux":
        # tensorflow-cpu has no Linux arm64 wheel; there the tensorflow wheel has no CUDA.
        name = "tensorflow" if f.arch in ("aarch64", "arm64") else "tensorflow-cpu"
        return f'python -m pip install "{name}=={tf}" "keras=={keras}"'
    return f"see {SETUP}"


# --- the Mac recipe for the reader's Python (data/mac_recipes.json) -----------------------------


def on_recommended_python(f: Facts) -> bool:
    """Whether every package of the recommended Mac recipe has a wheel for this Python."""
    return not f.python or mac_recipes.python_fits(mac_recipes.recommended(), f.python)


def gpu_environment_advice() -> str:
    """For a Python the recommended recipe has no wheels for: where the GPU route is."""
    low, high = mac_recipes.recommended()["python"]
    return (
        f"for the GPU, make a Python {low} to {high} environment (e.g. `python{high} -m venv "
        f"~/venv-tf`) and install the recommended recipe there ({SETUP})"
    )


def mac_recipe_command(f: Facts, fresh: bool = False) -> str:
    """What moves this Mac to the recipe for its Python: the recommended recipe where its wheels
    exist, else the data's recipe for other Pythons (the CPU) plus where the GPU route is."""
    recipe = mac_recipes.for_python(f.python)
    if recipe is None:
        advice = gpu_environment_advice()
        return f"no recipe on the Set up page installs on Python {f.python}: {advice}"
    clear = not fresh and leaves_tensorflow_macos(f, recipe)
    if recipe["id"] == mac_recipes.recommended()["id"]:
        command = mac_recipes.install_command(recipe)
        return f"{CLEAR_MACOS} && {command} {CLEAR_MACOS_WHY}" if clear else command
    steps = [CLEAR_MACOS] if clear else []
    if recipe["match"]["metal"] is None and f.packages.get("tensorflow-metal"):
        steps.append("python -m pip uninstall -y tensorflow-metal")
    if clear or fresh or not tf_distributions(f) or recipe["match"]["metal"] is not None:
        steps.append(mac_recipes.install_command(recipe))
    here = " && ".join(steps) if steps else "TensorFlow stays on the CPU (nothing to install)"
    why = f" {CLEAR_MACOS_WHY}" if clear else ""
    return f"on Python {minor_text(f.python)}: {here}{why}; {gpu_environment_advice()}"


# pip installs tensorflow 2.16 beside tensorflow-macos 2.15.0 and leaves it: both wheels put
# files in site-packages/tensorflow/, so 2.15.0's extra files stay among 2.16's, and removing
# tensorflow-macos later deletes files 2.16 needs. The fix removes it first.
CLEAR_MACOS = "python -m pip uninstall -y tensorflow-macos tensorflow"
CLEAR_MACOS_WHY = "(tensorflow-macos first: pip would leave its files among the new TensorFlow's)"


def holds_tensorflow_macos(f: Facts) -> bool:
    """Whether this Mac's TensorFlow files may be tensorflow-macos's: it is listed, or
    `tensorflow` is 2.13 to 2.15.0, whose arm64 wheel holds no TensorFlow and requires
    tensorflow-macos of its version (docs/versions.md's table; 2.15.1's wheel is whole)."""
    tf = f.packages.get("tensorflow")
    thin = bool(is_arm_mac(f) and tf and version_tuple(tf) < (2, 15, 1))
    return bool(f.packages.get("tensorflow-macos")) or thin


def leaves_tensorflow_macos(f: Facts, recipe: dict) -> bool:
    """Whether installing the recipe over this environment would leave tensorflow-macos beside
    a TensorFlow from 2.16 on (the recipe's, or the newest for an unpinned one)."""
    wanted = recipe["match"]["tensorflow"]
    newer = "any" in wanted or all(version_tuple(v) >= (2, 16) for v in wanted)
    return newer and holds_tensorflow_macos(f)


def mac_recipe_fix(f: Facts) -> str:
    """The fix that names the recipe: 'the recommended recipe: ...' or the other-Python advice."""
    command = mac_recipe_command(f)
    return f"the recommended recipe: {command}" if on_recommended_python(f) else command


def installable_metal(f: Facts) -> str | None:
    """The tensorflow-metal that fits this TensorFlow, if it has a wheel for this Python."""
    suggest = metal_to_suggest(f)
    return suggest if suggest and mac_recipes.metal_installs(suggest, f.python) else None


def metal_install(f: Facts) -> str | None:
    """Install the tensorflow-metal that fits this TensorFlow, if it has a wheel for this Python."""
    metal = installable_metal(f)
    return f'python -m pip install "tensorflow-metal=={metal}"' if metal else None


def no_metal_fix(f: Facts) -> str:
    """Why no tensorflow-metal can be installed next to this TensorFlow here, and what to do."""
    tf, suggest = tf_version(f), metal_to_suggest(f)
    if suggest:
        why = (
            f"tensorflow-metal {suggest}, the release for TensorFlow {minor_text(tf)}, has no "
            f"wheel for Python {minor_text(f.python)}"
        )
    else:
        why = f"no tensorflow-metal is known to work with TensorFlow {minor_text(tf)}"
    return f"{why}; {mac_recipe_fix(f)}"


def keras_family(f: Facts) -> str:
    """'keras2' or 'keras3': which Keras tf.keras is here, as data/mac_recipes.json matches it."""
    which, version = keras_in_use(f)
    if which == "tf-keras":
        return "keras2"
    if version:
        return "keras3" if version_tuple(version) >= (3,) else "keras2"
    tf = tf_version(f)
    return "keras3" if tf and version_tuple(tf) >= KERAS_3_FROM else "keras2"


def warned_recipe(f: Facts, metal: str) -> tuple[dict, bool] | None:
    """The recipe Set up warns about that this TensorFlow with this tensorflow-metal makes, and
    whether it is exactly that recipe (False: the pair is unlisted and the warned recipe with
    this plugin nearest in TensorFlow version stands for it); None when no warning applies."""
    tf = tf_version(f)
    if not tf:
        return None
    recipe = mac_recipes.identify(tf, metal, keras_family(f))
    if recipe is not None:
        return (recipe, True) if mac_recipes.is_warned(recipe) else None
    warned = [
        s
        for s in mac_recipes.load()["recipes"]
        if mac_recipes.is_warned(s) and same_version(s["match"]["metal"] or "", metal)
    ]
    if not warned:
        return None

    def distance(recipe: dict) -> int:
        return min(abs(minor(v)[1] - minor(tf)[1]) for v in recipe["match"]["tensorflow"])

    return min(warned, key=distance), False


def metal_fix(f: Facts, command: str) -> tuple[str, str | None, str | None]:
    """(fix, note, source) for a fix that installs this tensorflow-metal: the command, or, when
    it makes a pair Set up warns about, the recommended recipe first (on a Python it installs
    on) and the command second, with the pair's reports in the note, as the mac recipe check words
    them."""
    metal = _metal_in(command)
    found = warned_recipe(f, metal) if metal else None
    if found is None:
        return command, None, None
    recipe, exact = found
    issues = " ".join(issue["text"] for issue in recipe["known_issues"])
    which = (
        f"'{recipe['name']}', a recipe Set up warns about"
        if exact
        else f"a pair Set up does not list; it warns about the nearest recipe with this plugin, "
        f"'{recipe['name']}'"
    )
    tf = minor_text(tf_version(f))
    note = f"tensorflow-metal {metal} with TensorFlow {tf} is {which}: {issues}"
    if compatibility.pairing(tf_version(f), metal).tested_row is None:
        note += f" The user's test of each pair did not try TensorFlow {tf} with {metal}."
    source = mac_recipes.load()["sources"][recipe["known_issues"][0]["sources"][0]]
    keep = f"or, to keep TensorFlow {tf} (see the note): {command}"
    if on_recommended_python(f):
        return f"{mac_recipe_fix(f)}; {keep}", note, source
    # Off the recommended Pythons, Set up's answer is the CPU: it comes first, the pair second.
    gpu = f"or, to try the GPU with TensorFlow {tf} on this Python (see the note): {command}"
    return f"{mac_recipe_command(f)}; {gpu}", note, source


def _metal_in(command: str) -> str | None:
    found = re.search(r'"tensorflow-metal==([^"]+)"', command)
    return found.group(1) if found else None


def minor_text(version: str | None) -> str:
    return ".".join(map(str, minor(version)))
