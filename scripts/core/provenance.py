"""Facts about the machine and software a measurement ran on, recorded beside every result.

Every probe goes through a `Probe` object so that tests can replace the operating system
(for example a Mac's `sysctl` answers) with fakes, and every probe has a time limit.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

PROBE_TIMEOUT_S = 5.0
# system_profiler starts a helper per data type; a slow Mac can take several seconds.
SYSTEM_PROFILER_TIMEOUT_S = 20.0
# Set by a CI workflow (e.g. HOSTED_RUNNER=github on GitHub's hosted Macs) so results say
# that they come from a shared virtual machine, not from someone's own Mac.
HOSTED_RUNNER_ENV = "HOSTED_RUNNER"

# Distributions whose versions each results entry records (None when not installed).
SOFTWARE_PACKAGES = {
    "tensorflow": ("tensorflow", "tensorflow-macos", "tensorflow-cpu", "tf-nightly"),
    "keras": ("keras",),
    "numpy": ("numpy",),
    "tensorflow_metal": ("tensorflow-metal",),
}


class Probe:
    """The real operating system; tests substitute a subclass with canned answers."""

    def system(self) -> str:
        return platform.system()

    def machine(self) -> str:
        return platform.machine()

    def run(self, args: list[str], timeout: float = PROBE_TIMEOUT_S) -> str | None:
        """Stdout of a command, or None if it is missing, fails or times out."""
        try:
            done = subprocess.run(
                args, capture_output=True, text=True, timeout=timeout, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None

    def read(self, path: str) -> str | None:
        try:
            return Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None

    def cpu_count(self) -> int | None:
        return os.cpu_count()

    def python_version(self) -> str:
        return platform.python_version()

    def package_version(self, name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    def getenv(self, name: str) -> str | None:
        return os.environ.get(name)


def sysctl(probe: Probe, name: str) -> str | None:
    """One macOS `sysctl -n` value as text, or None where it does not exist."""
    out = probe.run(["sysctl", "-n", name])
    return out.strip() if out and out.strip() else None


def sysctl_int(probe: Probe, name: str) -> int | None:
    value = sysctl(probe, name)
    return int(value) if value is not None and value.isdigit() else None


def rosetta_translated(probe: Probe) -> bool | None:
    """True when this process runs under Rosetta 2; None when the question does not apply."""
    if probe.system() != "Darwin":
        return None
    value = sysctl(probe, "sysctl.proc_translated")
    # The key is absent on Intel Macs, where nothing is translated.
    return value == "1" if value is not None else False


def apple_gpu_cores(probe: Probe) -> int | None:
    """The Apple GPU's core count: the IORegistry first (fast), else system_profiler."""
    out = probe.run(["ioreg", "-r", "-d", "1", "-c", "AGXAccelerator"])
    match = re.search(r'"gpu-core-count"\s*=\s*(\d+)', out or "")
    return int(match.group(1)) if match else system_profiler_gpu_cores(probe)


def system_profiler_gpu_cores(probe: Probe) -> int | None:
    """`sppci_cores` of the first display adapter that has it in
    `system_profiler SPDisplaysDataType -json` (None: no such key, no output, or no tool)."""
    out = probe.run(
        ["system_profiler", "SPDisplaysDataType", "-json"], timeout=SYSTEM_PROFILER_TIMEOUT_S
    )
    try:
        adapters = json.loads(out or "{}").get("SPDisplaysDataType") or []
    except (ValueError, AttributeError):
        return None
    for adapter in adapters if isinstance(adapters, list) else []:
        cores = adapter.get("sppci_cores") if isinstance(adapter, dict) else None
        if isinstance(cores, str) and cores.strip().isdigit():
            return int(cores)
    return None


def power_source(probe: Probe) -> str | None:
    """What the Mac draws from now, as `pmset -g batt` names it ('AC Power', 'Battery Power')."""
    out = probe.run(["pmset", "-g", "batt"])
    match = re.search(r"Now drawing from '([A-Za-z ]{1,40})'", out or "")
    return match.group(1) if match else None


def low_power_mode(probe: Probe) -> bool | None:
    """Whether Low Power Mode is on, from `pmset -g` (None where pmset does not say).

    Older macOS lists `lowpowermode 0|1`; newer Macs list `powermode 0|1|2` instead
    (automatic, low power, high power), and setting either key sets the same mode.
    """
    out = probe.run(["pmset", "-g"])
    match = re.search(r"^\s*(?:lowpowermode|powermode)\s+(\d)\b", out or "", re.MULTILINE)
    return match.group(1) == "1" if match else None


