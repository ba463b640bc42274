"""The doctor's checks: each rule is a pure function from collected `Facts` to one `Check`.

Rules never probe the machine, so tests can hand them any machine (a Mac under Rosetta, a
broken plugin) on Linux. A fix is a command to run or a guide page to read; the guide paths
are the site's source paths (docs/*.md), some of them pages still to be written.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from scripts.core import compatibility, mac_stacks
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


SETUP = "docs/setup.md"
VERSIONS = "docs/versions.md"
DEVICES = "docs/device-placement.md"
# The symptom index (data/symptoms.yml): a WARN or FAIL that matches a reported symptom
# points at its entry, which links on to the evidence.
SYMPTOMS = "docs/symptoms.md"

ROSETTA_DOC = (
    "https://developer.apple.com/documentation/apple-silicon/"
    "about-the-rosetta-translation-environment"
)
CORRECTNESS = "docs/gpu-correctness.md"
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
FLOAT64_QUOTE = "https://github.com/JuliaGPU/Metal.jl/issues/84"
TF_INSTALL = "https://www.tensorflow.org/install/pip"
# TensorFlow 2.16 reads TF_USE_LEGACY_KERAS as true for exactly these values, and uses it only
# to choose what tf.keras loads: `import keras` is the keras package either way.
LEGACY_TRUE = ("true", "True", "1")
LEGACY_KERAS_SOURCE = (
    "https://github.com/tensorflow/tensorflow/blob/v2.16.2/tensorflow/python/util/lazy_loader.py"
)
KERAS37_METAL12_ISSUE = "https://github.com/keras-team/keras/issues/21668"
FUSED_DENSE_CHECK = f"{VERSIONS}#the-fused-dense-bug-a-check-you-can-run"
APPLE_PLUGIN_PAGE = "https://developer.apple.com/metal/tensorflow-plugin"
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
    if tf and version_tuple(tf) >= (2, 16) and legacy_keras(f):
        return "tf-keras", f.packages.get("tf-keras")
    return "keras", f.packages.get("keras")


def metal_to_suggest(f: Facts) -> str | None:
    """This project's metal pin with its TensorFlow pin, else what the compatibility data gives."""
    tf = tf_version(f)
    if tf and f.pins.tensorflow and tf == f.pins.tensorflow and f.pins.metal:
        return f.pins.metal
    return compatibility.working_metal(tf) if tf else None


def install_command(f: Facts, fresh: bool = False) -> str:
    """On a Mac, the stack for this Python (data/mac_stacks.json); on Linux, this project's pins.

    fresh: TensorFlow is about to be uninstalled, so the command must install it again.
    """
    if is_arm_mac(f):
        return mac_stack_command(f, fresh)
    tf, keras = f.pins.tensorflow, f.pins.keras
    if not tf or not keras:
        return f"see {SETUP}"
    if f.system == "Linux":
        # tensorflow-cpu has no Linux arm64 wheel; there the tensorflow wheel has no CUDA.
        name = "tensorflow" if f.arch in ("aarch64", "arm64") else "tensorflow-cpu"
        return f'python -m pip install "{name}=={tf}" "keras=={keras}"'
    return f"see {SETUP}"


# --- the Mac stack for the reader's Python (data/mac_stacks.json) -----------------------------


def on_recommended_python(f: Facts) -> bool:
    """Whether every package of the recommended Mac stack has a wheel for this Python."""
    return not f.python or mac_stacks.python_fits(mac_stacks.recommended(), f.python)


def gpu_environment_advice() -> str:
    """For a Python the recommended stack has no wheels for: where the GPU route is."""
    low, high = mac_stacks.recommended()["python"]
    return (
        f"for the GPU, make a Python {low} to {high} environment (e.g. `python{high} -m venv "
        f"~/venv-tf`) and install the recommended stack there ({SETUP})"
    )


def mac_stack_command(f: Facts, fresh: bool = False) -> str:
    """What moves this Mac to the stack for its Python: the recommended stack where its wheels
    exist, else the data's stack for other Pythons (the CPU) plus where the GPU route is."""
    stack = mac_stacks.for_python(f.python)
    if stack is None:
        advice = gpu_environment_advice()
        return f"no stack on the Set up page installs on Python {f.python}: {advice}"
    if stack["id"] == mac_stacks.recommended()["id"]:
        return mac_stacks.install_command(stack)
    steps = []
    if stack["match"]["metal"] is None and f.packages.get("tensorflow-metal"):
        steps.append("python -m pip uninstall -y tensorflow-metal")
    if fresh or not tf_distributions(f) or stack["match"]["metal"] is not None:
        steps.append(mac_stacks.install_command(stack))
    here = " && ".join(steps) if steps else "TensorFlow stays on the CPU (nothing to install)"
    return f"on Python {minor_text(f.python)}: {here}; {gpu_environment_advice()}"


def mac_stack_fix(f: Facts) -> str:
    """The fix that names the stack: 'the recommended stack: ...' or the other-Python advice."""
    command = mac_stack_command(f)
    return f"the recommended stack: {command}" if on_recommended_python(f) else command


def metal_install(f: Facts) -> str | None:
    """Install the tensorflow-metal that fits this TensorFlow, if it has a wheel for this Python."""
    suggest = metal_to_suggest(f)
    if suggest and mac_stacks.metal_installs(suggest, f.python):
        return f'python -m pip install "tensorflow-metal=={suggest}"'
    return None


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
    return f"{why}; {mac_stack_fix(f)}"


def size(n: int | None) -> str:
    if n is None:
        return "unknown"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _python_range(f: Facts) -> str | None:
    low, below = f.pins.python_min, f.pins.python_below
    if not low or not below:
        return None
    major, last = version_tuple(below)[0], version_tuple(below)[1] - 1
    return f"{low} to {major}.{last}"


