"""The lock (requirements.txt): what `make venv` installs, with hashes, and nothing else.

`make lock` writes it from pyproject.toml's ranges (uv pip compile --universal), for Linux
x86-64, Linux aarch64 and macOS arm64 on Python 3.11 and 3.12. These tests hold the
environment they run in (.venv, built from the lock) to it, and the lock to pyproject.toml.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.txt"
PROJECT = "tf-apple-silicon-guide"
# What `python -m venv` puts into every environment before the lock is installed.
VENV_SEED = {"pip"}
# The platforms and Pythons the lock is for (Makefile, pyproject's [tool.uv] environments).
TARGETS = [
    {"sys_platform": sys_platform, "platform_machine": machine, "platform_system": system,
     "python_version": python, "python_full_version": f"{python}.0", "implementation_name": "cpython"}
    for sys_platform, machine, system in (
        ("linux", "x86_64", "Linux"), ("linux", "aarch64", "Linux"), ("darwin", "arm64", "Darwin"),
    )
    for python in ("3.11", "3.12")
]  # fmt: skip
ENTRY = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)\s*(?:;\s*([^\\]*?))?\s*\\?$")


def lock_entries() -> list[tuple[str, Version, Marker | None, list[str]]]:
    """(name, version, marker, hashes) for every package the lock pins."""
    entries = []
    for block in re.split(r"\n(?=[A-Za-z0-9])", LOCK.read_text(encoding="utf-8")):
        first, *rest = block.splitlines()
        match = ENTRY.match(first)
        if not match:
            continue
        name, version, marker = match.groups()
        hashes = re.findall(r"--hash=(sha256:[0-9a-f]{64})", block)
        entries.append(
            (canonicalize_name(name), Version(version), Marker(marker) if marker else None, hashes)
        )
    assert entries, f"no pinned packages in {LOCK.name}"
    return entries


def applies(marker: Marker | None, environment: dict | None = None) -> bool:
    return marker is None or marker.evaluate(environment)


def direct_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project.get("optional-dependencies", {})
    return [Requirement(r) for r in project["dependencies"] + sum(extras.values(), [])]


def test_every_locked_package_has_hashes_and_one_version_per_platform():
    entries = lock_entries()
    assert all(hashes for *_, hashes in entries), [e[0] for e in entries if not e[3]]
    for target in TARGETS:
        names = [name for name, _, marker, _ in entries if applies(marker, target)]
        duplicated = {n for n in names if names.count(n) > 1}
        assert not duplicated, (target, duplicated)


def test_this_environment_has_exactly_the_locked_versions():
    """pip freeze of the environment the tests run in against the lock's entries for it."""
    expected = {name: str(v) for name, v, marker, _ in lock_entries() if applies(marker)}
    removed = {canonicalize_name(n) for n in os.environ.get("UNINSTALLED_FROM_LOCK", "").split()}
    frozen = subprocess.run(
        [sys.executable, "-m", "pip", "freeze", "--all"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    installed = {}
    for line in frozen.splitlines():
        name, _, version = line.partition("==")
        if version:
            installed[canonicalize_name(name)] = version
        elif " @ " in line:
            installed[canonicalize_name(line.split(" @ ")[0])] = "(from a path)"
    wrong = {n: (v, installed.get(n)) for n, v in expected.items()
             if n not in removed and installed.get(n) != v}  # fmt: skip
    extra = set(installed) - set(expected) - VENV_SEED - {PROJECT}
    assert not wrong, (
        f"locked version != installed one (lock, installed): {wrong}; "
        "rm -rf .venv and run make test again to rebuild it from the lock"
    )
    assert not extra, f"installed but not in {LOCK.name}: {sorted(extra)} (rm -rf .venv)"
    assert PROJECT in installed, "the project itself is not installed (make venv installs it)"


def test_pyproject_ranges_admit_every_locked_version_of_a_direct_dependency():
    requirements = direct_requirements()
    by_name: dict[str, list[Requirement]] = {}
    for requirement in requirements:
        by_name.setdefault(canonicalize_name(requirement.name), []).append(requirement)
    locked = [e for e in lock_entries() if e[0] in by_name]
    for name, version, _, _ in locked:
        assert any(r.specifier.contains(version, prereleases=True) for r in by_name[name]), (
            f"{name} {version} is locked but pyproject.toml asks for "
            f"{[str(r.specifier) for r in by_name[name]]}: run make lock"
        )


@pytest.mark.parametrize(
    "target",
    TARGETS,
    ids=lambda t: f"{t['sys_platform']}-{t['platform_machine']}-{t['python_version']}",
)
def test_the_lock_covers_every_direct_dependency_on_every_platform(target):
    """Each requirement that applies on a platform has a locked version there that it admits."""
    entries = lock_entries()
    for requirement in direct_requirements():
        if requirement.marker and not requirement.marker.evaluate(target):
            continue
        versions = [v for name, v, marker, _ in entries
                    if name == canonicalize_name(requirement.name) and applies(marker, target)]  # fmt: skip
        assert versions, f"{requirement} is not in {LOCK.name} for {target}: run make lock"
        assert all(requirement.specifier.contains(v, prereleases=True) for v in versions), (
            requirement,
            versions,
        )


def test_make_installs_the_lock_with_hashes_then_the_project_alone():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^LOCK\s*:= requirements\.txt$", makefile, re.MULTILINE)
    assert "uv pip install --quiet --python $(BIN)/python --require-hashes" in makefile
    assert "-r $(LOCK)" in makefile
    assert "--no-deps --no-build-isolation ." in makefile
    assert re.search(r"^lock:", makefile, re.MULTILINE), "make lock refreshes the lock"
