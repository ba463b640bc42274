"""make contribute: the noise check, the steps, the pull-request description, and the
Contribute page's commands run on a temporary copy of the repository."""

from __future__ import annotations

import copy
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from scripts import contribute
from scripts.core import claims, outcomes, provenance
from scripts.core import store as results
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings
from tests.mac_samples import (
    PMSET_BATT_AC,
    PMSET_BATT_BATTERY,
    PMSET_G_LOWPOWERMODE,
    PMSET_G_POWERMODE,
    FakeMac,
    hosted_runner_mac,
    m1_pro_with_metal,
)
from tests.test_mac_results import MAC_SOFTWARE, faked_mac_file


class FakeLinux(provenance.Probe):
    def system(self):
        return "Linux"

    def cpu_count(self):
        return 2

    def read(self, path):
        return None  # no cpufreq files: a container, say

    def run(self, args, timeout=5.0):
        # Only the process list is asked for on Linux; the Mac's pmset never is.
        assert args[0] == "ps", f"no other command should run on Linux: {args}"
        return ""


def mac(batt: str | None, pmset: str | None) -> FakeMac:
    probe = FakeMac()
    probe.outputs.update({"pmset -g batt": batt, "pmset -g": pmset})
    return probe


# --- the noise check ---------------------------------------------------------------------


def test_a_quiet_machine_gets_no_warning():
    assert contribute.noise_warnings(FakeLinux(), loadavg=lambda: (0.3, 0.5, 0.5)) == []
    quiet_mac = mac(PMSET_BATT_AC, PMSET_G_LOWPOWERMODE)
    assert contribute.noise_warnings(quiet_mac, loadavg=lambda: (2.0, 2.0, 2.0)) == []


def test_a_busy_machine_is_warned_not_refused():
    [warning] = contribute.noise_warnings(FakeLinux(), loadavg=lambda: (1.7, 1.0, 1.0))
    assert "1.7 on 2 cores" in warning and "Close them" in warning


def test_a_mac_on_battery_in_low_power_mode_gets_both_warnings():
    low = PMSET_G_POWERMODE.replace("powermode            0", "powermode            1")
    warnings = contribute.noise_warnings(mac(PMSET_BATT_BATTERY, low), loadavg=lambda: (0.1,) * 3)
    assert len(warnings) == 2
    assert "drawing from Battery Power" in warnings[0] and "connect it to power" in warnings[0]
    assert "Low Power Mode is on" in warnings[1]


def test_the_noise_check_survives_missing_tools_and_load_average():
    def no_loadavg():
        raise OSError("getloadavg unavailable")

    assert contribute.noise_warnings(mac(None, None), loadavg=no_loadavg) == []


# --- the pull-request description ---------------------------------------------------------


@pytest.fixture()
def hosted_file(committed_files, committed_results) -> dict:
    """A faked hosted-runner file as the pages read it (widened by the guide's spread)."""
    software = dict(MAC_SOFTWARE, tensorflow_metal=None)
    raw = faked_mac_file(committed_files[0], hosted_runner_mac(), ["CPU:0"], software)
    return results_views.view(raw, committed_results[0]["spread"])


def measured(data: dict, evidence: dict, root):
    """The evidence's finding in this file (findings stage), or None."""
    return claim_rows.evidence_finding(Findings([data]), data, evidence, root)


def measured_evidence(data: dict, root) -> tuple[dict, dict]:
    """A claim and one of its evidence items this file has current results for."""
    for claim in claims.load():
        for evidence in claim.get("evidence", []):
            if not evidence.get("analogue") and measured(data, evidence, root):
                return claim, evidence
    raise AssertionError("no claim evidence is measured in the committed file")


def test_the_description_names_the_machine_and_agreeing_claims(hosted_file, root):
    text = contribute.pr_description(hosted_file, claims.load(), root, notes=["make test: success"])
    assert text.startswith(
        "## Results from Apple M1 (Virtual), 3-core CPU, 7 GB, CPU only (GitHub-hosted runner)\n"
    )
    for row in ("| OS | macOS 14.7.6 |", "| TensorFlow devices | CPU:0 |",
                "| Software | TensorFlow 2.16.2, Keras 3.10.0, Python 3.11.9 |",
                "| Power | AC Power |", "| Low Power Mode | off |", "| Hosted runner | github |",
                "| Results file | `results/apple-m1-virtual-3cpu-macos-14-github.json` |"):  # fmt: skip
        assert row in text, row
    entries = hosted_file["entries"].values()
    noisy = sum(1 for e in entries if e["stats"].get("noisy"))
    snippets = len({e["snippet"] for e in entries})
    assert (
        f"| Entries | {len(entries)} variants of {snippets} snippets, {noisy} marked noisy |"
        in text
    )
    assert "None: every claim measured here agrees" in text
    assert text.rstrip().endswith("- make test: success")