# --- the rules -----------------------------------------------------------------------------


def check_python(f: Facts) -> Check:
    """On an Apple-silicon Mac, Python against the stacks' wheels; elsewhere, requires-python."""
    if is_arm_mac(f) and f.python:
        return _check_mac_python(f)
    supported = _python_range(f)
    if not supported:
        return Check("python", Status.SKIP, f"Python {f.python}; no pins found in pyproject.toml")
    ours = version_tuple(f.python)[:2]
    low, below = version_tuple(f.pins.python_min)[:2], version_tuple(f.pins.python_below)[:2]
    pinned = f"TensorFlow {f.pins.tensorflow} as pinned here" if f.pins.tensorflow else "the pins"
    if low <= ours < below:
        return Check("python", Status.PASS, f"Python {f.python}; {pinned} supports {supported}")
    return Check(
        "python",
        Status.FAIL,
        f"Python {f.python}; {pinned} supports {supported} only",
        fix=f"create the environment with Python {supported}, e.g. `python3.11 -m venv ~/venv-tf`",
        guide=f"{SYMPTOMS}#no-matching-distribution-tensorflow",
    )


def _check_mac_python(f: Facts) -> Check:
    """On an Apple-silicon Mac: Python against the wheels the Set up page's stacks record."""
    best = mac_stacks.recommended()
    low, high = best["python"]
    wheels = f"the recommended Mac stack has wheels for Python {low} to {high}"
    if on_recommended_python(f):
        return Check("python", Status.PASS, f"Python {f.python}; {wheels}")
    route = mac_stacks.for_python(f.python)
    if route is None:
        return Check(
            "python",
            Status.FAIL,
            f"Python {f.python}: no stack on the Set up page has wheels for it",
            fix=gpu_environment_advice(),
            guide=f"{SETUP}#which-stack-to-install-on-a-mac",
        )
    return Check(
        "python",
        Status.WARN,
        f"Python {f.python}: {wheels} only (tensorflow-metal {best['match']['metal']}); on "
        f"{minor_text(f.python)} the Set up page's choice is '{route['name']}'",
        fix=gpu_environment_advice(),
        guide=f"{SETUP}#which-stack-to-install-on-a-mac",
    )


def check_architecture(f: Facts) -> Check:
    """Native arm64 on a Mac; an x86_64 Python under Rosetta 2 fails."""
    if is_translated(f):
        how = "sysctl.proc_translated = 1" if f.rosetta else "hw.optional.arm64 = 1"
        return Check(
            "architecture",
            Status.FAIL,
            f"{f.arch} Python translated by Rosetta 2 on an Apple-silicon Mac ({how})",
            fix="recreate the environment with an arm64 Python: `arch -arm64 python3 -m venv "
            '~/venv-tf`; `python -c "import platform; print(platform.machine())"` must print arm64',
            guide=f"{SYMPTOMS}#illegal-hardware-instruction",
            note=rosetta_note(f),
            source=ROSETTA_DOC,
        )
    if is_mac(f) and f.arch == "arm64":
        return Check("architecture", Status.PASS, "arm64, native (not translated by Rosetta 2)")
    if is_mac(f):
        return Check(
            "architecture",
            Status.WARN,
            f"{f.arch} Mac, not translated: an Intel Mac, which this guide does not cover",
            fix=f"the pins install TensorFlow on arm64 Macs and Linux only; see {SETUP}",
            guide=SETUP,
        )
    if not f.arch:
        return Check("architecture", Status.WARN, "platform.machine() gave nothing", guide=SETUP,
                     fix="check `uname -m`")  # fmt: skip
    return Check("architecture", Status.PASS, f"{f.arch} on {f.system}")


def rosetta_note(f: Facts) -> str:
    """What x86 TensorFlow does under this Mac's Rosetta 2 (Apple's page, then reports)."""
    always = "tensorflow-metal has arm64 wheels only, so a translated Python never gets the GPU"
    if f.macos and version_tuple(f.macos) >= (15,):
        return (
            f"{always}. Apple says Rosetta now translates AVX and AVX2 (not AVX-512); on macOS "
            "15 and later it is reported not to advertise them unless ROSETTA_ADVERTISE_AVX=1 "
            "is set, so x86 TensorFlow may stop at its own CPU check instead of running"
        )
    return (
        f"{always}. Rosetta on macOS {f.macos or '(version unknown)'} is reported not to run AVX, "
        "which TensorFlow's x86 builds use, so `import tensorflow` can crash with an illegal "
        "instruction"
    )


def check_macos(f: Facts) -> Check:
    """macOS new enough for the tensorflow-metal in use (Apple's table)."""
    if not is_mac(f):
        return Check("macos", Status.SKIP, f"not macOS ({f.system})")
    metal = f.packages.get("tensorflow-metal") or metal_to_suggest(f)
    needed = compatibility.macos_required(metal) if metal else None
    why = f"tensorflow-metal {metal} needs {needed}+ (Apple's table)"
    if needed is None:
        needed, why = "12.0", "tensorflow-metal needs 12.0 or later (Apple's plugin page)"
    if not f.macos:
        return Check("macos", Status.WARN, "`sw_vers` gave no macOS version",
                     fix="run `sw_vers -productVersion`", guide=VERSIONS)  # fmt: skip
    if version_tuple(f.macos) >= version_tuple(needed):
        return Check("macos", Status.PASS, f"macOS {f.macos}; {why}")
    if version_tuple(f.macos) >= version_tuple(MACOS_FLOOR):
        return Check(
            "macos",
            Status.WARN,
            f"macOS {f.macos} is older than {needed}: {why}; Apple's plugin page asks for "
            f"{MACOS_FLOOR} or later, and the plugin's wheels are tagged for macOS {MACOS_FLOOR}",
            fix="nothing if the gpu check passes; otherwise update macOS (System Settings > "
            "General > Software Update)",
            guide=VERSIONS,
            source=APPLE_PLUGIN_PAGE,
        )
    return Check(
        "macos",
        Status.FAIL,
        f"macOS {f.macos} is older than {needed}: {why}",
        fix="update macOS (System Settings > General > Software Update)",
        guide=VERSIONS,
        source="https://pypi.org/project/tensorflow-metal/",
    )


