"""Provenance probes, with the operating system replaced by fakes for macOS and Linux."""

from __future__ import annotations

import copy
import os
import platform

import pytest

from scripts.core import provenance
from tests.mac_samples import (
    PMSET_BATT_AC,
    PMSET_BATT_BATTERY,
    PMSET_BATT_DESKTOP,
    PMSET_G_LOWPOWERMODE,
    PMSET_G_POWERMODE,
    SP_DISPLAYS_HOSTED,
    SP_DISPLAYS_M1,
    SP_DISPLAYS_NO_CORES,
    FakeMac,
    hosted_runner_mac,
    m1_pro_with_metal,
)

CPUINFO = """processor\t: 0
model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu sse4_2 avx avx2 fma avx512f amx_tile

processor\t: 1
model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
physical id\t: 0
core id\t\t: 0
flags\t\t: fpu sse4_2 avx avx2 fma avx512f amx_tile

processor\t: 2
model name\t: Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz
physical id\t: 0
core id\t\t: 1
flags\t\t: fpu sse4_2 avx avx2 fma avx512f amx_tile

"""


class FakeLinux(provenance.Probe):
    def system(self):
        return "Linux"

    def machine(self):
        return "x86_64"

    def cpu_count(self):
        return 3

    def read(self, path):
        return {
            "/proc/cpuinfo": CPUINFO,
            "/proc/meminfo": "MemTotal:       16384000 kB\nMemFree: 1 kB\n",
            "/etc/os-release": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n',
        }.get(path)

    def run(self, args, timeout=5.0):
        return None  # no sysctl, no ioreg: must not matter on Linux


def test_mac_facts_from_sysctl():
    machine = provenance.collect_machine(FakeMac())
    assert machine["cpu_model"] == "Apple M1 Max"
    assert machine["performance_cores"] == 8 and machine["efficiency_cores"] == 2
    assert machine["physical_cores"] == 10 and machine["logical_cores"] == 10
    assert machine["gpu_cores"] == 32
    assert machine["ram_bytes"] == 32 * 2**30
    assert machine["os_version"] == "macOS 14.5"
    assert machine["rosetta"] is False
    assert machine["id"] == "apple-m1-max-32gpu-macos"
    assert machine["description"] == "Apple M1 Max, 10-core CPU (8P+2E), 32-core GPU, 32 GB"


def test_rosetta_is_detected_and_named():
    machine = provenance.collect_machine(FakeMac(translated="1", machine="x86_64"))
    assert machine["rosetta"] is True
    assert machine["id"].endswith("-rosetta")
    assert "under Rosetta 2" in machine["description"]


def test_intel_mac_without_the_translation_key_is_native():
    assert provenance.rosetta_translated(FakeMac(translated=None)) is False


def test_rosetta_question_does_not_apply_on_linux():
    assert provenance.rosetta_translated(FakeLinux()) is None


def test_linux_facts_from_proc():
    machine = provenance.collect_machine(FakeLinux())
    assert machine["cpu_model"] == "Intel(R) Xeon(R) Gold 6338 CPU @ 2.00GHz"
    assert machine["physical_cores"] == 2  # two distinct (physical id, core id) pairs
    assert machine["logical_cores"] == 3
    assert machine["ram_bytes"] == 16384000 * 1024
    assert machine["cpu_features"] == ["amx_tile", "avx", "avx2", "avx512f", "fma", "sse4_2"]
    assert machine["gpu_cores"] is None and machine["performance_cores"] is None
    assert machine["id"] == "intel-xeon-gold-6338-3cpu-linux"
    assert machine["description"] == (
        "Linux x86-64, 3 cores, Intel Xeon Gold 6338 CPU @ 2.00GHz, AVX-512, AMX"
    )


def test_missing_probes_do_not_crash():
    class Bare(FakeLinux):
        def read(self, path):
            return None

    machine = provenance.collect_machine(Bare())
    assert machine["cpu_model"] == "x86_64" and machine["ram_bytes"] is None


@pytest.mark.skipif(platform.system() != "Linux", reason="compares with /proc and sysconf")
def test_the_real_probe_reads_this_linux_machine():
    """The real probe against what the kernel reports another way: the CPU model as
    /proc/cpuinfo names it, the memory within the physical pages sysconf counts."""
    machine = provenance.collect_machine()
    with open("/proc/cpuinfo", encoding="utf-8") as handle:
        assert machine["cpu_model"] in handle.read()
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0.5 * physical <= machine["ram_bytes"] <= physical


