"""Provenance probes, with the operating system replaced by fakes for macOS and Linux."""

from __future__ import annotations

import platform

import pytest

from scripts import provenance

IOREG = '+-o AGXAcceleratorG13X  <class AGXAcceleratorG13X>\n  {\n    "gpu-core-count" = 32\n  }\n'


class FakeMac(provenance.Probe):
    """An M1 Max MacBook Pro as its sysctl, sw_vers and ioreg would answer."""

    def __init__(self, translated: str | None = "0", machine: str = "arm64"):
        self.answers = {
            "machdep.cpu.brand_string": "Apple M1 Max",
            "hw.physicalcpu": "10",
            "hw.perflevel0.physicalcpu": "8",
            "hw.perflevel1.physicalcpu": "2",
            "hw.memsize": str(32 * 2**30),
        }
        if translated is not None:
            self.answers["sysctl.proc_translated"] = translated
        self._machine = machine

    def system(self):
        return "Darwin"

    def machine(self):
        return self._machine

    def cpu_count(self):
        return 10

    def run(self, args, timeout=5.0):
        if args[:2] == ["sysctl", "-n"]:
            value = self.answers.get(args[2])
            return None if value is None else value + "\n"
        if args[0] == "sw_vers":
            return "14.5\n"
        if args[0] == "ioreg":
            return IOREG
        return None


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
    assert machine["description"] == "macOS arm64, 8P+2E cores, Apple M1 Max (32-core GPU)"


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
    assert machine["description"] == "Linux x86-64, 3 cores, Intel Xeon Gold 6338 CPU @ 2.00GHz"


def test_missing_probes_do_not_crash():
    class Bare(FakeLinux):
        def read(self, path):
            return None

    machine = provenance.collect_machine(Bare())
    assert machine["cpu_model"] == "x86_64" and machine["ram_bytes"] is None


def test_real_probe_on_this_machine():
    machine = provenance.collect_machine()
    assert machine["arch"] == platform.machine()
    assert machine["os"] == platform.system()
    if platform.system() == "Linux":
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            assert machine["cpu_model"] in handle.read()


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