def check_tensorflow(f: Facts) -> Check:
    """Which distributions provide `tensorflow`, and whether they agree with the pin."""
    installed = tf_distributions(f)
    listed = " + ".join(f"{name} {version}" for name, version in installed.items())
    if not installed:
        return Check(
            "tensorflow",
            Status.FAIL,
            f"not installed (looked for {', '.join(TENSORFLOW_DISTRIBUTIONS)})",
            fix=install_command(f),
            guide=SETUP,
        )
    versions = set(installed.values())
    if len(versions) > 1:
        return Check(
            "tensorflow",
            Status.FAIL,
            f"{listed}: different versions install over the same `tensorflow` files",
            fix=f"python -m pip uninstall -y {' '.join(installed)}; then "
            f"{install_command(f, fresh=True)}",
            guide=SETUP,
        )
    if "tensorflow-cpu" in installed and "tensorflow" in installed:
        return Check(
            "tensorflow",
            Status.WARN,
            f"{listed}: two distributions install the same `tensorflow` files",
            fix="python -m pip uninstall -y tensorflow tensorflow-cpu; then "
            f"{install_command(f, fresh=True)}",
            guide=SETUP,
        )
    version = versions.pop()
    if is_arm_mac(f) and f.pins.tensorflow and version != f.pins.tensorflow:
        return Check(
            "tensorflow",
            Status.PASS,
            f"{listed}; the mac stack check below compares it with the Set up page's stacks "
            f"(this guide measures with {f.pins.tensorflow})",
        )
    if f.pins.tensorflow and version != f.pins.tensorflow:
        return Check(
            "tensorflow",
            Status.WARN,
            f"{listed}; this guide measures with {f.pins.tensorflow}",
            fix=install_command(f),
            guide=VERSIONS,
        )
    pinned = " (the version this guide measures with)" if f.pins.tensorflow else ""
    return Check("tensorflow", Status.PASS, f"{listed}{pinned}")


def _signal_name(returncode: int) -> str:
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def check_import(f: Facts) -> Check:
    """`import tensorflow` in a child process: crashes and plugin failures show here."""
    name = "tensorflow import"
    if not f.tf.attempted:
        return Check(name, Status.SKIP, "no TensorFlow to import")
    if f.tf.timed_out:
        return Check(
            name,
            Status.FAIL,
            f"`import tensorflow` did not finish within {f.tf.timeout_s:g} s",
            fix='run `python -c "import tensorflow"` to see where it stops, or give the doctor '
            "more time: `python -m scripts.doctor --timeout 300`",
            guide=SETUP,
        )
    crashed = f.tf.returncode is not None and f.tf.returncode < 0
    if AVX_GUARD in (f.tf.error or ""):
        return _missing_instructions(
            f,
            "`import tensorflow` stopped at TensorFlow's own CPU check: the build uses AVX, "
            "which this CPU (or its emulator) does not advertise",
            "compiled-to-use-avx",
            AVX_GUARD_ISSUE,
        )
    if crashed and -f.tf.returncode == signal.SIGILL:
        return _missing_instructions(
            f,
            "`import tensorflow` crashed with an illegal instruction (SIGILL): the build uses "
            "CPU instructions (AVX) that this CPU or Rosetta 2 does not provide",
            "illegal-hardware-instruction",
            ROSETTA_DOC,
        )
    if crashed:
        return Check(
            name,
            Status.FAIL,
            f"`import tensorflow` crashed ({_signal_name(f.tf.returncode)})",
            fix=f"reinstall: python -m pip install --force-reinstall {_pinned_spec(f)}",
            guide=SETUP,
        )
    metal = f.packages.get("tensorflow-metal")
    error = f.tf.error or "no error text"
    if not f.tf.ok and metal and any(key in error.lower() for key in PLUGIN_WORDS):
        install = metal_install(f) if metal_to_suggest(f) != metal else None
        fix = install or (
            f"{install_command(f)}; or run on the CPU: python -m pip uninstall -y tensorflow-metal"
            if on_recommended_python(f)
            else install_command(f)
        )
        return Check(
            name,
            Status.FAIL,
            f"`import tensorflow` failed loading the tensorflow-metal {metal} plugin: {error}",
            fix=fix,
            guide=f"{SYMPTOMS}#import-fails",
        )
    if not f.tf.ok:
        return Check(
            name,
            Status.FAIL,
            f"`import tensorflow` failed: {error}",
            fix=f"python -m pip install --force-reinstall {_pinned_spec(f)}",
            guide=SETUP,
        )
    installed = set(tf_distributions(f).values())
    if installed and f.tf.version not in installed:
        return Check(
            name,
            Status.WARN,
            f"imports TensorFlow {f.tf.version} from {f.tf.location}, but pip lists "
            f"{', '.join(sorted(installed))}: another installation comes first on sys.path",
            fix='python -c "import sys; print(sys.path)", then look for a user or system '
            "site-packages that holds another TensorFlow",
            guide=SETUP,
        )
    seconds = f"{f.tf.seconds:g} s" if f.tf.seconds is not None else "?"
    return Check(name, Status.PASS, f"imports TensorFlow {f.tf.version} in {seconds}")


