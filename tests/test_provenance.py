"""Provenance probes, with the operating system replaced by fakes for macOS and Linux."""

from __future__ import annotations

import copy
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
        self.outputs = {"sw_vers": "14.5\n", "ioreg": IOREG}
        self.packages: dict[str, str] = {}
        self.environment: dict[str, str] = {}
        self.timeouts: dict[str, float] = {}

    def system(self):
        return "Darwin"

    def machine(self):
        return self._machine

    def cpu_count(self):
        return 10

    def run(self, args, timeout=5.0):
        self.timeouts[" ".join(args)] = timeout
        if args[:2] == ["sysctl", "-n"]:
            value = self.answers.get(args[2])
            return None if value is None else value + "\n"
        return self.outputs.get(" ".join(args), self.outputs.get(args[0]))

    def package_version(self, name):
        return self.packages.get(name)

    def env(self, name):
        return self.environment.get(name)


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


# --- Samples of what real Macs print, for the probes that read them ---------------------
# Each is quoted from the public page named above it (trimmed where said); the fakes below
# answer with them, so the parsers are tested against what macOS really prints.

# `system_profiler SPDisplaysDataType -json` on an Apple M1 (7-core GPU): the test fixture
# https://github.com/pytorch/serve/blob/5412a54edf9a4f4d283e6a055bdc6d5574e2f6b5/frontend/server/src/test/resources/metrics/sample_apple_smi.json
# (display serial fields trimmed).
SP_DISPLAYS_M1 = """{
    "SPDisplaysDataType": [
        {
            "_name": "kHW_AppleM1Item",
            "spdisplays_metalfamily": "spdisplays_mtlgpufamilyapple7",
            "spdisplays_ndrvs": [
                {
                    "_name": "Color LCD",
                    "_spdisplays_pixels": "2880 x 1800",
                    "_spdisplays_resolution": "1440 x 900 @ 60.00Hz",
                    "spdisplays_connection_type": "spdisplays_internal",
                    "spdisplays_main": "spdisplays_yes"
                }
            ],
            "spdisplays_vendor": "sppci_vendor_Apple",
            "sppci_bus": "spdisplays_builtin",
            "sppci_cores": "7",
            "sppci_device_type": "spdisplays_gpu",
            "sppci_model": "Apple M1"
        }
    ]
}
"""
# An adapter without `sppci_cores`, as asitop shows on an M1 Mac mini ("4E+4P+?GPU",
# https://github.com/tlkh/asitop/issues/16); built from the sample above without the key.
SP_DISPLAYS_NO_CORES = SP_DISPLAYS_M1.replace('"sppci_cores": "7",\n', "")
# GitHub's hosted Macs print nothing for this data type: "`/usr/sbin/system_profiler
# SPDisplaysDataType` is empty on github actions machines" (https://github.com/modular/rules_mojo/pull/56).
SP_DISPLAYS_HOSTED = ""

# `pmset -g batt` on an M1 MacBook Pro on power (https://github.com/AppHouseKitchen/AlDente-Battery_Care_and_Monitoring/issues/52).
PMSET_BATT_AC = "Now drawing from 'AC Power'\n -InternalBattery-0 (id=5308515)\t80%; AC attached; not charging present: true\n"
# On battery (a MacBook, https://github.com/imwally/battstat/issues/2; the format is the same
# on Apple silicon, as the AC sample shows).
PMSET_BATT_BATTERY = "Now drawing from 'Battery Power'\n -InternalBattery-0 \t89%; discharging; 4:47 remaining present: true\n"
# A Mac without a battery prints only the first line (https://github.com/liquidprompt/liquidprompt/pull/317).
PMSET_BATT_DESKTOP = "Now drawing from 'AC Power'\n"

