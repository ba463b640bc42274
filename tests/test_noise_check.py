"""The noise check before measuring: readings, warnings, and plain text for the results file."""

from __future__ import annotations

from scripts.core import plain_text, provenance
from scripts.measuring import noise_check

PS = """\
  101  97.5 /usr/bin/python3
  202  35.0 /Applications/Google Chrome.app/Contents/MacOS/Google Chrome
  303   2.0 bash
  404  50.0 <script>alert(1)</script>
  999  99.0 python
"""


class FakeProbe(provenance.Probe):
    def __init__(self, system="Linux", files=None, commands=None, cores=2):
        self.system_name, self.files, self.commands, self.cores = (
            system,
            files or {},
            commands or {},
            cores,
        )

    def system(self):
        return self.system_name

    def cpu_count(self):
        return self.cores

    def read(self, path):
        return self.files.get(path)

    def run(self, args, timeout=5.0):
        return self.commands.get(" ".join(args[:2]))


def test_a_quiet_linux_machine_gives_no_warning():
    probe = FakeProbe(files={noise_check.CPUFREQ: "performance\n", noise_check.NO_TURBO: "0\n"})
    found = noise_check.snapshot(probe, loadavg=lambda: (0.2, 0.1, 0.1), own_pid=1)
    assert found["governor"] == "performance" and found["turbo"] is True
    assert found["busy_processes"] == [] and noise_check.warnings(found) == []


def test_a_busy_machine_is_named_but_not_refused():
    probe = FakeProbe(commands={"ps -A": PS}, files={noise_check.CPUFREQ: "powersave"})
    found = noise_check.snapshot(probe, loadavg=lambda: (1.7, 1.0, 1.0), own_pid=999)
    names = [p["name"] for p in found["busy_processes"]]
    assert names[0] == "python3" and "Google Chrome" in names  # own process (999) left out
    assert all(plain_text.problem(name) is None for name in names)  # safe in a results file
    said = " ".join(noise_check.warnings(found))
    assert "load average over the last minute is 1.7 on 2 cores" in said
    assert "python3 is using 98% of a core" in said and "'powersave'" in said


def test_a_hostile_process_name_becomes_plain_text():
    probe = FakeProbe(commands={"ps -A": "  5  80.0 <img src=x onerror=alert(1)>\n"})
    [process] = noise_check.snapshot(probe, loadavg=lambda: (0.1,) * 3, own_pid=1)["busy_processes"]
    assert plain_text.problem(process["name"]) is None and "<" not in process["name"]


def test_a_mac_on_battery_in_low_power_mode_is_warned_about():
    probe = FakeProbe(system="Darwin", commands={
        "pmset -g": " lowpowermode         1\n",
    })  # fmt: skip
    probe.commands["pmset -g batt"] = "Now drawing from 'Battery Power'\n"
    original = probe.run

    def run(args, timeout=5.0):
        return probe.commands.get(" ".join(args)) or original(args, timeout)

    probe.run = run
    found = noise_check.snapshot(probe, loadavg=lambda: (0.1,) * 3, own_pid=1)
    assert found["power_source"] == "Battery Power" and found["low_power_mode"] is True
    said = " ".join(noise_check.warnings(found))
    assert "drawing from Battery Power" in said and "Low Power Mode is on" in said


def test_no_load_average_and_no_tools_still_give_readings():
    def no_loadavg():
        raise OSError("not available")

    found = noise_check.snapshot(FakeProbe(), loadavg=no_loadavg, own_pid=1)
    assert found["load_1m"] is None and found["busy_processes"] == []
    assert noise_check.warnings(found) == []


def test_a_mac_throttled_for_heat_is_warned_about():
    probe = FakeProbe(system="Darwin")
    original = probe.run
    said = {"therm": "CPU_Scheduler_Limit \t= 100\nCPU_Speed_Limit \t= 70\n"}

    def run(args, timeout=5.0):
        if args == ["pmset", "-g", "therm"]:
            return said["therm"]
        return original(args, timeout)

    probe.run = run
    found = noise_check.snapshot(probe, loadavg=lambda: (0.1,) * 3, own_pid=1)
    assert found["cpu_speed_limit"] == 70
    assert any("limits the CPU to 70%" in w for w in noise_check.warnings(found))
    said["therm"] = "Note: No thermal warning level has been recorded\n"  # no speed field
    found = noise_check.snapshot(probe, loadavg=lambda: (0.1,) * 3, own_pid=1)
    assert found["cpu_speed_limit"] is None
    assert not any("limits the CPU" in w for w in noise_check.warnings(found))