def _missing_instructions(f: Facts, found: str, symptom: str, source: str) -> Check:
    """An import that failed for want of AVX: the fix is a native Python or an arm64 image."""
    arch_fix = check_architecture(f)
    return Check(
        "tensorflow import",
        Status.FAIL,
        found,
        fix=arch_fix.fix if arch_fix.status is Status.FAIL else container_fix(),
        guide=f"{SYMPTOMS}#{symptom}",
        source=source,
    )


def container_fix() -> str:
    """The fix for x86 TensorFlow without AVX on Linux, often an amd64 container on a Mac."""
    return (
        "in a container on an Apple-silicon Mac, use an arm64 image "
        "(`docker run --platform linux/arm64 ...`): TensorFlow has Linux arm64 wheels; "
        "elsewhere, run on a CPU or VM setting that exposes AVX"
    )


def _pinned_spec(f: Facts) -> str:
    installed = tf_distributions(f)
    name = next(iter(installed), "tensorflow")
    return f'"{name}=={installed.get(name) or f.pins.tensorflow}"'


def check_metal(f: Facts) -> Check:
    """tensorflow-metal present, and its pairing with TensorFlow in both tables."""
    name = "tensorflow-metal"
    metal = f.packages.get("tensorflow-metal")
    tf = tf_version(f)
    if not is_mac(f):
        return Check(name, Status.SKIP, f"macOS only (installed: {metal or 'no'})")
    if not is_arm_mac(f):
        return Check(name, Status.SKIP, "not a native arm64 process: see the architecture check")
    if not tf:
        return Check(name, Status.SKIP, f"no TensorFlow installed (tensorflow-metal: {metal})")
    suggest = metal_to_suggest(f)
    install = metal_install(f)
    no_known = no_metal_fix(f)
    if not metal:
        return Check(
            name,
            Status.WARN,
            "not installed: TensorFlow on this Mac uses the CPU only",
            fix=install or no_known,
            guide=f"{SYMPTOMS}#no-gpu-listed",
        )
    pair = compatibility.pairing(tf, metal)
    if pair.verdict == "fail":
        row = pair.tested_row
        where = f"at {row['failed_at']}" if row.get("failed_at") else ""
        error = f" ({row['error']})" if row.get("error") else ""
        return Check(
            name,
            Status.FAIL,
            f"{metal} with TensorFlow {tf}: failed {where} in a user's test with TensorFlow "
            f"{row['tensorflow']}{error}".replace("  ", " "),
            fix=install if install and suggest != metal else no_known,
            guide=f"{SYMPTOMS}#import-fails",
            source=row["source"],
        )
    if pair.verdict == "ok" and pair.tested_row is not None:
        apple = (
            f"Apple's table pairs them ({pair.official_row['tensorflow']}), and they "
            if pair.official_row
            else ""
        )
        return Check(
            name,
            Status.PASS,
            f"{metal} with TensorFlow {tf}: {apple}worked in a user's test "
            f"(TensorFlow {pair.tested_row['tensorflow']})",
            source=pair.tested_row["source"],
        )
    if pair.verdict == "ok":
        row = pair.official_row
        reading = (
            f", a row that prints {row['metal']}: this guide reads it as {row['metal_read_as']}, "
            f"since it ships only with {row['metal_read_as']} and {row['metal']} fails to load "
            f"with TensorFlow {row['tf_min']}"
            if row.get("metal_read_as")
            else ""
        )
        return Check(
            name,
            Status.PASS,
            f"{metal} with TensorFlow {tf}: the pair in Apple's table ({row['tensorflow']}"
            f"{reading})",
            source=row["source"],
        )
    official = (
        f"Apple's table gives {pair.official_metal}"
        if pair.official_metal
        else (f"Apple's table has no row for TensorFlow {minor_text(tf)}")
    )
    if metal == f.pins.metal and tf == f.pins.tensorflow:
        return Check(
            name,
            Status.WARN,
            f"{metal} with TensorFlow {tf}: in neither table ({official}); this project pins it "
            f"for Python {minor_text(f.python)}",
            fix=f"nothing if the gpu check passes; otherwise see {SETUP} for the pins",
            guide=SETUP,
        )
    return Check(
        name,
        Status.WARN,
        f"{metal} with TensorFlow {tf}: in neither table ({official})",
        fix=install or no_known,
        guide=VERSIONS,
    )


def minor_text(version: str | None) -> str:
    return ".".join(map(str, minor(version)))