def hosted_runner(probe: Probe) -> str | None:
    """The CI service named in $HOSTED_RUNNER (lower-case letters, digits, '-'), or None."""
    value = (probe.getenv(HOSTED_RUNNER_ENV) or "").strip().lower()
    return value[:40] if re.fullmatch(r"[a-z0-9][a-z0-9-]*", value) else None


def _linux_cpu(probe: Probe) -> dict:
    cpuinfo = probe.read("/proc/cpuinfo") or ""
    model = None
    cores: set[tuple[str, str]] = set()
    physical = core = None
    flags: set[str] = set()
    for line in cpuinfo.splitlines() + [""]:
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name" and model is None:
            model = value
        elif key == "physical id":
            physical = value
        elif key == "core id":
            core = value
        elif key == "flags" and not flags:
            flags = set(value.split())
        elif not key and physical is not None and core is not None:
            cores.add((physical, core))
            physical = core = None
    meminfo = probe.read("/proc/meminfo") or ""
    match = re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.MULTILINE)
    return {
        "cpu_model": model or probe.machine() or "unknown CPU",
        "physical_cores": len(cores) or None,
        "ram_bytes": int(match.group(1)) * 1024 if match else None,
        "cpu_features": sorted(flags & VECTOR_FEATURES),
    }


# The vector and matrix instruction sets that decide TensorFlow's CPU kernels.
VECTOR_FEATURES = {
    "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni", "avx512_bf16",
    "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", "asimd", "sve",
}  # fmt: skip


def _mac_cpu(probe: Probe) -> dict:
    performance = sysctl_int(probe, "hw.perflevel0.physicalcpu")
    efficiency = sysctl_int(probe, "hw.perflevel1.physicalcpu")
    if performance is None or efficiency is None:
        performance = efficiency = None  # one core type (a virtual machine): no P/E split
    return {
        "cpu_model": sysctl(probe, "machdep.cpu.brand_string") or "unknown Mac CPU",
        "physical_cores": sysctl_int(probe, "hw.physicalcpu"),
        "performance_cores": performance,
        "efficiency_cores": efficiency,
        "gpu_cores": apple_gpu_cores(probe),
        "ram_bytes": sysctl_int(probe, "hw.memsize"),
        # The conditions of this run, not the machine's identity: they slow a Mac down.
        "power_source": power_source(probe),
        "low_power_mode": low_power_mode(probe),
        "tensorflow_metal": probe.package_version("tensorflow-metal"),
    }


def os_version(probe: Probe) -> str:
    if probe.system() == "Darwin":
        out = probe.run(["sw_vers", "-productVersion"])
        return f"macOS {out.strip()}" if out else "macOS"
    release = probe.read("/etc/os-release") or ""
    match = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', release, re.MULTILINE)
    return match.group(1) if match else f"{probe.system()} {platform.release()}"


def slug(text: str) -> str:
    text = re.sub(r"\((R|TM|C)\)", "", text, flags=re.IGNORECASE)
    text = re.sub(r"@.*$", "", text)
    text = re.sub(r"\b(CPU|Processor|with Radeon Graphics)\b", "", text, flags=re.IGNORECASE)
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def machine_id(machine: dict) -> str:
    """A stable, readable id: chip, GPU or CPU core count, OS (e.g. apple-m1-max-32gpu-macos);
    a hosted runner adds the OS's major version and the service (...-macos-14-github)."""
    parts = [slug(machine["cpu_model"]) or "unknown-cpu"]
    if machine.get("gpu_cores"):
        parts.append(f"{machine['gpu_cores']}gpu")
    elif machine.get("logical_cores"):
        parts.append(f"{machine['logical_cores']}cpu")
    parts.append("macos" if machine["os"] == "Darwin" else slug(machine["os"]))
    if machine.get("hosted_runner"):
        # Hosted images of one chip (macos-14, macos-15...) run side by side: a file each.
        major = re.search(r"\d+", machine.get("os_version") or "")
        parts += ([major.group()] if major else []) + [machine["hosted_runner"]]
    if machine.get("rosetta"):
        parts.append("rosetta")
    return "-".join(parts)


# What changes the numbers: two machines that differ in any of these never share a file.
IDENTITY_FIELDS = ("cpu_model", "arch", "os", "logical_cores", "physical_cores",
                   "performance_cores", "efficiency_cores", "gpu_cores")  # fmt: skip


