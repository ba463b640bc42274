"""Collecting the doctor's facts through fake probes (a Mac, Rosetta, a broken machine) and for real."""

from __future__ import annotations

import json
import signal

import pytest
import tomllib
from packaging.requirements import Requirement

from scripts.doctor import facts, report, rules, tf_child
from scripts.doctor.facts import ChildRun, DoctorProbe
from scripts.doctor.rules import Status

SWAPUSAGE = "total = 2048.00M  used = 1053.25M  free = 994.75M  (encrypted)"
MEMINFO = "MemTotal: 16384000 kB\nSwapTotal: 2097148 kB\nSwapFree: 1048572 kB\n"


def child_output(**report) -> ChildRun:
    """What tf_child prints when the import worked."""
    base = {"error": None, "keras_error": None, "version": "2.16.2", "seconds": 2.5,
            "devices": ["CPU:0"], "keras_version": "3.10.0", "floatx": "float32"}  # fmt: skip
    return ChildRun(
        0, "Metal device set to: Apple M1\n" + tf_child.MARK + json.dumps(base | report), ""
    )


class FakeProbe(DoctorProbe):
    """Canned answers; records the child runs it was asked for."""

    system_name, machine_name = "Linux", "x86_64"

    def __init__(self, packages=None, child=None, sysctl=None, files=None, commands=None, env=None):
        self.packages = packages if packages is not None else {"tensorflow-cpu": "2.16.2"}
        self.child = child or child_output()
        self.sysctl_answers = sysctl or {}
        self.files = files or {}
        self.commands = commands or {}
        self.env = env or {}
        self.child_calls: list[dict] = []

    def system(self):
        return self.system_name

    def machine(self):
        return self.machine_name

    def cpu_count(self):
        return 8

    def python_version(self):
        return "3.11.9"

    def package_version(self, name):
        return self.packages.get(name)

    def read(self, path):
        if path.endswith("pyproject.toml"):
            return (facts.ROOT / "pyproject.toml").read_text()
        return self.files.get(path)

    def run(self, args, timeout=5.0):
        if args[:2] == ["sysctl", "-n"]:
            value = self.sysctl_answers.get(args[2])
            return None if value is None else value + "\n"
        return self.commands.get(args[0])

    def environ(self):
        return dict(self.env)

    def cwd(self):
        return "/home/me/project"

    def disk_free(self, path, timeout=5.0):
        return 100 * 2**30

    def run_python(self, code, env, timeout):
        self.child_calls.append(env)
        return self.child


class FakeMac(FakeProbe):
    system_name = "Darwin"

    def __init__(self, translated: str | None = "0", machine: str = "arm64", **kwargs):
        super().__init__(**kwargs)
        self.machine_name = machine
        self.sysctl_answers = {
            "machdep.cpu.brand_string": "Apple M1",
            "hw.memsize": str(16 * 2**30),
            "hw.optional.arm64": "1",
            "vm.swapusage": SWAPUSAGE,
            "kern.memorystatus_vm_pressure_level": "1",
        }
        if translated is not None:
            self.sysctl_answers["sysctl.proc_translated"] = translated
        self.commands = {"sw_vers": "14.5\n"}
        self.packages = {"tensorflow": "2.16.2", "tensorflow-macos": "2.16.2",
                         "tensorflow-metal": "1.1.0", "keras": "3.10.0"}  # fmt: skip


def test_rosetta_mac_is_seen_and_fails():
    collected = facts.collect(FakeMac(translated="1", machine="x86_64"))
    assert (collected.system, collected.arch, collected.rosetta) == ("Darwin", "x86_64", True)
    assert collected.apple_silicon is True and collected.macos == "14.5"
    assert rules.check_architecture(collected).status is Status.FAIL


def test_native_mac_facts_swap_and_pressure():
    collected = facts.collect(FakeMac(child=child_output(devices=["CPU:0", "GPU:0"])))
    assert collected.rosetta is False and collected.arch == "arm64"
    assert collected.ram_bytes == 16 * 2**30
    assert collected.swap_total_bytes == 2048 * 2**20
    assert collected.swap_used_bytes == int(1053.25 * 2**20)
    assert collected.tf.devices == ["CPU:0", "GPU:0"] and collected.tf.ok
    assert collected.packages["tensorflow-metal"] == "1.1.0"
    assert collected.nvidia_gpus is None  # nvidia-smi is not asked on a Mac
    assert collected.memory_pressure == "normal"
    statuses = {c.name: c.status for c in rules.run_all(collected)}
    # 1 GiB of swap in use with normal pressure is not a warning: pressure decides.
    assert statuses["gpu"] is Status.PASS and statuses["memory"] is Status.PASS