def test_command_that_is_missing_or_fails_gives_none():
    probe = provenance.Probe()
    assert probe.run(["definitely-not-a-command-xyz"]) is None
    assert probe.run(["false"]) is None


def test_software_versions_name_the_tensorflow_distribution():
    class Versions(FakeLinux):
        def package_version(self, name):
            return {"tensorflow-macos": "2.16.2", "keras": "3.10.0"}.get(name)

        def python_version(self):
            return "3.11.9"

    software = provenance.collect_software(Versions())
    assert software == {
        "python": "3.11.9",
        "tensorflow": "2.16.2",
        "keras": "3.10.0",
        "numpy": None,
        "tensorflow_metal": None,
    }


@pytest.mark.parametrize(
    "status, dirty", [("", False), (" M snippets/input_pipeline/feeding.py\n", True)]
)
def test_git_state(status, dirty, tmp_path):
    class Git(FakeLinux):
        def run(self, args, timeout=5.0):
            return "abc123\n" if "rev-parse" in args else status

    assert provenance.git_state(tmp_path, Git()) == {"commit": "abc123", "dirty": dirty}


def test_gpu_cores_from_system_profiler_when_the_ioregistry_has_none():
    probe = FakeMac()
    probe.outputs.update(ioreg=None, system_profiler=SP_DISPLAYS_M1)
    assert provenance.apple_gpu_cores(probe) == 7
    # system_profiler can be slow: it gets a longer limit than the other probes.
    timeout = probe.timeouts["system_profiler SPDisplaysDataType -json"]
    assert timeout == provenance.SYSTEM_PROFILER_TIMEOUT_S > provenance.PROBE_TIMEOUT_S


@pytest.mark.parametrize(
    "output",
    [SP_DISPLAYS_NO_CORES, SP_DISPLAYS_HOSTED, None, "not json", "[]", '{"SPDisplaysDataType": "x"}',
     '{"SPDisplaysDataType": [{"sppci_cores": "many"}, 3]}'],
    ids=["no-key", "hosted-empty", "tool-missing-or-failed", "not-json", "list", "not-a-list", "bad-values"],
)  # fmt: skip
def test_gpu_cores_unknown_when_system_profiler_does_not_say(output):
    probe = FakeMac()
    probe.outputs.update(ioreg=None, system_profiler=output)
    assert provenance.apple_gpu_cores(probe) is None


@pytest.mark.parametrize(
    "output, source",
    [(PMSET_BATT_AC, "AC Power"), (PMSET_BATT_BATTERY, "Battery Power"),
     (PMSET_BATT_DESKTOP, "AC Power"), ("", None), (None, None), ("garbage\n", None)],
    ids=["ac", "battery", "no-battery", "empty", "tool-missing-or-failed", "unexpected"],
)  # fmt: skip
def test_power_source_from_pmset_batt(output, source):
    probe = FakeMac()
    probe.outputs["pmset -g batt"] = output
    assert provenance.power_source(probe) == source


@pytest.mark.parametrize(
    "output, low",
    [(PMSET_G_LOWPOWERMODE, False),
     (PMSET_G_LOWPOWERMODE.replace("lowpowermode         0", "lowpowermode         1"), True),
     (PMSET_G_POWERMODE, False),
     (PMSET_G_POWERMODE.replace("powermode            0", "powermode            1"), True),
     (PMSET_G_POWERMODE.replace("powermode            0", "powermode            2"), False),
     (PMSET_G_LOWPOWERMODE.replace(" lowpowermode         0\n", ""), None),
     (None, None)],
    ids=["lowpowermode-0", "lowpowermode-1", "powermode-0", "powermode-1-low",
         "powermode-2-high", "key-absent", "tool-missing-or-failed"],
)  # fmt: skip
def test_low_power_mode_from_pmset(output, low):
    probe = FakeMac()
    probe.outputs["pmset -g"] = output
    assert provenance.low_power_mode(probe) is low


@pytest.mark.parametrize(
    "value, recorded",
    [("github", "github"), (" GitHub ", "github"), ("", None), (None, None),
     ("<script>", None), ("a b", None), ("-x", None)],
)  # fmt: skip
def test_hosted_runner_is_a_plain_name_or_nothing(value, recorded):
    probe = FakeMac()
    probe.environment = {} if value is None else {"HOSTED_RUNNER": value}
    assert provenance.hosted_runner(probe) == recorded


