"""`python -m scripts.doctor` run for real on this machine, in odd environments, and its output."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from importlib import metadata
from io import StringIO
from pathlib import Path

import pytest

from scripts.doctor import report, rules
from scripts.doctor.facts import Facts
from scripts.doctor.rules import Check, Status
from tests.test_doctor_rules import linux

# Every rule's check name, in report order: what rules.RULES gives on a healthy Linux machine
# (tests/test_doctor_rules.py), so a new rule needs no second list here.
NAMES = [check.name for check in rules.run_all(linux())]
LINE = re.compile(r"^(PASS|WARN|FAIL|SKIP)  (\S.*?)\s{2,}(\S.*)$")


def doctor(root: Path, env: dict, *args: str, python: list[str] | None = None):
    return subprocess.run(
        [*(python or [sys.executable]), "-m", "scripts.doctor", *args],
        cwd=root, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip


def validate(document: dict) -> list[dict]:
    """The --json schema: a list of checks with name, status, found, fix (plus guide, note, source)."""
    checks = document["checks"]
    assert isinstance(checks, list) and checks
    for check in checks:
        assert set(check) == {"name", "status", "found", "fix", "guide", "note", "source"}
        assert isinstance(check["name"], str) and isinstance(check["found"], str)
        assert check["status"] in ("PASS", "WARN", "FAIL", "SKIP")
        for key in ("fix", "guide", "note", "source"):
            assert check[key] is None or isinstance(check[key], str)
        if check["status"] in ("WARN", "FAIL"):
            assert check["fix"], check
    assert [c["name"] for c in checks] == NAMES
    failed = any(c["status"] == "FAIL" for c in checks)
    assert document["exit_status"] == int(failed)
    assert sum(document["summary"].values()) == len(checks)
    return checks


@pytest.fixture(scope="module")
def real_run(root):
    env = dict(os.environ, PYTHONPATH=str(root))
    done = doctor(root, env, "--json")
    return done, json.loads(done.stdout)


def test_json_is_valid_and_the_exit_status_matches(real_run):
    done, document = real_run
    validate(document)
    assert done.returncode == document["exit_status"]


def test_reports_this_machine(real_run):
    _, document = real_run
    facts = document["facts"]
    checks = {c["name"]: c for c in document["checks"]}
    assert facts["arch"] == platform.machine()
    assert facts["system"] == platform.system()
    assert facts["python"] == platform.python_version()
    assert platform.machine() in checks["architecture"]["found"]
    assert facts["logical_cores"] == os.cpu_count()
    for name, version in facts["packages"].items():
        try:
            assert version == metadata.version(name)
        except metadata.PackageNotFoundError:
            assert version is None, name
    if platform.system() == "Linux":
        cpuinfo = Path("/proc/cpuinfo").read_text()
        assert facts["cpu_model"] in cpuinfo and facts["cpu_model"] in checks["cpu"]["found"]
        for flag in facts["cpu_features"]:
            assert re.search(rf"\b{flag}\b", cpuinfo), flag
        mem_kb = re.search(r"^MemTotal:\s+(\d+) kB", Path("/proc/meminfo").read_text(), re.M)
        assert facts["ram_bytes"] == int(mem_kb.group(1)) * 1024
        assert (
            checks["macos"]["status"] == "SKIP" and checks["tensorflow-metal"]["status"] == "SKIP"
        )


def test_reports_the_installed_tensorflow(real_run):
    _, document = real_run
    tf = document["facts"]["tf"]
    installed = {
        d: v for d, v in document["facts"]["packages"].items() if d.startswith("tensorflow")
    }
    if not any(installed.values()):
        pytest.skip("no TensorFlow in this environment")
    assert tf["ok"] and tf["version"] in installed.values()
    assert "CPU:0" in tf["devices"]
    assert {c["name"]: c["status"] for c in document["checks"]}["tensorflow import"] == "PASS"


def test_plain_output_with_an_unwritable_home(root, tmp_path):
    """One line per check, no colour; a home nothing can be written to (under /dev/null) is fine."""
    page = tmp_path / "output.txt"
    env = dict(os.environ, PYTHONPATH=str(root), HOME="/dev/null/home")
    done = doctor(root, env, "--plain", "--write-page", str(page))
    assert done.returncode == 0, done.stderr  # --write-page always exits 0
    assert "\033[" not in done.stdout and page.read_text() == done.stdout
    lines = [LINE.match(line) for line in done.stdout.splitlines()]
    assert [m.group(2) for m in lines if m] == NAMES
    statuses = {m.group(2): m.group(1) for m in lines if m}
    if statuses["tensorflow"] == "PASS":
        assert statuses["tensorflow import"] == "PASS"


def test_tensorflow_that_crashes_on_import(root, tmp_path):
    """An illegal instruction at import ends the child, not the doctor."""
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{root}")
    done = doctor(root, env, "--json")
    checks = {c["name"]: c for c in validate(json.loads(done.stdout))}
    assert done.returncode == 1
    assert checks["tensorflow import"]["status"] == "FAIL"
    assert "SIGILL" in checks["tensorflow import"]["found"]
    assert checks["gpu"]["status"] == "SKIP"


def test_tensorflow_import_that_hangs_is_stopped(root, tmp_path):
    fake = tmp_path / "tensorflow"
    fake.mkdir()
    (fake / "__init__.py").write_text("import time\ntime.sleep(60)\n")
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{root}")
    done = doctor(root, env, "--json", "--timeout", "1")
    checks = {c["name"]: c for c in validate(json.loads(done.stdout))}
    assert done.returncode == 1
    assert "did not finish within 1 s" in checks["tensorflow import"]["found"]


def test_without_any_site_packages(root):
    """`python -S`: no TensorFlow, no Keras, nothing installed; the doctor still answers."""
    env = dict(os.environ, PYTHONPATH=str(root))
    done = doctor(root, env, "--json", python=[sys.executable, "-S"])
    checks = {c["name"]: c for c in validate(json.loads(done.stdout))}
    assert done.returncode == 1
    assert (
        checks["tensorflow"]["status"] == "FAIL"
        and "not installed" in checks["tensorflow"]["found"]
    )
    assert checks["tensorflow import"]["status"] == "SKIP"


def test_colour_only_on_a_terminal(monkeypatch):
    checks = [Check("python", Status.PASS, "3.11"), Check("disk", Status.FAIL, "full", fix="rm")]
    coloured = report.to_text(checks, colour=True)
    assert "\033[32mPASS\033[0m" in coloured and "\033[1;31mFAIL\033[0m" in coloured
    assert "\033[" not in report.to_text(checks)
    assert report.use_colour(StringIO()) is False

    class Terminal(StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert report.use_colour(Terminal()) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert report.use_colour(Terminal()) is False


def test_text_shows_fix_and_guide_under_a_failure():
    check = Check(
        "tensorflow", Status.FAIL, "not installed", fix="pip install x", guide="docs/setup.md"
    )
    text = report.to_text([check])
    assert "FAIL  tensorflow  not installed\n" in text
    assert "              fix:  pip install x\n" in text
    assert "              see:  docs/setup.md\n" in text
    assert "1 FAIL, 0 WARN, 0 PASS, 0 SKIP (exit status 1)" in text


def test_json_of_faked_facts_validates():
    checks = rules.run_all(Facts())
    document = json.loads(report.to_json(checks, Facts()))
    validate(document)