def test_a_contradicted_and_an_unmeasured_claim_are_listed(hosted_file, root):
    claim, evidence = measured_evidence(hosted_file, root)
    data = copy.deepcopy(hosted_file)
    # Make the variant 1000 times slower in every session: outside any range a verdict allows.
    for session in data["sessions"]:
        entry = session["entries"].get(evidence["variant"])
        if entry is not None:
            entry["stats"]["median_s"] *= 1000
            entry["stats"]["times_s"] = [t * 1000 for t in entry["stats"]["times_s"]]
    found = measured(data, evidence, root)
    assert found.outcome(evidence) == outcomes.CONTRADICTED
    ratio = found.point
    other_claim, other = next(
        (c, e) for c in claims.load() for e in c.get("evidence", [])
        if e["variant"] not in (evidence["variant"], evidence["baseline"])
        and e["baseline"] not in (evidence["variant"], evidence["baseline"])
        and measured(data, e, root)
    )  # fmt: skip
    del data["entries"][other["variant"]]

    contradicted, not_measured = contribute.claim_findings(data, claims.load(), root)
    assert any(item.startswith(f"{claim['id']} ({claim['verdict']})") and f"{ratio:.2f}×" in item
               for item in contradicted)  # fmt: skip
    assert any(item.startswith(f"{other_claim['id']} ") for item in not_measured)
    text = contribute.pr_description(data, claims.load(), root)
    assert f"- {claim['id']} ({claim['verdict']})" in text
    assert "the verdict needs" in text and "`make test` fails on them" in text


def test_text_from_the_results_file_is_escaped(hosted_file, root):
    data = copy.deepcopy(hosted_file)
    data["machine"]["description"] = "M1 *bold* [x](y) <b>"
    text = contribute.pr_description(data, [], root)
    assert "M1 \\*bold\\* \\[x\\](y) &lt;b&gt;" in text and "<b>" not in text


def test_describe_prints_the_description_of_a_file(tmp_path, hosted_file, capsys):
    path = tmp_path / "apple-m1-virtual-3cpu-macos-14-github.json"
    stored = {"schema_version": 2, "machine": hosted_file["machine"]}
    results.write_json_atomic(path, {**stored, "sessions": hosted_file["sessions"]})
    assert (
        contribute.main(["--describe", str(path), "--note", "make test: failure on macos-14"]) == 0
    )
    out = capsys.readouterr().out
    assert "## Results from Apple M1 (Virtual)" in out and "- make test: failure on macos-14" in out
    path.write_text("{}")
    assert contribute.main(["--describe", str(path)]) == 2


# --- the steps ------------------------------------------------------------------------------


def test_dry_run_prints_the_steps_and_runs_nothing(monkeypatch, capsys):
    def refuse(*args, **kwargs):
        raise AssertionError(f"--dry-run ran {args}")

    monkeypatch.setattr(contribute.subprocess, "run", refuse)
    monkeypatch.setattr(contribute, "this_machine_results",
                        lambda: contribute.ROOT / "results" / "apple-m1-pro-16gpu-macos.json")  # fmt: skip
    assert contribute.main(["--dry-run"]) == 0
    out = capsys.readouterr().out
    for command in ("make measure", "make validate", "make render", "make test"):
        assert command in out
    assert "results/apple-m1-pro-16gpu-macos.json" in out and "Nothing was run" in out


@pytest.fixture()
def fake_steps(tmp_path, monkeypatch, committed_files):
    """make contribute with each `make` replaced: measure writes a faked M1 Pro file."""
    path = tmp_path / "apple-m1-pro-16gpu-macos.json"
    mac_data = faked_mac_file(
        committed_files[0], m1_pro_with_metal(), ["CPU:0", "GPU:0"], MAC_SOFTWARE
    )
    codes: dict[str, int] = {}
    ran: list[str] = []

    def run(command, cwd=None, check=False):
        target = command[1]
        ran.append(target)
        if target == "measure":
            results.write_json_atomic(path, mac_data)
        return subprocess.CompletedProcess(command, codes.get(target, 0))

    monkeypatch.setattr(contribute.subprocess, "run", run)
    monkeypatch.setattr(contribute, "this_machine_results", lambda: path)
    monkeypatch.setattr(
        contribute, "noise_warnings", lambda: ["The Mac is drawing from Battery Power."]
    )
    monkeypatch.setattr(
        contribute,
        "files_to_commit",
        lambda: [f"results/{path.name}", "docs/_generated/machines.md"],
    )
    return codes, ran