def check_gpu(f: Facts) -> Check:
    """Mac: did the Metal plugin give a GPU device? Linux: is a CUDA GPU present and used?"""
    gpus = [d for d in f.tf.devices if d.startswith("GPU")]
    if not f.tf.ok:
        return Check("gpu", Status.SKIP, "TensorFlow did not import")
    if is_arm_mac(f):
        metal = f.packages.get("tensorflow-metal")
        if not metal:
            return Check("gpu", Status.SKIP, "no GPU plugin installed (see tensorflow-metal)")
        if gpus:
            return Check("gpu", Status.PASS, f"{', '.join(gpus)} listed: the Metal plugin loaded")
        log = f": {f.tf.plugin_log[0]}" if f.tf.plugin_log else ""
        suggest = metal_to_suggest(f) or metal
        if not mac_stacks.metal_installs(suggest, f.python):
            suggest = metal  # installed, so its wheel exists for this Python
        return Check(
            "gpu",
            Status.FAIL,
            f"tensorflow-metal {metal} is installed but TensorFlow lists no GPU: the plugin "
            f"did not load{log}",
            fix=f'python -m pip install --force-reinstall "tensorflow-metal=={suggest}"',
            guide=f"{SYMPTOMS}#no-gpu-listed",
        )
    if f.system != "Linux":
        return Check("gpu", Status.SKIP, f"checked on Apple-silicon Macs and Linux ({f.system})")
    if gpus:
        return Check("gpu", Status.PASS, f"{', '.join(gpus)} listed (CUDA)")
    build = "a CUDA build" if f.tf.cuda_build else "a build without CUDA"
    if f.nvidia_gpus:
        return Check(
            "gpu",
            Status.WARN,
            f"{len(f.nvidia_gpus)} NVIDIA GPU(s) present, but TensorFlow ({build}) lists none",
            fix="unset CUDA_VISIBLE_DEVICES"
            if "CUDA_VISIBLE_DEVICES" in f.env
            else f"this guide measures the CPU; for the GPU install a CUDA build: {TF_INSTALL}",
            guide=DEVICES,
        )
    return Check(
        "gpu",
        Status.PASS,
        f"no NVIDIA GPU (nvidia-smi absent or found none); TensorFlow is {build}, "
        "so it runs on the CPU",
    )


def check_devices(f: Facts) -> Check:
    """The devices TensorFlow lists, and GPUs hidden by the environment."""
    if not f.tf.ok:
        return Check("devices", Status.SKIP, "TensorFlow did not import")
    listed = ", ".join(f.tf.devices) or "none"
    note = (
        "the doctor cannot see your code: if a GPU stays idle, look for "
        "tf.config.set_visible_devices(...) or `with tf.device('/CPU:0')`"
    )
    hidden = f.env.get("CUDA_VISIBLE_DEVICES")
    cuda = bool(f.tf.cuda_build or f.nvidia_gpus)
    if hidden is not None and cuda:
        return Check(
            "devices",
            Status.WARN,
            f"{listed}; CUDA_VISIBLE_DEVICES={hidden!r} limits the CUDA GPUs TensorFlow sees",
            fix="unset CUDA_VISIBLE_DEVICES",
            guide=DEVICES,
            note=note,
        )
    if hidden is not None:
        listed += f" (CUDA_VISIBLE_DEVICES={hidden!r} is set, but there is no CUDA GPU to hide)"
    return Check("devices", Status.PASS, listed, note=note)


def check_keras(f: Facts) -> Check:
    """Which Keras tf.keras is: Keras 3, or tf-keras with TF_USE_LEGACY_KERAS."""
    tf = tf_version(f)
    if not tf:
        return Check("keras", Status.SKIP, "no TensorFlow installed")
    keras = f.packages.get("keras")
    tf_keras = f.packages.get("tf-keras")
    if version_tuple(tf) >= (2, 16) and legacy_keras(f):
        flag = f"TF_USE_LEGACY_KERAS={f.env['TF_USE_LEGACY_KERAS']}"
        if not tf_keras:
            return Check(
                "keras",
                Status.FAIL,
                f"{flag}, but tf-keras is not installed: tf.keras cannot be imported",
                fix=f'python -m pip install "tf-keras~={minor_text(tf)}", or unset '
                "TF_USE_LEGACY_KERAS",
                guide=SETUP,
            )
        if minor(tf_keras) != minor(tf):
            return Check(
                "keras",
                Status.WARN,
                f"{flag}: tf-keras {tf_keras} with TensorFlow {tf} (minor versions differ)",
                fix=f'python -m pip install "tf-keras~={minor_text(tf)}.0"',
                guide=SETUP,
            )
        return Check(
            "keras",
            Status.PASS,
            f"Keras 2 through tf-keras {tf_keras} ({flag})",
            note=import_keras_note(f),
            source=LEGACY_KERAS_SOURCE if import_keras_note(f) else None,
        )
    if f.tf.keras_error:
        return Check(
            "keras",
            Status.FAIL,
            f"tf.keras does not import: {f.tf.keras_error}",
            fix=f'python -m pip install "keras=={f.pins.keras}"' if f.pins.keras else None,
            guide=SETUP,
        )
    if version_tuple(tf) >= (2, 16) and (not keras or version_tuple(keras) < (3,)):
        return Check(
            "keras",
            Status.WARN,
            f"keras {keras or 'not installed'}: TensorFlow {tf} uses Keras 3 as tf.keras",
            fix=f'python -m pip install "keras=={f.pins.keras or "3"}"',
            guide=SETUP,
        )
    if version_tuple(tf) < (2, 16) and keras and version_tuple(keras) >= (3,):
        return Check(
            "keras",
            Status.WARN,
            f"Keras {keras} with TensorFlow {tf}: before 2.16, tf.keras is Keras 2",
            fix=install_command(f),
            guide=SETUP,
        )
    backend = f.env.get("KERAS_BACKEND")
    if backend and backend != "tensorflow" and version_tuple(keras) >= (3,):
        return Check(
            "keras",
            Status.WARN,
            f"Keras {keras}, but KERAS_BACKEND={backend}: code that imports keras runs on "
            f"{backend}, not TensorFlow",
            fix="unset KERAS_BACKEND",
            guide=SETUP,
        )
    if version_tuple(tf) >= (2, 16) and tf_keras and is_arm_mac(f):
        return Check(
            "keras",
            Status.WARN,
            f"tf-keras {tf_keras} is installed, but TF_USE_LEGACY_KERAS is not set to 1: tf.keras "
            f"is Keras {keras}, the Keras 3 path reported slow on the Metal GPU",
            fix="export TF_USE_LEGACY_KERAS=1 before Python starts (a notebook or IDE: "
            'os.environ["TF_USE_LEGACY_KERAS"] = "1" before `import tensorflow`)',
            guide=SETUP,
            source=LEGACY_KERAS_SOURCE,
        )
    line = "Keras 3" if version_tuple(keras) >= (3,) else "Keras 2"
    pinned = f.pins.keras and keras != f.pins.keras
    pin = f"; this guide measures with {f.pins.keras}" if pinned else ""
    return Check("keras", Status.PASS, f"{line} ({keras}) is tf.keras{pin}")