@pytest.mark.parametrize(
    "answer, level",
    [("1", "normal"), ("2", "warning"), ("4", "critical"), ("3", None), (None, None)],
)
def test_mac_memory_pressure_from_sysctl(answer, level):
    probe = FakeMac()
    if answer is None:
        del probe.sysctl_answers["kern.memorystatus_vm_pressure_level"]
    else:
        probe.sysctl_answers["kern.memorystatus_vm_pressure_level"] = answer
    assert facts.collect(probe).memory_pressure == level


PSI = "some avg10=0.00 avg60={some} avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"


@pytest.mark.parametrize(
    "psi, level",
    [(PSI.format(some="0.00"), "normal"), (PSI.format(some="12.50"), "warning"),
     (PSI.format(some="55.0"), "critical"), ("garbage", None), (None, None)],
)  # fmt: skip
def test_linux_memory_pressure_from_psi(psi, level):
    files = {"/proc/meminfo": MEMINFO}
    if psi is not None:
        files["/proc/pressure/memory"] = psi
    collected = facts.collect(FakeProbe(files=files))
    assert collected.memory_pressure == level
    if level:
        assert "/proc/pressure/memory" in collected.memory_pressure_detail


def test_the_avx_check_message_becomes_the_import_error():
    run = facts.ChildRun(
        -6, "", "2024 I something\nThe TensorFlow library was compiled to use AVX instructions, "
        "but these aren't available on your machine.\nAborted\n",
    )  # fmt: skip
    found = facts.read_child(run, 60.0)
    assert "compiled to use AVX" in found.error and not found.ok


def test_linux_facts_from_proc_and_nvidia_smi():
    probe = FakeProbe(
        files={"/proc/meminfo": MEMINFO, "/proc/cpuinfo": "model name\t: Test CPU\n"},
        commands={"nvidia-smi": "GPU 0: NVIDIA A10G (UUID: GPU-1)\n"},
        env={"CUDA_VISIBLE_DEVICES": "", "HOME": "/home/me"},
    )
    collected = facts.collect(probe)
    assert collected.cpu_model == "Test CPU"
    assert collected.swap_used_bytes == (2097148 - 1048572) * 1024
    assert collected.nvidia_gpus == ["GPU 0: NVIDIA A10G (UUID: GPU-1)"]
    assert collected.env == {"CUDA_VISIBLE_DEVICES": ""}  # only the variables rules read
    assert collected.disk_free_bytes == 100 * 2**30 and collected.disk_path == "/home/me/project"


def test_child_gets_the_environment_with_tensorflow_logs_on():
    probe = FakeProbe(env={"TF_USE_LEGACY_KERAS": "1", "TF_CPP_MIN_LOG_LEVEL": "3"})
    facts.collect(probe)
    assert probe.child_calls[0]["TF_USE_LEGACY_KERAS"] == "1"
    assert probe.child_calls[0]["TF_CPP_MIN_LOG_LEVEL"] == "0"


def test_without_tensorflow_no_child_runs():
    probe = FakeProbe(packages={})
    collected = facts.collect(probe)
    assert probe.child_calls == [] and collected.tf.attempted is False
    statuses = {c.name: c.status for c in rules.run_all(collected)}
    assert statuses["tensorflow"] is Status.FAIL and statuses["tensorflow import"] is Status.SKIP


def test_a_machine_where_every_probe_raises_still_gives_a_report():
    def broken(*args, **kwargs):
        raise OSError("broken here")

    methods = ["system", "machine", "run", "read", "cpu_count", "python_version",
               "package_version", "environ", "cwd", "disk_free", "run_python"]  # fmt: skip
    Hostile = type("Hostile", (DoctorProbe,), dict.fromkeys(methods, broken))

    collected = facts.collect(Hostile())
    checks = rules.run_all(collected)
    assert len(checks) == len(rules.RULES)
    assert {c.name: c.status for c in checks}["tensorflow"] is Status.FAIL