def fingerprint(machine: dict) -> str:
    """Six hex digits from the hardware that changes results: CPU model, vector and matrix
    features (AVX-512 and its parts, AMX...), core counts, GPU cores and RAM (whole GiB)."""
    ram_gib = round((machine.get("ram_bytes") or 0) / 2**30)
    facts = [machine.get(field) for field in IDENTITY_FIELDS]
    facts += [ram_gib, " ".join(sorted(machine.get("cpu_features") or []))]
    return hashlib.sha256("|".join(map(str, facts)).encode()).hexdigest()[:6]


def distinct_id(machine: dict, results_dir: Path) -> str:
    """The machine's id, with a short suffix only if another machine already owns that file."""
    path = results_dir / f"{machine['id']}.json"
    if not path.exists():
        return machine["id"]
    try:
        other = json.loads(path.read_text(encoding="utf-8"))["machine"]
        if fingerprint(other) == fingerprint(machine):
            return machine["id"]
    except (OSError, ValueError, KeyError, TypeError):
        return machine["id"]  # unreadable: the caller reports it and measures nothing
    return f"{machine['id']}-{fingerprint(machine)}"


HOSTED_NAMES = {"github": "GitHub-hosted runner"}


def sees_metal_gpu(machine: dict) -> bool | None:
    """Whether TensorFlow listed a GPU on this Mac (None: not a Mac, or devices not known yet)."""
    devices = machine.get("tf_devices") or []
    if machine.get("os") != "Darwin" or not devices:
        return None
    return any(device.startswith("GPU:") for device in devices)


def set_devices(machine: dict, devices: list[str]) -> None:
    """Record the devices TensorFlow listed, and name the machine again with them."""
    machine["tf_devices"] = list(devices)
    if machine.get("os") == "Darwin":
        machine["metal_gpu"] = sees_metal_gpu(machine)
    machine["description"] = describe(machine)


def _compute_words(machine: dict) -> str:
    """What TensorFlow computed on: 'tensorflow-metal 1.1.0' or 'CPU only (...)'."""
    metal, version = sees_metal_gpu(machine), machine.get("tensorflow_metal")
    notes = []
    if metal:
        words = f"tensorflow-metal {version}" if version else "Metal GPU"
    elif metal is False:
        words = "CPU only"
        if version:
            notes.append(f"tensorflow-metal {version} installed, no GPU seen")
    else:
        words = ""  # devices not known yet
    hosted = machine.get("hosted_runner")
    if hosted:
        notes.append(HOSTED_NAMES.get(hosted, f"{hosted} hosted runner"))
    if notes:
        words = f"{words} ({'; '.join(notes)})" if words else "; ".join(notes)
    return words


def _describe_apple_silicon(machine: dict) -> str:
    """'Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB, tensorflow-metal 1.1.0'."""
    words = [machine["cpu_model"].strip()]
    perf, eff = machine.get("performance_cores"), machine.get("efficiency_cores")
    cores = machine.get("physical_cores") or machine.get("logical_cores")
    if perf and eff:
        words.append(f"{perf + eff}-core CPU ({perf}P+{eff}E)")
    elif cores:
        words.append(f"{cores}-core CPU")
    if machine.get("gpu_cores"):
        words.append(f"{machine['gpu_cores']}-core GPU")
    if machine.get("ram_bytes"):
        words.append(f"{round(machine['ram_bytes'] / 2**30)} GB")
    compute = _compute_words(machine)
    if compute:
        words.append(compute)
    if machine.get("rosetta"):
        words.append("under Rosetta 2")
    return ", ".join(words)


def vector_isa_words(machine: dict) -> str:
    """The widest x86 vector unit recorded, with the parts that change TensorFlow's kernels:
    'AVX-512 (BF16, VNNI)', 'AVX2', '..., AMX'; '' when none are recorded (a Mac, an old
    file). Two CPUs of one model name can differ here, so the description says it."""
    features = set(machine.get("cpu_features") or [])
    named = (("avx512_bf16", "BF16"), ("avx512_fp16", "FP16"), ("avx512_vnni", "VNNI"))
    if "avx512f" in features:
        parts = [name for feature, name in named if feature in features]
        words = "AVX-512" + (f" ({', '.join(parts)})" if parts else "")
    else:
        words = "AVX2" if "avx2" in features else ("AVX" if "avx" in features else "")
    if "amx_tile" in features:
        words += ", AMX" if words else "AMX"
    return words