def import_keras_note(f: Facts) -> str | None:
    """When tf.keras is tf-keras but the keras package is Keras 3: what `import keras` gives."""
    keras = f.packages.get("keras")
    if not keras or version_tuple(keras) < (3,):
        return None
    return (
        f"`import keras` still loads Keras {keras} (Keras 3): TF_USE_LEGACY_KERAS changes only "
        "what tf.keras means. Write tf.keras (`import tensorflow as tf`, then tf.keras.layers...) "
        "or `import tf_keras as keras`; code written as `import keras`, as in Keras' own "
        "documentation, runs on Keras 3"
    )


def check_retracing(f: Facts) -> Check:
    """Keras 3.3-3.6 with TensorFlow 2.16 retrace train_on_batch on every call (checked here)."""
    name = "keras retracing"
    tf = tf_version(f)
    which, keras = keras_in_use(f)
    if not tf or minor(tf) != (2, 16) or which != "keras" or version_tuple(keras) < (3,):
        return Check(name, Status.SKIP, "applies to TensorFlow 2.16 with Keras 3")
    if (3, 3) <= version_tuple(keras) < (3, 7):
        found = (
            f"Keras {keras} with TensorFlow {tf}: `train_on_batch` traces its step again on "
            "every call (this project saw it with 3.3.3, 3.4.1 and 3.6.0, not with 3.7.0)"
        )
        if is_arm_mac(f) and f.packages.get("tensorflow-metal"):
            return _retracing_on_metal(f, found)
        return Check(
            name,
            Status.WARN,
            found,
            fix='python -m pip install "keras>=3.7"',
            guide=f"{SYMPTOMS}#keras-retracing",
        )
    if version_tuple(keras) >= (3, 7):
        return Check(
            name,
            Status.PASS,
            f"Keras {keras}: 3.7.0 and later did not retrace `train_on_batch` in this project",
        )
    return Check(name, Status.SKIP, f"Keras {keras}: not checked by this project (3.3-3.6 retrace)")


def _retracing_on_metal(f: Facts, found: str) -> Check:
    """On the Metal GPU, Keras 3.7+ is no cure: the fix is the stack for this Python."""
    metal = f.packages.get("tensorflow-metal")
    caveat = (
        "`keras>=3.7` alone keeps Keras 3 on the Metal GPU, the path reported slow "
        "(tensorflow/tensorflow#63854)"
    )
    if same_version(metal, "1.2.0"):
        caveat += (
            "; with tensorflow-metal 1.2.0 it is the pair keras-team/keras#21668 reports "
            "training wrongly (Keras 3.6 behaved, 3.7 and later did not)"
        )
    if on_recommended_python(f):
        fix = mac_stack_fix(f)
    else:
        fix = (
            'python -m pip uninstall -y tensorflow-metal && python -m pip install "keras>=3.7" '
            f"(TensorFlow on the CPU); {gpu_environment_advice()}"
        )
    return Check(
        "keras retracing",
        Status.WARN,
        found,
        fix=fix,
        guide=f"{SYMPTOMS}#keras-retracing",
        note=caveat,
        source=KERAS37_METAL12_ISSUE if same_version(metal, "1.2.0") else None,
    )


def check_optimizer(f: Facts) -> Check:
    """What the Keras in use does with optimizers on Apple silicon (from each version's source).

    Keras 2.11 has no Apple check; 2.12-2.13 swap every optimizer for its legacy version;
    2.14-2.15 and tf-keras swap names ("adam") only; Keras 3 has no legacy optimizers.
    """
    if not is_arm_mac(f):
        return Check("optimizer", Status.SKIP, "applies to Apple-silicon Macs")
    tf = tf_version(f)
    which, version = keras_in_use(f)
    if not tf or not version:
        return Check("optimizer", Status.SKIP, "no Keras installed")
    keras = version_tuple(version)
    label = f"{'tf-keras' if which == 'tf-keras' else 'Keras'} {version}"
    if which == "keras" and keras >= (3,):
        return Check(
            "optimizer",
            Status.PASS,
            f"{label}: Keras 3 has no legacy optimizers and no Apple-silicon fallback",
            note="Keras 3's optimizers update weights with many small operations and never call "
            "the plugin's fused ResourceApplyAdam, the cause Apple's engineer gave for slow "
            "optimizers on Metal; whether Keras 3 is slow for that reason has not been measured. "
            f"Keras 3 is not a cure for slow optimizers (see the stack check and {SETUP})",
            source=OPTIMIZER_ISSUE,
        )
    if which == "keras" and keras[:2] == (2, 11):
        return Check(
            "optimizer",
            Status.WARN,
            f"{label}: its new optimizers compile with XLA when a GPU is listed, which Metal "
            "cannot do (`could not find registered platform with id`); it has no Apple fallback",
            fix="use tf.keras.optimizers.legacy.Adam() (or the legacy version of yours), or "
            f"install {mac_stack_fix(f)}",
            guide=f"{SYMPTOMS}#xla-could-not-find-registered-platform",
            source=KERAS_211_XLA_ISSUE,
        )
    if which == "keras" and (2, 12) <= keras < (2, 14):
        return Check(
            "optimizer",
            Status.PASS,
            f"{label}: swaps every optimizer for its legacy version on Apple silicon, with the "
            "warning 'Falling back to the legacy Keras optimizer'",
            note="AdamW has no legacy version, so it fails under the fallback; saving and "
            "loading optimizer state is also reported to break",
            source=ADAMW_ISSUE,
        )
    if which == "tf-keras" or (2, 14) <= keras < (3,):
        return Check(
            "optimizer",
            Status.PASS,
            f'{label}: optimizer names such as optimizer="adam" get the legacy optimizers on '
            "Apple silicon; instances such as tf.keras.optimizers.Adam() do not",
            note="pass a name or a tf.keras.optimizers.legacy.* instance: Keras warns that the "
            "newer optimizers run slowly on M1/M2; AdamW has no legacy version",
            source=KERAS_2_14_OPTIMIZERS,
        )
    return Check("optimizer", Status.PASS, f"{label}: older than the 2.11 optimizers")