# `pmset -g` on an arm64 MacBook Pro with Low Power Mode off (andrewcrook's comment of
# 2022-03-19 in https://github.com/AppHouseKitchen/AlDente-Battery_Care_and_Monitoring/issues/603).
PMSET_G_LOWPOWERMODE = """
System-wide power settings:
 SleepDisabled\t\t1
Currently in use:
 standby              1
 Sleep On Power Button 1
 hibernatefile        /var/vm/sleepimage
 powernap             1
 networkoversleep     0
 disksleep            10
 sleep                1 (sleep prevented by bluetoothd, powerd, sharingd)
 hibernatemode        3
 ttyskeepawake        1
 displaysleep         10
 tcpkeepalive         1
 lowpowermode         0
 womp                 1
"""
# Newer Macs list `powermode` instead (0 automatic, 1 low power, 2 high power): reported on
# an M3 Max (https://github.com/jordibruin/cooldown/issues/4) and an M2 Pro/Max on macOS 13.2
# (https://github.com/alfredapp/low-power-mode-workflow/issues/4). Built from the sample above
# with the key renamed as those reports describe.
PMSET_G_POWERMODE = PMSET_G_LOWPOWERMODE.replace(" lowpowermode ", " powermode    ")

# GitHub's hosted arm64 runner: `system_profiler SPHardwareDataType` on macos-14 reads
# "Chip: Apple M1 (Virtual)", "Total Number of Cores: 3", "Memory: 7 GB"
# (https://github.com/AsahiLinux/m1n1/issues/383), and Metal reports memory_size 7516192768
# there (https://github.com/rajveer43/VeloxQuant-MLX/issues/395). One core type is assumed.
HOSTED_SYSCTL = {
    "machdep.cpu.brand_string": "Apple M1 (Virtual)",
    "hw.physicalcpu": "3",
    "hw.perflevel0.physicalcpu": "3",
    "hw.memsize": "7516192768",
    "sysctl.proc_translated": "0",
}
# An M1 Pro (10 cores: 8 performance, 2 efficiency) as `sysctl -a` lists it
# (https://github.com/Dr-Noob/cpufetch/issues/139) with 16 GB, as another M1 Pro's
# SPHardwareDataType reads (https://github.com/Dr-Noob/cpufetch/issues/183); 16 GPU cores is
# Apple's configuration of that chip with the 10-core CPU.
M1_PRO_SYSCTL = {
    "machdep.cpu.brand_string": "Apple M1 Pro",
    "hw.physicalcpu": "10",
    "hw.perflevel0.physicalcpu": "8",
    "hw.perflevel1.physicalcpu": "2",
    "hw.memsize": str(16 * 2**30),
    "sysctl.proc_translated": "0",
}


def hosted_runner_mac() -> FakeMac:
    """GitHub's macos-14 runner, with the workflow's HOSTED_RUNNER=github."""
    probe = FakeMac()
    probe.answers = dict(HOSTED_SYSCTL)
    probe.outputs = {
        "sw_vers": "14.7.6\n",
        "ioreg": "",  # no AGXAccelerator in the virtual machine
        "system_profiler": SP_DISPLAYS_HOSTED,
        "pmset -g batt": PMSET_BATT_DESKTOP,
        "pmset -g": PMSET_G_LOWPOWERMODE,
    }
    probe.environment = {"HOSTED_RUNNER": "github"}
    probe.cpu_count = lambda: 3
    return probe


def m1_pro_with_metal() -> FakeMac:
    probe = FakeMac()
    probe.answers = dict(M1_PRO_SYSCTL)
    probe.outputs = {
        "sw_vers": "14.5\n",
        "ioreg": IOREG.replace("= 32", "= 16"),
        "pmset -g batt": PMSET_BATT_AC,
        "pmset -g": PMSET_G_POWERMODE,
    }
    probe.packages = {"tensorflow-metal": "1.1.0"}
    return probe


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


def test_the_samples_really_contain_the_lines_the_parsers_read():
    assert PMSET_G_POWERMODE.count("powermode            0") == 1
    assert "lowpowermode" not in PMSET_G_POWERMODE
    assert '"sppci_cores"' not in SP_DISPLAYS_NO_CORES


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
    assert machine["gpu_cores"] is None and machine["efficiency_cores"] is None
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


def test_new_mac_fields_are_optional_and_checked(committed_results):
    from scripts import results

    data = copy.deepcopy(committed_results[0])
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