def describe(machine: dict) -> str:
    """The machine in words, as tables name it: 'Linux x86-64, 2 cores, Intel Xeon'; an Apple
    silicon Mac by chip, cores, memory and what TensorFlow ran on (_describe_apple_silicon)."""
    if machine["os"] == "Darwin" and machine["cpu_model"].startswith("Apple"):
        return _describe_apple_silicon(machine)
    os_name = "macOS" if machine["os"] == "Darwin" else machine["os"]
    arch = machine["arch"].replace("_", "-")
    cpu = re.sub(r"\((R|TM)\)", "", machine["cpu_model"]).replace("  ", " ").strip()
    cores = f"{machine['logical_cores']} cores"
    if machine.get("performance_cores") and machine.get("efficiency_cores"):
        cores = f"{machine['performance_cores']}P+{machine['efficiency_cores']}E cores"
    words = f"{os_name} {arch}, {cores}, {cpu}"
    if vector_isa_words(machine):
        words += f", {vector_isa_words(machine)}"
    if machine.get("gpu_cores"):
        words += f" ({machine['gpu_cores']}-core GPU)"
    if machine.get("rosetta"):
        words += ", under Rosetta 2"
    return words


def collect_machine(probe: Probe | None = None) -> dict:
    """Hardware and OS facts (no TensorFlow import: the devices are added by the caller)."""
    probe = probe or Probe()
    system = probe.system()
    facts = _mac_cpu(probe) if system == "Darwin" else _linux_cpu(probe)
    machine = {
        "os": system,
        "os_version": os_version(probe),
        "arch": probe.machine(),
        "logical_cores": probe.cpu_count(),
        "performance_cores": None,
        "efficiency_cores": None,
        "gpu_cores": None,
        "cpu_features": [],
        "rosetta": rosetta_translated(probe),
    }
    machine.update(facts)
    if system == "Darwin":
        machine["metal_gpu"] = None  # known once a snippet has listed TensorFlow's devices
    if hosted_runner(probe):
        machine["hosted_runner"] = hosted_runner(probe)
    machine["id"] = machine_id(machine)
    machine["description"] = describe(machine)
    return machine


def collect_software(probe: Probe | None = None) -> dict:
    probe = probe or Probe()
    versions: dict[str, str | None] = {"python": probe.python_version()}
    for key, names in SOFTWARE_PACKAGES.items():
        versions[key] = next((v for v in map(probe.package_version, names) if v is not None), None)
    return versions


# The files whose changes can change a measurement (results and docs cannot).
MEASURED_CODE = ("snippets", "scripts", "pyproject.toml")


def git_state(root: Path, probe: Probe | None = None) -> dict:
    """The project commit, and whether the measured code had uncommitted or untracked changes."""
    probe = probe or Probe()
    commit = probe.run(["git", "-C", str(root), "rev-parse", "HEAD"])
    status = probe.run(["git", "-C", str(root), "status", "--porcelain", "--", *MEASURED_CODE])
    return {
        "commit": commit.strip() if commit else None,
        "dirty": bool(status.strip()) if status is not None else None,
    }


def peak_rss_bytes() -> int:
    """This process's peak resident memory so far (the kernel's own high-water mark)."""
    import resource  # Unix only; the callers run on macOS and Linux

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024  # Linux reports KiB


def tf_device_names(tf) -> list[str]:
    """The physical devices this TensorFlow sees, as 'CPU:0', 'GPU:0'."""
    return [
        f"{d.device_type}:{d.name.rsplit(':', 1)[-1]}" for d in tf.config.list_physical_devices()
    ]


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def boot_tag(probe: Probe | None = None) -> str:
    """Eight hex digits standing for this boot of this host (Linux's boot id, or the kernel's
    boot time on macOS), so sessions from different hosts can be told apart without naming
    any host; 'unknown' hashed when neither can be read."""
    probe = probe or Probe()
    text = probe.read("/proc/sys/kernel/random/boot_id") or sysctl(probe, "kern.boottime")
    return hashlib.sha256((text or "unknown").strip().encode()).hexdigest()[:8]


def utc_now(precise: bool = False) -> str:
    """The time now in UTC, ISO 8601 with Z; precise: to the microsecond (session ids)."""
    now = datetime.now(timezone.utc)
    if precise:
        return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return now.replace(microsecond=0).isoformat().replace("+00:00", "Z")