def check_stack(f: Facts) -> Check:
    """Which of the Set up page's Mac stacks this is (data/mac_stacks.json), and its problems."""
    name = "mac stack"
    if not is_arm_mac(f):
        return Check(name, Status.SKIP, "applies to Apple-silicon Macs (native arm64)")
    tf = tf_version(f)
    if not tf:
        return Check(name, Status.SKIP, "no TensorFlow installed")
    which, keras_version = keras_in_use(f)
    if which == "tf-keras":
        family = "keras2"
    elif keras_version:
        family = "keras3" if version_tuple(keras_version) >= (3,) else "keras2"
    else:
        family = "keras3" if version_tuple(tf) >= (2, 16) else "keras2"
    metal = f.packages.get("tensorflow-metal")
    keras_text = f"{which} {keras_version or '?'}"
    found = f"TensorFlow {tf}, {keras_text}, tensorflow-metal {metal or 'not installed'}"
    stack = mac_stacks.identify(tf, metal, family)
    fix = mac_stack_fix(f)
    if stack is None:
        return Check(
            name,
            Status.WARN,
            f"{found}: none of the stacks compared on the Set up page",
            fix=fix,
            guide=SETUP,
        )
    if mac_stacks.is_warned(stack):
        issues = " ".join(issue["text"] for issue in stack["known_issues"])
        first = stack["known_issues"][0]["sources"][0]
        return Check(
            name,
            Status.WARN,
            f"{found} is the stack '{stack['name']}', with reported problems: {issues}",
            fix=fix,
            guide=SETUP,
            source=mac_stacks.load()["sources"][first],
        )
    what = "the recommended stack" if stack["advice"] == "recommended" else "a listed stack"
    notes = []
    if metal:
        notes.append(
            "no stack is known to give the GPU the same results as the CPU: check your model "
            f"with the snippet on {CORRECTNESS}"
        )
    if metal and family == "keras2":
        notes.append(
            "Keras 2's Dense(..., activation='relu') is the MatMul -> BiasAdd -> Relu pattern "
            f"reported wrong in graph mode on Metal: run the check on {FUSED_DENSE_CHECK}"
        )
    if which == "tf-keras" and import_keras_note(f):
        notes.append("write tf.keras or `import tf_keras as keras`: `import keras` is Keras 3")
    return Check(
        name,
        Status.PASS,
        f"{found}: {what}, '{stack['name']}'",
        note="; ".join(notes) or None,
    )


def check_float64(f: Facts) -> Check:
    """Keras' default float type; Metal has no float64."""
    if not f.tf.ok or not f.tf.floatx:
        return Check("float64", Status.SKIP, "Keras' default float type unknown (no tf.keras)")
    metal = is_arm_mac(f) and "GPU:0" in f.tf.devices
    if f.tf.floatx == "float64" and metal:
        return Check(
            "float64",
            Status.WARN,
            "Keras' default float type is float64; Metal has no 64-bit floats, so these "
            "layers cannot run on the GPU",
            fix='keras.config.set_floatx("float32"), or set "floatx": "float32" in '
            "~/.keras/keras.json",
            guide=f"{SYMPTOMS}#float64-not-on-gpu",
            source=FLOAT64_QUOTE,
        )
    note = (
        "look for tf.float64 / dtype='float64' in your code: Metal cannot run them"
        if metal
        else None
    )
    return Check("float64", Status.PASS, f"Keras' default float type is {f.tf.floatx}", note=note)


def check_xla(f: Facts) -> Check:
    """XLA turned on through TF_XLA_FLAGS, which Metal cannot compile."""
    flags = f.env.get("TF_XLA_FLAGS", "")
    shown = f"TF_XLA_FLAGS={flags!r}" if flags else "TF_XLA_FLAGS unset"
    if not is_arm_mac(f) or not f.packages.get("tensorflow-metal"):
        return Check("xla", Status.SKIP, f"{shown}; the Metal limit applies to Apple-silicon GPUs")
    auto_jit = "tf_xla_auto_jit" in flags and not any(
        f"tf_xla_auto_jit={off}" in flags for off in ("0", "-1")
    )
    if auto_jit:
        return Check(
            "xla",
            Status.WARN,
            f"{shown} turns on XLA, which has no compiler for the Metal GPU",
            fix="unset TF_XLA_FLAGS",
            guide=f"{SYMPTOMS}#xla-no-compiler-for-metal",
            source=XLA_METAL_ISSUE,
        )
    return Check(
        "xla",
        Status.PASS,
        shown,
        note="the doctor cannot see jit_compile=True in your code; on Metal it fails with "
        "'Could not find compiler for platform METAL'",
    )