@pytest.mark.parametrize(
    "run, expected",
    [
        (child_output(), {"ok": True, "version": "2.16.2", "seconds": 2.5, "error": None}),
        (ChildRun(-signal.SIGILL, "", ""), {"ok": False, "returncode": -4, "error": None}),
        (ChildRun(None, "", "", timed_out=True, seconds=60), {"ok": False, "timed_out": True}),
        (
            ChildRun(1, tf_child.MARK + json.dumps({"error": "ImportError: x"}), "trace\n"),
            {"ok": False, "error": "ImportError: x"},
        ),
        (ChildRun(1, "not json", "Traceback\nValueError: bad\n"), {"error": "ValueError: bad"}),
        (ChildRun(0, tf_child.MARK + "{broken", ""), {"ok": False, "version": None}),
    ],
    ids=["ok", "sigill", "timeout", "exception", "traceback only", "garbled"],
)
def test_reading_the_child(run, expected):
    seen = facts.read_child(run, timeout=60)
    assert {key: getattr(seen, key) for key in expected} == expected


def test_plugin_lines_and_onednn_come_from_stderr():
    stderr = (
        "I tensorflow/core/util/port.cc:113] oneDNN custom operations are on.\n"
        "I pluggable_device_factory.cc:305] Could not identify NUMA node of platform GPU ID 0\n"
        "W metal_plugin/src/device.cc] Metal plugin: could not create device\n"
    )
    run = ChildRun(0, child_output(onednn=None).stdout, stderr)
    seen = facts.read_child(run, timeout=60)
    assert seen.onednn is True
    assert seen.plugin_log == [
        "W metal_plugin/src/device.cc] Metal plugin: could not create device"
    ]


# (python, system, machine) -> (tensorflow, keras, metal) as pyproject.toml pins them there.
# A Mac under Rosetta is x86_64 to pip: the project pins no TensorFlow for it.
REAL_PINS = {
    ("3.11.9", "Linux", "x86_64"): ("2.16.2", "3.10.0", None),
    ("3.12.4", "Linux", "aarch64"): ("2.16.2", "3.10.0", None),
    ("3.10.14", "Darwin", "arm64"): ("2.16.2", "3.10.0", "1.1.0"),
    ("3.11.9", "Darwin", "arm64"): ("2.16.2", "3.10.0", "1.1.0"),
    ("3.12.4", "Darwin", "arm64"): ("2.16.2", "3.10.0", "1.2.0"),
    ("3.11.9", "Darwin", "x86_64"): (None, "3.10.0", None),
    ("3.12.4", "Windows", "AMD64"): (None, "3.10.0", None),
}


@pytest.mark.parametrize("where, expected", REAL_PINS.items(), ids=[" ".join(w) for w in REAL_PINS])
def test_pins_come_from_pyproject_for_the_machine_described(where, expected):
    pins = facts.project_pins((facts.ROOT / "pyproject.toml").read_text(), *where)
    assert (pins.python_min, pins.python_below) == ("3.11", "3.13")
    assert (pins.tensorflow, pins.keras, pins.metal) == expected


# Versions that differ by platform, so a pin taken for the wrong one shows.
SPLIT_PYPROJECT = """
dependencies = [
    "tensorflow==2.16.1; sys_platform == 'darwin' and platform_machine == 'arm64'",
    "tensorflow-metal==1.1.0; sys_platform == 'darwin' and platform_machine == 'arm64'",
    "tensorflow-cpu==2.15.0; sys_platform == 'linux' and platform_machine == 'x86_64'",
    "keras==3.10.0",
    "other==1.0; implementation_name == 'cpython'",
]
"""


@pytest.mark.parametrize(
    "system, machine, expected",
    [("Linux", "x86_64", ("2.15.0", None)), ("Darwin", "arm64", ("2.16.1", "1.1.0")),
     ("Linux", "aarch64", (None, None))],
)  # fmt: skip
def test_a_pin_for_another_platform_is_not_taken(system, machine, expected):
    pins = facts.project_pins(SPLIT_PYPROJECT, "3.11.9", system, machine)
    assert (pins.tensorflow, pins.metal, pins.keras) == (*expected, "3.10.0")


