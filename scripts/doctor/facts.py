"""Collect what the doctor's rules judge: machine probes, package versions, a few environment
variables, and one child process that imports TensorFlow.

Every probe goes through `DoctorProbe` (a `provenance.Probe`), has a time limit, and turns a
failure into a missing fact (None), so an odd machine gives an answer, not a traceback.
"""

from __future__ import annotations

import json
import operator
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from scripts.core import project_files, provenance
from scripts.core.compatibility import version_tuple
from scripts.doctor import tf_child

ROOT = project_files.ROOT
CHILD_TIMEOUT_S = 60.0
DISK_TIMEOUT_S = 5.0

TENSORFLOW_DISTRIBUTIONS = provenance.SOFTWARE_PACKAGES["tensorflow"]
PACKAGES = (*TENSORFLOW_DISTRIBUTIONS, "tensorflow-metal", "keras", "tf-keras")
# The environment variables a rule looks at; only these are recorded.
ENV_VARS = (
    "TF_USE_LEGACY_KERAS",
    "KERAS_BACKEND",
    "CUDA_VISIBLE_DEVICES",
    "TF_ENABLE_ONEDNN_OPTS",
    "TF_XLA_FLAGS",
)
# Plugin trouble shows in these stderr lines; the NUMA line is harmless (see docs/setup.md).
PLUGIN_LINE = re.compile(
    r"metal|tensorflow-plugins|pluggable|symbol not found|library not loaded|dlopen", re.I
)

T = TypeVar("T")


@dataclass
class ChildRun:
    """How a child process ended."""

    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    seconds: float = 0.0


class DoctorProbe(provenance.Probe):
    """`provenance.Probe` plus what only the doctor asks: environment, disk, a Python child."""

    def environ(self) -> dict[str, str]:
        return dict(os.environ)

    def cwd(self) -> str | None:
        try:
            return os.getcwd()
        except OSError:
            return None

    def disk_free(self, path: str, timeout: float = DISK_TIMEOUT_S) -> int | None:
        """Free bytes on the file system holding path (None on error or after the time limit)."""
        found: list[int] = []

        def measure() -> None:
            try:
                found.append(shutil.disk_usage(path).free)
            except OSError:
                pass

        worker = threading.Thread(target=measure, daemon=True)  # a hung mount stays behind
        worker.start()
        worker.join(timeout)
        return found[0] if found else None

    def run_python(self, code: str, env: dict[str, str], timeout: float) -> ChildRun:
        """Run code in a new interpreter (this one's executable), keeping its exit status."""
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True, text=True, errors="replace",
                env=env, timeout=timeout, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired as expired:
            return ChildRun(None, _text(expired.stdout), _text(expired.stderr), True, timeout)
        except OSError as error:
            return ChildRun(None, "", str(error), False, time.perf_counter() - start)
        seconds = time.perf_counter() - start
        return ChildRun(done.returncode, done.stdout, done.stderr, False, seconds)


def _text(output: bytes | str | None) -> str:
    if isinstance(output, bytes):
        return output.decode("utf-8", errors="replace")
    return output or ""


@dataclass
class TensorFlowImport:
    """What the child process saw when it imported TensorFlow."""

    attempted: bool = False  # False when no TensorFlow distribution is installed
    ok: bool = False
    seconds: float | None = None
    returncode: int | None = None
    timed_out: bool = False
    timeout_s: float | None = None
    error: str | None = None
    version: str | None = None
    location: str | None = None
    devices: list[str] = field(default_factory=list)
    cuda_build: bool | None = None
    onednn: bool | None = None
    keras_module: str | None = None
    keras_version: str | None = None
    keras_error: str | None = None
    floatx: str | None = None
    plugin_log: list[str] = field(default_factory=list)


@dataclass
class Pins:
    """The versions this project pins in pyproject.toml for the machine the facts describe
    (its Python, system and architecture, as pip evaluates the pins' markers)."""

    python_min: str | None = None  # e.g. "3.10" (inclusive)
    python_below: str | None = None  # e.g. "3.13" (exclusive)
    tensorflow: str | None = None
    keras: str | None = None
    metal: str | None = None


