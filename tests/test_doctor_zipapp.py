"""tf-doctor.pyz: one file, standard library only, the same checks as `python -m scripts.doctor`."""

from __future__ import annotations

import ast
import json
import os
import platform
import subprocess
import sys
import venv
import zipfile
from dataclasses import asdict
from pathlib import Path

import pytest

from scripts.doctor import facts, zipapp
from tests.test_doctor_cli import NAMES

SITE = "https://example-owner.github.io/tf-guide/"
CHILD_PROCESS_MODULES = {
    "scripts/doctor/tf_child.py",
    "scripts/tuning/child.py",
    "scripts/tuning/template.py",
}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    return zipapp.build(tmp_path_factory.mktemp("zipapp") / zipapp.NAME, site_url=SITE)


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory) -> Path:
    """A virtual environment with no packages at all (not even pip)."""
    where = tmp_path_factory.mktemp("bare-venv")
    venv.EnvBuilder(with_pip=False).create(where)
    return where / "bin" / "python"


def run(python: Path | str, archive: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run(
        [str(python), str(archive), *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_the_build_is_reproducible(tmp_path):
    first = zipapp.build(tmp_path / "a" / zipapp.NAME)
    second = zipapp.build(tmp_path / "b" / zipapp.NAME)
    assert first.read_bytes() == second.read_bytes()
    assert os.access(first, os.X_OK)


NOT_IN_EVERY_PYTHON = {
    "tomllib", "annotationlib", "compression",  # new in 3.11 (tomllib) and 3.14
    "asynchat", "asyncore", "distutils", "imp", "smtpd",  # removed in 3.12
    "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt", "imghdr", "lib2to3", "mailcap",
    "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib",
    "uu", "xdrlib",  # removed in 3.13
}  # fmt: skip


def test_every_member_is_python_3_9_and_standard_library_only(built):
    # scripts and packaging are in the archive; packaging names typing_extensions only for
    # type checkers (under typing.TYPE_CHECKING), which never runs it.
    # This Python's standard library, less what 3.9 lacks or 3.12 and 3.13 removed (What's New
    # in Python 3.11, 3.12, 3.13 and 3.14: "New Modules", "Removed"): the archive runs on all.
    standard = (set(sys.stdlib_module_names) - NOT_IN_EVERY_PYTHON) | {"scripts", "packaging"}
    with zipfile.ZipFile(built) as archive:
        for name in archive.namelist():
            if not name.endswith(".py"):
                continue
            tree = ast.parse(archive.read(name), filename=name, feature_version=(3, 9))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    tops = [alias.name.split(".")[0] for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    tops = [node.module.split(".")[0]]
                else:
                    continue
                # tensorflow is imported only inside child processes (and the template is
                # text for the reader to copy).
                outside = [
                    t
                    for t in tops
                    if t not in standard
                    and name not in CHILD_PROCESS_MODULES
                    and not (name.startswith("packaging/") and t == "typing_extensions")
                ]
                assert not outside, f"{name} imports {outside}"


def test_in_a_bare_environment_every_check_runs_and_says_what_to_install(
    built, bare_python, tmp_path
):
    done = run(bare_python, built, "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # TensorFlow is missing: a FAIL
    checks = {c["name"]: c for c in json.loads(done.stdout)["checks"]}
    assert list(checks) == NAMES
    assert checks["tensorflow"]["status"] == "FAIL"
    assert "not installed" in checks["tensorflow"]["found"]
    assert "pip install" in checks["tensorflow"]["fix"]
    assert checks["tensorflow import"]["status"] == "SKIP"
    plain = run(bare_python, built, "--plain", cwd=tmp_path)
    assert plain.stdout.startswith("TensorFlow set-up check (python tf-doctor.pyz)")
    assert f"see:  {SITE}setup/" in plain.stdout  # the published page, not a repository path
    assert "Traceback" not in plain.stderr


def test_in_the_project_environment_it_agrees_with_the_module(built, root, tmp_path):
    from_zip = run(sys.executable, built, "--json", cwd=root)
    from_module = subprocess.run(
        [sys.executable, "-m", "scripts.doctor", "--json"], cwd=root,
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert from_zip.returncode == from_module.returncode
    zipped = json.loads(from_zip.stdout)["checks"]
    module = json.loads(from_module.stdout)["checks"]
    assert [(c["name"], c["status"]) for c in zipped] == [(c["name"], c["status"]) for c in module]
    steady = {"python", "architecture", "tensorflow", "tensorflow-metal", "gpu", "keras", "cpu"}
    for ours, theirs in zip(zipped, module, strict=True):
        if ours["name"] in steady:
            assert ours["found"] == theirs["found"], ours["name"]
    # The archive evaluates the pins' markers with the standard library alone (no packaging
    # markers in it); a failure there would leave its pins empty.
    here = facts.project_pins(
        (root / "pyproject.toml").read_text(), platform.python_version(), platform.system(),
        platform.machine(),
    )  # fmt: skip
    pins = json.loads(from_zip.stdout)["facts"]["pins"]
    assert pins == json.loads(from_module.stdout)["facts"]["pins"] == asdict(here)
