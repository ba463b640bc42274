"""Fake Macs for the provenance probes: outputs quoted from real Macs, each with its source.

Shared by the provenance, Mac-results and contribute tests.
"""

from __future__ import annotations

from scripts.core import provenance

# `ioreg -r -d 1 -c AGXAccelerator`, reduced to the one property read; the class name is an
# M1 Pro's (https://github.com/exelban/stats/issues/1094).
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

    def getenv(self, name):
        return self.environment.get(name)


# Samples of what real Macs print. Each is quoted from the public page named above it
# (trimmed where said); the fakes answer with them, so the parsers meet what macOS prints.

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