def test_collected_facts_and_json_report_hold_the_platforms_pins():
    linux = facts.collect(FakeProbe())
    assert (linux.pins.tensorflow, linux.pins.metal) == ("2.16.2", None)
    reported = json.loads(report.to_json(rules.run_all(linux), linux))
    assert reported["facts"]["pins"]["metal"] is None
    mac = facts.collect(FakeMac())
    assert (mac.pins.tensorflow, mac.pins.metal) == ("2.16.2", "1.1.0")


@pytest.mark.parametrize(
    "marker, clause",
    [
        ("os_name == 'posix'", "os_name == 'posix'"),
        # refused even where an earlier clause already decides the answer
        ("sys_platform == 'darwin' and os_name == 'posix'", "os_name == 'posix'"),
        ("(sys_platform == 'linux')", "(sys_platform == 'linux')"),
        ("python_version in '3.11 3.12'", "python_version in '3.11 3.12'"),
        ("python_version ~= '3.11'", "python_version ~= '3.11'"),
        ("python_version < '3.1*'", "python_version < '3.1*'"),
        ("platform_machine < 'arm64'", "platform_machine < 'arm64'"),
        ("'3.12' > python_version", "'3.12' > python_version"),
    ],
)
def test_a_marker_form_the_doctor_cannot_read_is_refused(marker, clause):
    requirement = f"tensorflow-metal==1.1.0; {marker}"
    with pytest.raises(ValueError) as refused:
        facts.project_pins(f'"{requirement}"', "3.11.9", "Linux", "x86_64")
    assert f'"{clause}"' in str(refused.value) and f'"{requirement}"' in str(refused.value)


def test_two_pins_for_one_package_on_one_machine_are_refused():
    text = '"tensorflow==2.16.2; sys_platform == \'linux\'"\n"tensorflow-cpu==2.15.0"\n'
    with pytest.raises(ValueError, match="tensorflow-cpu==2.15.0"):
        facts.project_pins(text, "3.11.9", "Linux", "x86_64")


ENVIRONMENTS = [
    (python, system, machine)
    for python in ("3.9.6", "3.11.9", "3.12.0", "3.13.1")
    for system, machine in (("Linux", "x86_64"), ("Linux", "aarch64"), ("Darwin", "arm64"),
                            ("Darwin", "x86_64"), ("Windows", "AMD64"))
]  # fmt: skip


def test_markers_read_as_packaging_reads_every_marker_of_pyproject():
    project = tomllib.loads((facts.ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + sum(project["optional-dependencies"].values(), [])
    marked = [Requirement(line) for line in requirements if Requirement(line).marker]
    assert len(marked) >= 6  # the five platform pins and coremltools' `or`
    for python, system, machine in ENVIRONMENTS:
        environment = {
            "python_version": ".".join(python.split(".")[:2]),
            "sys_platform": facts.SYS_PLATFORMS[system],
            "platform_machine": machine,
        }
        for requirement in marked:
            marker = str(requirement.marker)
            ours = facts.marker_holds(marker, str(requirement), python, system, machine)
            assert ours is requirement.marker.evaluate(environment), (marker, environment)


def test_swap_parsers():
    assert facts.mac_swap("total = 0.00M  used = 0.00M  free = 0.00M") == (0, 0)
    assert facts.mac_swap("") == (None, None)
    assert facts.linux_swap(MEMINFO) == (2097148 * 1024, (2097148 - 1048572) * 1024)
    assert facts.linux_swap("MemTotal: 1 kB\n") == (None, None)


def test_real_child_is_stopped_at_the_time_limit():
    run = DoctorProbe().run_python("import time; time.sleep(30)", {}, timeout=0.5)
    assert run.timed_out and run.returncode is None


def test_real_child_crash_does_not_reach_the_doctor():
    code = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
    seen = facts.read_child(DoctorProbe().run_python(code, {}, timeout=20), timeout=20)
    assert seen.returncode == -signal.SIGILL and not seen.ok


def test_real_disk_free(tmp_path):
    assert DoctorProbe().disk_free(str(tmp_path)) > 0
    assert DoctorProbe().disk_free(str(tmp_path / "missing")) is None