@dataclass
class Facts:
    """Everything the rules look at; tests build these by hand."""

    system: str = "Linux"
    arch: str = "x86_64"
    os_version: str | None = None
    macos: str | None = None  # the product version, e.g. "14.5"
    rosetta: bool | None = None  # None off macOS
    apple_silicon: bool | None = None  # hw.optional.arm64 (true under Rosetta too)
    python: str = ""
    packages: dict[str, str | None] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    cpu_model: str | None = None
    cpu_features: list[str] = field(default_factory=list)
    logical_cores: int | None = None
    ram_bytes: int | None = None
    swap_total_bytes: int | None = None
    swap_used_bytes: int | None = None
    memory_pressure: str | None = None  # "normal", "warning", "critical"; None when unknown
    memory_pressure_detail: str | None = None  # what the system reported, for the report
    disk_path: str | None = None
    disk_free_bytes: int | None = None
    nvidia_gpus: list[str] | None = None  # None when nvidia-smi is missing (Linux only)
    tf: TensorFlowImport = field(default_factory=TensorFlowImport)
    pins: Pins = field(default_factory=Pins)


def _safely(probe_fn: Callable[[], T], default: T) -> T:
    """A probe's answer, or the default if the probe raised anything."""
    try:
        return probe_fn()
    except Exception:
        return default


COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}  # fmt: skip
# A dependency marker's clause in the forms pyproject.toml uses: `variable op 'value'`.
MARKER_CLAUSE = re.compile(r"""(?P<name>\w+)\s*(?P<op>[=!<>]=?)\s*(['"])(?P<value>[^'"]*)\3""")
# sys.platform for platform.system(): the markers compare with 'darwin' and 'linux'.
SYS_PLATFORMS = {"Darwin": "darwin", "Linux": "linux", "Windows": "win32"}
# The distributions whose == pins the rules read, and the Pins field each fills.
PIN_FIELDS = {
    "tensorflow": "tensorflow", "tensorflow-macos": "tensorflow", "tensorflow-cpu": "tensorflow",
    "tensorflow-metal": "metal", "keras": "keras",
}  # fmt: skip
MARKER_FORMS = (
    "clauses `variable op 'value'` joined by `and` / `or` (no parentheses): python_version "
    "with <, <=, >, >=, ==, != and a release number; sys_platform and platform_machine with "
    "== and !="
)