def test_every_mac_probe_gives_none_when_no_tool_answers():
    class NothingAnswers(FakeMac):
        def run(self, args, timeout=5.0):
            return None

    machine = provenance.collect_machine(NothingAnswers())
    assert machine["cpu_model"] == "unknown Mac CPU"
    for key in ("physical_cores", "performance_cores", "efficiency_cores", "gpu_cores",
                "ram_bytes", "power_source", "low_power_mode", "tensorflow_metal", "metal_gpu"):  # fmt: skip
        assert machine[key] is None, key
    assert machine["os_version"] == "macOS"
    assert "hosted_runner" not in machine


def test_a_slow_tool_is_stopped_at_its_time_limit():
    assert provenance.Probe().run(["sleep", "5"], timeout=0.2) is None


def test_hosted_runner_m1_is_named_cpu_only():
    machine = provenance.collect_machine(hosted_runner_mac())
    assert machine["cpu_model"] == "Apple M1 (Virtual)"
    assert machine["gpu_cores"] is None and machine["physical_cores"] == 3
    # One core type: no P/E split is recorded (pages would show "3P+NoneE" otherwise).
    assert machine["performance_cores"] is None and machine["efficiency_cores"] is None
    assert machine["power_source"] == "AC Power" and machine["low_power_mode"] is False
    assert machine["hosted_runner"] == "github" and machine["tensorflow_metal"] is None
    assert machine["id"] == "apple-m1-virtual-3cpu-macos-14-github"
    assert machine["description"] == "Apple M1 (Virtual), 3-core CPU, 7 GB, GitHub-hosted runner"
    provenance.set_devices(machine, ["CPU:0"])
    assert machine["metal_gpu"] is False
    assert machine["description"] == (
        "Apple M1 (Virtual), 3-core CPU, 7 GB, CPU only (GitHub-hosted runner)"
    )


def test_each_hosted_image_gets_its_own_file():
    fifteen = hosted_runner_mac()
    fifteen.outputs["sw_vers"] = "15.5\n"
    assert provenance.collect_machine(fifteen)["id"] == "apple-m1-virtual-3cpu-macos-15-github"


def test_m1_pro_with_metal_is_named_by_its_gpu_and_plugin():
    machine = provenance.collect_machine(m1_pro_with_metal())
    assert machine["description"] == "Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB"
    assert machine["power_source"] == "AC Power" and machine["low_power_mode"] is False
    provenance.set_devices(machine, ["CPU:0", "GPU:0"])
    assert machine["metal_gpu"] is True
    assert machine["description"] == (
        "Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB, tensorflow-metal 1.1.0"
    )
    assert machine["id"] == "apple-m1-pro-16gpu-macos"


def test_a_plugin_that_finds_no_gpu_is_named():
    machine = provenance.collect_machine(m1_pro_with_metal())
    provenance.set_devices(machine, ["CPU:0"])
    assert machine["description"].endswith(
        "16 GB, CPU only (tensorflow-metal 1.1.0 installed, no GPU seen)"
    )


def test_descriptions_are_deterministic_and_the_committed_linux_ones_unchanged(committed_results):
    first = provenance.collect_machine(m1_pro_with_metal())
    assert first == provenance.collect_machine(m1_pro_with_metal())
    for data in committed_results:
        machine = data["machine"]
        assert provenance.describe(machine) == machine["description"], machine["id"]
        before = dict(machine)
        provenance.set_devices(before, machine["tf_devices"])
        assert before == machine, "set_devices must not change a Linux machine"


def test_new_mac_fields_are_optional_and_checked(committed_files):
    from scripts.core import store as results

    data = copy.deepcopy(committed_files[0])
    results.check(data, "linux")  # none of the new fields: still valid
    mac = provenance.collect_machine(hosted_runner_mac())
    provenance.set_devices(mac, ["CPU:0"])
    data["machine"] = mac
    results.check(data, "hosted")
    for key, bad in [("power_source", "<b>AC</b>"), ("hosted_runner", "javascript:x"),
                     ("tensorflow_metal", "1.1.0`"), ("low_power_mode", "yes"),
                     ("metal_gpu", 1)]:  # fmt: skip
        broken = copy.deepcopy(data)
        broken["machine"][key] = bad
        with pytest.raises(results.ResultsError, match=f"machine.{key}"):
            results.check(broken, "hosted")