def test_the_whole_path_prints_files_and_description(fake_steps, capsys):
    codes, ran = fake_steps
    assert contribute.main([]) == 0
    assert ran == ["measure", "validate", "render", "test"]
    out = capsys.readouterr().out
    assert "WARNING: The Mac is drawing from Battery Power." in out
    assert "  results/apple-m1-pro-16gpu-macos.json\n  docs/_generated/machines.md" in out
    assert "git add " in out and "docs/_generated/" in out
    assert (
        "## Results from Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB, tensorflow-metal 1.1.0"
        in out
    )
    assert "- Before measuring: The Mac is drawing from Battery Power." in out


def test_failing_tests_are_reported_not_hidden(fake_steps, capsys):
    codes, ran = fake_steps
    codes["test"] = 1
    assert contribute.main([]) == 1
    assert "- `make test` failed (exit status 1) on this machine." in capsys.readouterr().out


def test_an_invalid_file_stops_the_path(fake_steps, capsys):
    codes, ran = fake_steps
    codes["validate"] = 1
    assert contribute.main([]) == 1
    assert ran == ["measure", "validate"]
    out = capsys.readouterr().out
    assert "an invalid file is not accepted" in out and "## Results from" not in out


# --- the Contribute page's commands, on a copy of the repository ---------------------------

CHEAP_COMMANDS = ('make contribute ARGS="--dry-run"', "make validate", "make render")


def page_commands(root: Path) -> list[str]:
    """Every `$ ` line of the page's console blocks."""
    page = (root / "docs" / "contribute.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```console\n(.*?)^```", page, flags=re.MULTILINE | re.DOTALL)
    return [
        line[2:].strip() for block in blocks for line in block.splitlines() if line.startswith("$ ")
    ]


def test_the_page_walks_through_the_whole_path(root):
    commands = page_commands(root)
    expected = ["make doctor", *CHEAP_COMMANDS[:1], "make contribute", "make measure",
                "make validate", "make render", "make test"]  # fmt: skip
    positions = [commands.index(command) for command in expected]
    assert positions == sorted(positions), commands
    assert any(c.startswith("git push") for c in commands)
    assert "REPOSITORY_URL/compare" in (root / "docs" / "contribute.md").read_text()


@pytest.fixture()
def repository_copy(tmp_path, root) -> Path:
    """The working tree and its git history in a temporary directory, sharing .venv."""
    copy_dir = tmp_path / "repo"
    ignore = shutil.ignore_patterns(".venv*", "site", "build", "test-output", "*.egg-info",
                                    "__pycache__", ".pytest_cache", ".ruff_cache", "*.lock")  # fmt: skip
    shutil.copytree(root, copy_dir, ignore=ignore, symlinks=True)
    (copy_dir / ".venv").symlink_to(root / ".venv")
    stamp = root / ".venv" / ".installed-stamp"
    if not stamp.exists():
        pytest.skip("no .venv/.installed-stamp: run `make venv` first")
    # `make` must find the environment up to date, or it would reinstall it (network).
    older = stamp.stat().st_mtime - 60
    os.utime(copy_dir / "pyproject.toml", (older, older))
    question = subprocess.run(["make", "-q", ".venv/.installed-stamp"], cwd=copy_dir, check=False)
    if question.returncode != 0:
        pytest.skip("make would rebuild .venv in the copy; not done in a test")
    return copy_dir


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.json"))}


@pytest.mark.end_to_end
def test_the_pages_cheap_commands_run_on_a_copy_of_the_repository(repository_copy, root):
    commands = page_commands(root)
    for command in CHEAP_COMMANDS:
        assert command in commands, f"docs/contribute.md no longer shows `{command}`"
    outputs = {}
    for command in CHEAP_COMMANDS:
        done = subprocess.run(command, shell=True, cwd=repository_copy, capture_output=True,
                              text=True, timeout=600, check=False)  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
        outputs[command] = done.stdout
    assert "Nothing was run (--dry-run)." in outputs[CHEAP_COMMANDS[0]]
    assert re.search(r"\d+ results file\(s\) valid", outputs["make validate"])
    assert "rendered " in outputs["make render"]
    # The dry run measured nothing: results/ is as it was.
    assert snapshot(repository_copy / "results") == snapshot(root / "results")


def test_the_measure_step_names_the_stack_asked_for(tmp_path):
    """make contribute STACK=... measures that stack, and the plan says which."""
    from scripts import contribute

    plan = contribute.plan(tmp_path / "m.json", "tf216-tf-keras")
    assert "make measure STACK=tf216-tf-keras" in plan and "stack tf216-tf-keras" in plan
    assert contribute.steps()[0][1] == ["make", "measure", "STACK=tf216-keras3"]
    with pytest.raises(SystemExit):
        contribute.parse_args(["--stack", "tf99"])