def _padded(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[tuple, tuple]:
    """Both release tuples zero-padded to one length ('3.12' equals '3.12.0', as in PEP 440)."""
    size = max(len(first), len(second))
    return first + (0,) * (size - len(first)), second + (0,) * (size - len(second))


def _clause(text: str, requirement: str) -> tuple[str, str, str]:
    """(variable, operator, value) of one marker clause; ValueError for a form not read here."""
    found = MARKER_CLAUSE.fullmatch(text.strip())
    name, op, value = (found["name"], found["op"], found["value"]) if found else ("", "", "")
    known = op in COMPARE and (
        (name == "python_version" and re.fullmatch(r"\d+(\.\d+)*", value))
        or (name in ("sys_platform", "platform_machine") and op in ("==", "!="))
    )
    if not known:
        raise ValueError(
            f'pyproject.toml: the doctor cannot evaluate "{text.strip()}" in the marker of '
            f'"{requirement}"; it reads {MARKER_FORMS}'
        )
    return name, op, value


def marker_holds(marker: str, requirement: str, python: str, system: str, machine: str) -> bool:
    """Whether a dependency marker holds on this Python (e.g. '3.11.9'), system (platform.system())
    and machine (platform.machine()): the machine the facts describe, which need not be this one.

    Every clause is read before any is evaluated, so a form not read here is refused (ValueError
    naming the requirement and the clause) wherever it stands; `and` binds first, as in PEP 508.
    """
    alternatives = [
        [_clause(part, requirement) for part in re.split(r"\s+and\s+", either)]
        for either in re.split(r"\s+or\s+", marker.strip())
    ]
    ours = version_tuple(python)[:2]
    sys_platform = SYS_PLATFORMS.get(system, system.lower())
    values = {"sys_platform": sys_platform, "platform_machine": machine}

    def holds(name: str, op: str, value: str) -> bool:
        if name != "python_version":
            return COMPARE[op](values[name], value)
        if not ours:
            raise ValueError(f'no Python version known to evaluate the marker of "{requirement}"')
        return COMPARE[op](*_padded(ours, version_tuple(value)))

    return any(all(holds(*clause) for clause in clauses) for clauses in alternatives)


def project_pins(pyproject: str, python: str, system: str, machine: str) -> Pins:
    """requires-python, and the == pins of pyproject.toml's text that hold on this Python, system
    and machine (each marker evaluated by marker_holds; two different pins for one field raise)."""
    pins = Pins()
    requires = re.search(r'^requires-python\s*=\s*"([^"]*)"', pyproject, re.MULTILINE)
    if requires:
        low = re.search(r">=\s*([\d.]+)", requires.group(1))
        high = re.search(r"<\s*([\d.]+)", requires.group(1))
        pins.python_min = low.group(1) if low else None
        pins.python_below = high.group(1) if high else None
    taken: dict[str, str] = {}
    for requirement, name, version, marker in re.findall(
        r'"(([A-Za-z0-9_.-]+)==([\w.]+)\s*(?:;([^"]*))?)"', pyproject
    ):
        key = PIN_FIELDS.get(re.sub(r"[-_.]+", "-", name).lower())
        if key is None:
            continue
        if marker and not marker_holds(marker, requirement, python, system, machine):
            continue
        if getattr(pins, key) not in (None, version):
            raise ValueError(
                f"pyproject.toml pins two versions of {key} on Python {python}, {system} "
                f'{machine}: "{taken[key]}" and "{requirement}"'
            )
        setattr(pins, key, version)
        taken[key] = requirement
    return pins


def linux_swap(meminfo: str) -> tuple[int | None, int | None]:
    """(total, used) swap bytes from /proc/meminfo."""
    values = {
        key: int(kb) * 1024
        for key, kb in re.findall(r"^(SwapTotal|SwapFree):\s+(\d+) kB", meminfo, re.MULTILINE)
    }
    if "SwapTotal" not in values or "SwapFree" not in values:
        return None, None
    return values["SwapTotal"], values["SwapTotal"] - values["SwapFree"]


UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def mac_swap(swapusage: str) -> tuple[int | None, int | None]:
    """(total, used) swap bytes from `sysctl vm.swapusage`: 'total = 2048.00M  used = 1.50M ...'."""
    found = {
        key: float(number) * UNITS[unit]
        for key, number, unit in re.findall(r"(total|used)\s*=\s*([\d.]+)([KMGT])", swapusage)
    }
    if "total" not in found or "used" not in found:
        return None, None
    return int(found["total"]), int(found["used"])


# macOS kern.memorystatus_vm_pressure_level: 1, 2 or 4, the NOTE_MEMORYSTATUS_PRESSURE_*
# values its handler in xnu's bsd/kern/kern_memorystatus_notify.c returns (checks.py cites it).
MAC_PRESSURE_LEVELS = {1: "normal", 2: "warning", 4: "critical"}
# Linux PSI: share of the last 60 s in which some task waited for memory. The doctor's own
# thresholds, not measured limits.
PSI_WARN_PERCENT, PSI_CRITICAL_PERCENT = 10.0, 40.0


def mac_pressure(level: int | None) -> tuple[str | None, str | None]:
    """(level name, detail) from the sysctl's number."""
    if level not in MAC_PRESSURE_LEVELS:
        return None, None
    return MAC_PRESSURE_LEVELS[level], f"kern.memorystatus_vm_pressure_level = {level}"


def linux_pressure(psi: str) -> tuple[str | None, str | None]:
    """(level name, detail) from /proc/pressure/memory's 'some avg60' (kernel PSI)."""
    found = re.search(r"^some\b.*?\bavg60=([\d.]+)", psi, re.MULTILINE)
    if not found:
        return None, None
    share = float(found.group(1))
    level = (
        "critical"
        if share >= PSI_CRITICAL_PERCENT
        else "warning"
        if share >= PSI_WARN_PERCENT
        else "normal"
    )
    return level, f"tasks waited for memory {share:g}% of the last minute, /proc/pressure/memory"


# What tf_child reports, copied as they are (devices and seconds get their own handling).
CHILD_KEYS = ("version", "location", "cuda_build", "onednn", "error",
              "keras_module", "keras_version", "keras_error", "floatx")  # fmt: skip


def read_child(run: ChildRun, timeout: float) -> TensorFlowImport:
    """Turn the child's exit status and output into facts."""
    result = TensorFlowImport(
        attempted=True,
        returncode=run.returncode,
        timed_out=run.timed_out,
        timeout_s=timeout,
        seconds=round(run.seconds, 1),
    )
    report = _child_report(run.stdout)
    for key in CHILD_KEYS:
        setattr(result, key, report.get(key))
    result.devices = list(report.get("devices") or [])
    if report.get("seconds") is not None:
        result.seconds = report["seconds"]
    stderr_lines = _read_stderr(result, run.stderr)
    result.ok = run.returncode == 0 and not run.timed_out and result.version is not None
    if not result.ok and result.error is None and stderr_lines and not run.timed_out:
        result.error = stderr_lines[-1][:400]
    return result


def _child_report(stdout: str) -> dict:
    """The child's report: its last line that starts with tf_child.MARK, as JSON ({} if none)."""
    report: dict = {}
    for line in stdout.splitlines():
        if line.startswith(tf_child.MARK):
            report = _safely(lambda line=line: dict(json.loads(line[len(tf_child.MARK) :])), {})
    return report


def _read_stderr(result: TensorFlowImport, stderr: str) -> list[str]:
    """The plugin's log lines, oneDNN's notice and a CPU check that stopped the import, read
    into result from the child's stderr; returns its non-empty lines."""
    stderr_lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    result.plugin_log = [
        line[:240] for line in stderr_lines if PLUGIN_LINE.search(line) and "NUMA" not in line
    ][:5]
    if result.onednn is None and "oneDNN custom operations are on" in stderr:
        result.onednn = True
    guard = [line for line in stderr_lines if "compiled to use AVX" in line]
    if guard:  # TensorFlow's own CPU check stopped the import: its line says why
        result.error = guard[0][:400]
    return stderr_lines


def import_tensorflow(probe: DoctorProbe, env: dict[str, str], timeout: float) -> TensorFlowImport:
    """Import TensorFlow in a child process with a time limit (info-level logs on, to read them)."""
    code = project_files.read_text(tf_child.__file__)
    run = probe.run_python(code, dict(env, TF_CPP_MIN_LOG_LEVEL="0"), timeout)
    return read_child(run, timeout)


def collect(
    probe: DoctorProbe | None = None, root: Path = ROOT, timeout: float = CHILD_TIMEOUT_S
) -> Facts:
    """All facts; the TensorFlow child runs while the other probes do."""
    probe = probe or DoctorProbe()
    packages = {name: _safely(lambda n=name: probe.package_version(n), None) for name in PACKAGES}
    env_all = _safely(probe.environ, {})
    with ThreadPoolExecutor(max_workers=1) as pool:
        child = None
        if any(packages[name] for name in TENSORFLOW_DISTRIBUTIONS):
            child = pool.submit(import_tensorflow, probe, env_all, timeout)
        facts = _collect_machine_facts(probe, root)
        facts.packages = packages
        facts.env = {key: env_all[key] for key in ENV_VARS if key in env_all}
        if child is not None:
            facts.tf = _safely(child.result, TensorFlowImport(attempted=True, error="no answer"))
    return facts


def _collect_machine_facts(probe: DoctorProbe, root: Path) -> Facts:
    machine = _safely(lambda: provenance.collect_machine(probe), {})
    system = machine.get("os") or _safely(probe.system, "unknown")
    facts = Facts(
        system=system,
        arch=machine.get("arch") or _safely(probe.machine, ""),
        os_version=machine.get("os_version"),
        rosetta=machine.get("rosetta"),
        python=_safely(probe.python_version, ""),
        cpu_model=machine.get("cpu_model"),
        cpu_features=list(machine.get("cpu_features") or []),
        logical_cores=machine.get("logical_cores"),
        ram_bytes=machine.get("ram_bytes"),
    )
    pyproject = _safely(lambda: probe.read(str(root / "pyproject.toml")), None) or _safely(
        lambda: project_files.read_text(root / "pyproject.toml"), None
    )
    if pyproject:
        facts.pins = _safely(
            lambda: project_pins(pyproject, facts.python, facts.system, facts.arch), Pins()
        )
    if system == "Darwin":
        version = (facts.os_version or "").removeprefix("macOS").strip()
        facts.macos = version or None
        arm64 = _safely(lambda: provenance.sysctl_int(probe, "hw.optional.arm64"), None)
        facts.apple_silicon = arm64 == 1 if arm64 is not None else None
        swap = _safely(lambda: provenance.sysctl(probe, "vm.swapusage"), None)
        facts.swap_total_bytes, facts.swap_used_bytes = mac_swap(swap or "")
        level = _safely(
            lambda: provenance.sysctl_int(probe, "kern.memorystatus_vm_pressure_level"), None
        )
        facts.memory_pressure, facts.memory_pressure_detail = mac_pressure(level)
    elif system == "Linux":
        meminfo = _safely(lambda: probe.read("/proc/meminfo"), None)
        facts.swap_total_bytes, facts.swap_used_bytes = linux_swap(meminfo or "")
        psi = _safely(lambda: probe.read("/proc/pressure/memory"), None)
        facts.memory_pressure, facts.memory_pressure_detail = linux_pressure(psi or "")
        listed = _safely(lambda: probe.run(["nvidia-smi", "-L"]), None)
        facts.nvidia_gpus = (
            [line.strip() for line in listed.splitlines() if line.strip()] if listed else None
        )
    facts.disk_path = _safely(probe.cwd, None)
    if facts.disk_path:
        facts.disk_free_bytes = _safely(lambda: probe.disk_free(facts.disk_path), None)
    return facts