def check_memory(f: Facts) -> Check:
    """Memory pressure, as the system reports it; swap in use alone is not a shortage."""
    if f.ram_bytes is None and f.swap_used_bytes is None and f.memory_pressure is None:
        return Check("memory", Status.SKIP, "RAM, swap and memory pressure unknown")
    ram = f"{size(f.ram_bytes)} RAM"
    if f.swap_used_bytes is None:
        swap = "swap use unknown"
    elif f.swap_used_bytes:
        swap = f"{size(f.swap_used_bytes)} of swap in use"
    else:
        swap = f"no swap in use ({_swap_size(f)})"
    detail = f" ({f.memory_pressure_detail})" if f.memory_pressure_detail else ""
    if f.memory_pressure in ("warning", "critical"):
        return Check(
            "memory",
            Status.WARN,
            f"{ram}; memory pressure {f.memory_pressure}{detail}; {swap}",
            fix="close other programs before training or measuring, or use smaller batches",
            guide=f"{SYMPTOMS}#memory-pressure-and-swapping",
            source=MEMORY_PRESSURE_SOURCE if is_mac(f) else None,
        )
    if f.memory_pressure == "normal":
        return Check("memory", Status.PASS, f"{ram}; memory pressure normal{detail}; {swap}")
    return Check(
        "memory",
        Status.PASS,
        f"{ram}; {swap}; memory pressure unknown",
        note="the doctor judges memory by pressure, not by swap in use: a system can keep "
        "some swap while memory is plentiful",
    )


def _swap_size(f: Facts) -> str:
    return f"swap size {size(f.swap_total_bytes)}" if f.swap_total_bytes else "no swap configured"


def check_disk(f: Facts) -> Check:
    """Free disk space where the doctor runs."""
    if f.disk_free_bytes is None:
        return Check("disk", Status.SKIP, "free disk space unknown")
    found = f"{size(f.disk_free_bytes)} free at {f.disk_path}"
    if f.disk_free_bytes < DISK_WARN_BYTES:
        return Check(
            "disk",
            Status.WARN,
            f"{found} (the doctor warns below {size(DISK_WARN_BYTES)})",
            fix="free space; pip's cache can go: `python -m pip cache purge`",
            guide=SETUP,
        )
    return Check("disk", Status.PASS, found)


def _listed(flags: list[str]) -> str:
    return f"yes ({' '.join(flags)})" if flags else "no"


def _has(features: list[str], prefix: str) -> list[str]:
    return [flag for flag in features if flag.startswith(prefix)]


def check_cpu(f: Facts) -> Check:
    """CPU model and, on x86-64 Linux, the AVX family TensorFlow's builds rely on."""
    model = f.cpu_model or "unknown CPU"
    cores = f", {f.logical_cores} logical cores" if f.logical_cores else ""
    if f.system != "Linux":
        return Check("cpu", Status.PASS, f"{model}{cores}")
    if f.arch not in ("x86_64", "AMD64", "i686"):
        features = " ".join(f.cpu_features) or "none recorded"
        return Check("cpu", Status.PASS, f"{model}{cores}; features: {features}")
    avx512, amx = _has(f.cpu_features, "avx512"), _has(f.cpu_features, "amx")
    found = (
        f"{model}{cores}; AVX2 {'yes' if 'avx2' in f.cpu_features else 'no'}, "
        f"AVX-512 {_listed(avx512)}, AMX {_listed(amx)}"
    )
    if "avx" not in f.cpu_features:
        return Check(
            "cpu",
            Status.FAIL,
            f"{found}; no AVX, which TensorFlow's x86 builds use",
            fix=container_fix(),
            guide=f"{SYMPTOMS}#compiled-to-use-avx",
            source=AVX_IN_CONTAINER_ISSUE,
        )
    return Check("cpu", Status.PASS, found)


def check_onednn(f: Facts) -> Check:
    """Whether TensorFlow's oneDNN custom operations are on (Linux)."""
    setting = f.env.get("TF_ENABLE_ONEDNN_OPTS")
    shown = "TF_ENABLE_ONEDNN_OPTS" + (f"={setting}" if setting is not None else " unset")
    if f.system != "Linux":
        return Check("onednn", Status.SKIP, f"checked on Linux only ({shown})")
    if f.tf.onednn is None:
        return Check("onednn", Status.SKIP, f"{shown}; TensorFlow did not say")
    state = "on" if f.tf.onednn else "off"
    if f.tf.onednn:
        note = (
            "TensorFlow warns that oneDNN may change results slightly (round-off); "
            "set TF_ENABLE_ONEDNN_OPTS=0 to compare"
        )
    elif setting is None:
        note = (
            "TensorFlow turns oneDNN on by itself only on CPUs with AVX-512 VNNI/BF16, "
            "AVX-VNNI or AMX; TF_ENABLE_ONEDNN_OPTS=1 turns it on here (measure both)"
        )
    else:
        note = None
    return Check("onednn", Status.PASS, f"oneDNN custom operations {state} ({shown})", note=note)


RULES: tuple[Callable[[Facts], Check], ...] = (
    check_python,
    check_architecture,
    check_macos,
    check_tensorflow,
    check_import,
    check_metal,
    check_gpu,
    check_devices,
    check_keras,
    check_retracing,
    check_stack,
    check_optimizer,
    check_float64,
    check_xla,
    check_memory,
    check_disk,
    check_cpu,
    check_onednn,
)


def run_all(facts: Facts) -> list[Check]:
    """Every rule's check, in report order; a rule that raises becomes a WARN, not a crash."""
    checks = []
    for rule in RULES:
        try:
            checks.append(rule(facts))
        except Exception as error:
            name = rule.__name__.removeprefix("check_")
            checks.append(
                Check(name, Status.WARN, f"the doctor could not check this: {error!r}",
                      fix="report it with the output of `python -m scripts.doctor --json`")
            )  # fmt: skip
    return checks
