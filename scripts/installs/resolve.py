"""Ask pip's own resolver what an install command installs on a reader's platform and Python.

Each run is `pip install --dry-run --report` against PyPI with `--platform`, `--python-version`
and `--only-binary=:all:`, in a process that sees only pip and a folder of stand-in records of
the packages the reader's environment already holds (pip_runner.py). Nothing is installed.
Needs the network; the tests read the committed record instead.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from scripts.core import project_files
from scripts.installs.commands import Step, canonical

INDEX = "https://pypi.org/simple"
# The pip that resolves, fetched once (by hash) into build/: pip 23.2, which a new venv may
# bring, refuses --platform without --target, and --target hides the installed packages.
PIP = "26.3"
PIP_SHA256 = "f3b60b20ffaadd4415ed7957212a38ac63fa4c5fa375bd0f4a797777940fad13"
PIP_FOLDER = project_files.ROOT / "build" / "commands-record"
RUNNER = Path(__file__).with_name("pip_runner.py")
TIMEOUT_S = 300.0
# The platforms a command is resolved for: pip's --platform tags and the marker environment
# pip would compute on such a machine (platform_release is macOS 14's Darwin kernel).
PLATFORMS = {
    "macos-arm64": {
        "tags": ["macosx_14_0_arm64"],
        "markers": {"sys_platform": "darwin", "platform_system": "Darwin",
                    "platform_machine": "arm64", "platform_release": "23.0.0"},
    },
    "linux-x86_64": {
        "tags": [f"manylinux_2_{glibc}_x86_64" for glibc in range(35, 16, -1)]
        + ["manylinux2014_x86_64"],
        "markers": {"sys_platform": "linux", "platform_system": "Linux",
                    "platform_machine": "x86_64", "platform_release": ""},
    },
    "linux-aarch64": {
        "tags": [f"manylinux_2_{glibc}_aarch64" for glibc in range(35, 16, -1)]
        + ["manylinux2014_aarch64"],
        "markers": {"sys_platform": "linux", "platform_system": "Linux",
                    "platform_machine": "aarch64", "platform_release": ""},
    },
}  # fmt: skip


class ResolveError(RuntimeError):
    """pip found no set of packages for the command (its last error lines say why)."""


@dataclass(frozen=True)
class Installed:
    """One package in the environment: its version and the requirements pip reads from it."""

    version: str
    requires: tuple[str, ...] = ()


Environment = dict[str, Installed]


def marker_environment(platform: str, python: str) -> dict[str, str]:
    """PEP 508's marker variables as pip computes them on that platform under CPython X.Y."""
    return {
        "implementation_name": "cpython",
        "implementation_version": f"{python}.0",
        "os_name": "posix",
        "platform_python_implementation": "CPython",
        "platform_version": "",
        "python_full_version": f"{python}.0",
        "python_version": python,
        **PLATFORMS[platform]["markers"],
    }


def pip_wheel() -> Path:
    """pip's wheel at the pinned version and hash, downloaded by this Python's pip once."""
    wheel = PIP_FOLDER / f"pip-{PIP}-py3-none-any.whl"
    if wheel.exists():
        return wheel
    if importlib.util.find_spec("pip") is None:
        raise ResolveError("this Python has no pip to fetch the resolver's pip with")
    PIP_FOLDER.mkdir(parents=True, exist_ok=True)
    pinned = PIP_FOLDER / "pip-requirement.txt"
    pinned.write_text(f"pip=={PIP} --hash=sha256:{PIP_SHA256}\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
         "--only-binary=:all:", "--index-url", INDEX, "-r", str(pinned), "-d", str(PIP_FOLDER)],
        capture_output=True, text=True, env=_clean_env(), timeout=TIMEOUT_S, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not wheel.exists():
        raise ResolveError(f"could not download pip {PIP}: {done.stderr.strip()[-300:]}")
    return wheel


def _write_site(site: Path, environment: Environment) -> None:
    """Stand-in .dist-info records: enough for pip to see a package as installed."""
    for name, package in environment.items():
        info = site / f"{name.replace('-', '_')}-{package.version}.dist-info"
        info.mkdir(parents=True)
        lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {package.version}"]
        lines += [f"Requires-Dist: {requirement}" for requirement in package.requires]
        (info / "METADATA").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (info / "INSTALLER").write_text("pip\n", encoding="utf-8")


def _clean_env() -> dict[str, str]:
    """This process's environment without pip's settings, and no pip configuration file."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def run_pip(args: list[str], platform: str, python: str, environment: Environment) -> dict:
    """One `pip install --dry-run --report -` with these arguments; pip's JSON report."""
    tags = [option for tag in PLATFORMS[platform]["tags"] for option in ("--platform", tag)]
    with tempfile.TemporaryDirectory(prefix="install-record-") as folder:
        site = Path(folder) / "site"
        site.mkdir()
        _write_site(site, environment)
        markers = json.dumps(marker_environment(platform, python))
        command = [
            sys.executable, "-I", "-S", str(RUNNER), str(pip_wheel()), str(site), markers, "--",
            "install", "--dry-run", "--quiet", "--report", "-", "--no-input",
            "--index-url", INDEX, "--only-binary=:all:", "--python-version", python, *tags,
            *args,
        ]  # fmt: skip
        done = subprocess.run(
            command, capture_output=True, text=True, env=_clean_env(), timeout=TIMEOUT_S,
            check=False, cwd=folder,
        )  # fmt: skip
    if done.returncode != 0:
        tail = [line for line in done.stderr.splitlines() if line.strip()][-3:]
        raise ResolveError(" | ".join(tail) or f"pip exited with {done.returncode}")
    return json.loads(done.stdout)


def apply_install(report: dict, environment: Environment) -> Environment:
    """The environment after pip installs what its report lists."""
    after = dict(environment)
    for item in report.get("install", []):
        meta = item["metadata"]
        after[canonical(meta["name"])] = Installed(
            meta["version"], tuple(meta.get("requires_dist") or ())
        )
    return after


def resolve_steps(
    steps: list[Step], platform: str, python: str, environment: Environment
) -> Environment:
    """Run a command's steps in order: uninstalls drop packages, installs ask pip."""
    for step in steps:
        if step.action == "uninstall":
            environment = {k: v for k, v in environment.items() if k not in step.packages}
        else:
            report = run_pip(step.args, platform, python, environment)
            environment = apply_install(report, environment)
    return environment
