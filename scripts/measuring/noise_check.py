"""What on this machine could slow or scatter the timings, read before measuring.

Recorded with every entry a run writes (`conditions`), and printed as warnings: a busy
machine is worth knowing about, never a reason to refuse. Anchor: pyperf's `system show`.
Every reading goes through provenance.Probe, so tests fake any machine.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from scripts.core import plain_text, provenance

# A 1-minute load average above this share of the cores means other programs compete for
# them (an idle machine sits well below it). The guide's own threshold, not a measured one.
LOAD_PER_CORE = 0.5
BUSY_PROCESS_PERCENT = 20.0  # a process above this share of one core is named
CPUFREQ = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
NO_TURBO = "/sys/devices/system/cpu/intel_pstate/no_turbo"
BOOST = "/sys/devices/system/cpu/cpufreq/boost"


def _plain(text: str, limit: int = 40) -> str:
    """A process name as plain text (results files accept nothing else): characters they
    refuse become '?', and a name that still reads as markup is withheld."""
    kept = "".join(ch if plain_text.PLAIN.fullmatch(ch) else "?" for ch in text.strip())
    kept = kept.replace("=", "?")[:limit]
    return kept if plain_text.problem(kept) is None else "a process with an unusual name"


def busiest(probe: provenance.Probe, own_pid: int) -> list[dict]:
    """Other processes using more than BUSY_PROCESS_PERCENT of a core, busiest first."""
    out = probe.run(["ps", "-A", "-o", "pid=,pcpu=,comm="]) or ""
    found = []
    for line in out.splitlines():
        match = re.match(r"\s*(\d+)\s+([\d.]+)\s+(.+)$", line)
        if not match or int(match.group(1)) == own_pid:
            continue
        share = float(match.group(2))
        if share > BUSY_PROCESS_PERCENT:
            name = match.group(3).rsplit("/", 1)[-1]
            found.append({"name": _plain(name), "cpu_percent": share})
    return sorted(found, key=lambda p: -p["cpu_percent"])[:3]


def cpu_speed_limit(probe: provenance.Probe) -> int | None:
    """The CPU_Speed_Limit `pmset -g therm` reports (100: not throttled for heat), or None
    where macOS does not report one."""
    match = re.search(r"CPU_Speed_Limit\s*=\s*(\d+)", probe.run(["pmset", "-g", "therm"]) or "")
    return int(match.group(1)) if match else None


def snapshot(
    probe: provenance.Probe | None = None,
    loadavg: Callable[[], tuple[float, float, float]] = os.getloadavg,
    own_pid: int | None = None,
) -> dict:
    """The readings (None where a machine does not offer one)."""
    probe = probe or provenance.Probe()
    try:
        load = round(loadavg()[0], 2)
    except OSError:
        load = None
    found = {
        "load_1m": load,
        "cores": probe.cpu_count(),
        "busy_processes": busiest(probe, own_pid if own_pid is not None else os.getpid()),
        "governor": None,
        "turbo": None,
        "power_source": None,
        "low_power_mode": None,
    }
    if probe.system() == "Darwin":
        found["power_source"] = provenance.power_source(probe)
        found["low_power_mode"] = provenance.low_power_mode(probe)
        found["cpu_speed_limit"] = cpu_speed_limit(probe)
    else:
        governor = (probe.read(CPUFREQ) or "").strip()
        found["governor"] = _plain(governor) or None
        no_turbo, boost = (probe.read(NO_TURBO) or "").strip(), (probe.read(BOOST) or "").strip()
        if no_turbo in ("0", "1"):
            found["turbo"] = no_turbo == "0"
        elif boost in ("0", "1"):
            found["turbo"] = boost == "1"
    return found


def warnings(found: dict) -> list[str]:
    """The readings that would make this run's timings slower or noisier than the machine."""
    said = []
    cores = found.get("cores") or 1
    load = found.get("load_1m")
    if load is not None and load > LOAD_PER_CORE * cores:
        said.append(
            f"The load average over the last minute is {load:.1f} on {cores} cores: other "
            "programs are using the processor. Close them, or the timings will be slower and "
            "noisier than this machine is."
        )
    for process in found.get("busy_processes") or []:
        said.append(f"{process['name']} is using {process['cpu_percent']:.0f}% of a core.")
    if found.get("governor") == "powersave":
        said.append("The CPU frequency governor is 'powersave': timings may be slower.")
    source = found.get("power_source")
    if source is not None and source != "AC Power":
        said.append(
            f"The Mac is drawing from {source}: connect it to power. On battery macOS may "
            "lower clock speeds, and the timings would not be this Mac's best."
        )
    if found.get("low_power_mode"):
        said.append(
            "Low Power Mode is on: it slows the CPU and GPU. Turn it off in System Settings > "
            "Battery (or `sudo pmset -a lowpowermode 0`) before measuring."
        )
    limit = found.get("cpu_speed_limit")
    if limit is not None and limit < 100:
        said.append(
            f"macOS limits the CPU to {limit}% of its speed for heat (pmset -g therm): let the "
            "Mac cool down, or the timings will be this heat's, not the Mac's."
        )
    return said
