"""Runtime rules: importing TensorFlow, the GPU and devices it lists, XLA, memory, disk, the
CPU and oneDNN's threads of custom operations."""

from __future__ import annotations

import signal

from scripts.doctor.checks import (
    AVX_GUARD,
    AVX_GUARD_ISSUE,
    AVX_IN_CONTAINER_ISSUE,
    DEVICES,
    DISK_WARN_BYTES,
    MEMORY_PRESSURE_SOURCE,
    PLUGIN_WORDS,
    ROSETTA_DOC,
    SETUP,
    SYMPTOMS,
    TF_INSTALL,
    TF_KERAS_NO_XLA,
    XLA_METAL_ISSUE,
    Check,
    Status,
    install_command,
    installable_metal,
    is_arm_mac,
    is_mac,
    metal_fix,
    metal_install,
    metal_to_suggest,
    on_recommended_python,
    tf_distributions,
)
from scripts.doctor.facts import Facts
from scripts.doctor.rules_install import check_architecture


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
        fix, note, source = metal_fix(f, install) if install else (None, None, None)
        fix = fix or (
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
            note=note,
            source=source,
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
        suggest = installable_metal(f) or metal  # installed, so its wheel fits this Python
        reinstall = f'python -m pip install --force-reinstall "tensorflow-metal=={suggest}"'
        fix, note, source = metal_fix(f, reinstall)
        return Check(
            "gpu",
            Status.FAIL,
            f"tensorflow-metal {metal} is installed but TensorFlow lists no GPU: the plugin "
            f"did not load{log}",
            fix=fix,
            guide=f"{SYMPTOMS}#no-gpu-listed",
            note=note,
            source=source,
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
        note="the doctor cannot see jit_compile in your code: Keras's compile(jit_compile=True) "
        "is switched off with a warning here (tf-keras on any Apple-silicon Mac, Keras 3 where "
        "TensorFlow lists the GPU); tf.function(jit_compile=True) on the Metal GPU fails with "
        "'Could not find compiler for platform METAL'",
        source=TF_KERAS_NO_XLA,
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


def size(n: int | None) -> str:
    if n is None:
        return "unknown"
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"
