"""Installation and platform rules: Python, architecture (Rosetta 2), macOS, the TensorFlow
distributions and the tensorflow-metal plugin's pairing with them."""

from __future__ import annotations

from scripts.core import compatibility, mac_recipes
from scripts.core.compatibility import version_tuple
from scripts.doctor.checks import (
    APPLE_PLUGIN_PAGE,
    MACOS_FLOOR,
    ROSETTA_DOC,
    SETUP,
    SYMPTOMS,
    VERSIONS,
    Check,
    Status,
    gpu_environment_advice,
    install_command,
    is_arm_mac,
    is_mac,
    is_translated,
    metal_fix,
    metal_install,
    metal_to_suggest,
    minor_text,
    no_metal_fix,
    on_recommended_python,
    tf_distributions,
    tf_version,
)
from scripts.doctor.facts import TENSORFLOW_DISTRIBUTIONS, Facts


def _python_range(f: Facts) -> str | None:
    low, below = f.pins.python_min, f.pins.python_below
    if not low or not below:
        return None
    major, last = version_tuple(below)[0], version_tuple(below)[1] - 1
    return f"{low} to {major}.{last}"


# --- the rules -----------------------------------------------------------------------------


def check_python(f: Facts) -> Check:
    """On an Apple-silicon Mac, Python against the recipes' wheels; elsewhere, requires-python."""
    if is_arm_mac(f) and f.python:
        return _check_mac_python(f)
    supported = _python_range(f)
    if not supported:
        return Check("python", Status.SKIP, f"Python {f.python}; no pins found in pyproject.toml")
    ours = version_tuple(f.python)[:2]
    low, below = version_tuple(f.pins.python_min)[:2], version_tuple(f.pins.python_below)[:2]
    # requires-python is this project's own range (its docs toolchain sets the lower end), not
    # TensorFlow's: outside it the project's environment does not install, TensorFlow may.
    project = f"this project's environment (pyproject.toml's requires-python) needs {supported}"
    if low <= ours < below:
        return Check("python", Status.PASS, f"Python {f.python}; {project}")
    return Check(
        "python",
        Status.WARN,
        f"Python {f.python}; {project}, so `make` and `pip install .` refuse this Python "
        "(a TensorFlow of your own may still install)",
        fix=f"for this project's environment, use Python {supported}, e.g. "
        "`python3.11 -m venv ~/venv-tf`",
        guide=f"{SYMPTOMS}#no-matching-distribution-tensorflow",
    )


def _check_mac_python(f: Facts) -> Check:
    """On an Apple-silicon Mac: Python against the wheels the Set up page's recipes record."""
    best = mac_recipes.recommended()
    low, high = best["python"]
    wheels = f"the recommended Mac recipe has wheels for Python {low} to {high}"
    if on_recommended_python(f):
        return Check("python", Status.PASS, f"Python {f.python}; {wheels}")
    route = mac_recipes.for_python(f.python)
    if route is None:
        return Check(
            "python",
            Status.FAIL,
            f"Python {f.python}: no recipe on the Set up page has wheels for it",
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
    always = (
        "tensorflow-metal 1.0.1, 1.1.0 and 1.2.0 have no x86_64 wheel (0.1.0 to 1.0.0 did), so "
        "a translated Python cannot install the plugin any Set up recipe uses"
    )
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
        needed = MACOS_FLOOR
        why = f"tensorflow-metal needs {MACOS_FLOOR} or later (Apple's plugin page)"
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
            f"{listed}; the mac recipe check below compares it with the Set up page's recipes "
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
    fix, note, source = metal_fix(f, install) if install else (no_known, None, None)
    if not metal:
        return Check(
            name,
            Status.WARN,
            "not installed: TensorFlow on this Mac uses the CPU only",
            fix=fix,
            guide=f"{SYMPTOMS}#no-gpu-listed",
            note=note,
            source=source,
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
            fix=fix if install and suggest != metal else no_known,
            guide=f"{SYMPTOMS}#import-fails",
            note=note if install and suggest != metal else None,
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
        fix=fix,
        guide=VERSIONS,
        note=note,
        source=source,
    )
