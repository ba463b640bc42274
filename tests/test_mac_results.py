"""A Mac's results file is picked up with no code change: claims, pages, validation.

No Mac has run the snippets yet, so the Mac files here are faked: a committed Linux file
with its machine block and software replaced by what a Mac would record (the fakes of
tests/mac_samples.py), and the hosted workflow's measuring steps run with the child
processes replaced by the committed Linux measurements.
"""

from __future__ import annotations

import copy
import shutil

import pytest

from scripts.core import catalog, claims, provenance, software_stack
from scripts.core import store as results
from scripts.findings import claim_rows, results_views
from scripts.findings.pairs import Findings
from scripts.measuring import children, measure, variant_processes
from scripts.rendering import claim_boxes, names, render, results_page, tables
from scripts.results import validate as validate_module
from tests.mac_samples import hosted_runner_mac, m1_pro_with_metal

M1_PRO = "Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB, tensorflow-metal 1.1.0"
HOSTED = "Apple M1 (Virtual), 3-core CPU, 7 GB, CPU only (GitHub-hosted runner)"
MAC_SOFTWARE = {
    "python": "3.11.9",
    "tensorflow": "2.16.2",
    "keras": "3.10.0",
    "numpy": "1.26.4",
    "tensorflow_metal": "1.1.0",
}


def faked_mac_file(linux: dict, probe, devices: list[str], software: dict) -> dict:
    """A committed Linux file (as stored) with the machine block and software of a Mac."""
    data = copy.deepcopy(linux)
    machine = provenance.collect_machine(probe)
    provenance.set_devices(machine, devices)
    data["machine"] = machine
    for session in data["sessions"]:
        session["stack"] = software_stack.name(software)
        for entry in session["entries"].values():
            entry["software"] = dict(software)
    return data


def results_dir_with(tmp_path, committed_files: list[dict], extra: dict):
    """A results directory holding the committed files and one more."""
    directory = tmp_path / "results"
    directory.mkdir()
    for data in committed_files:
        results.write_json_atomic(directory / f"{data['machine']['id']}.json", data)
    results.write_json_atomic(directory / f"{extra['machine']['id']}.json", extra)
    return directory


@pytest.fixture()
def m1_pro_dir(tmp_path, committed_files):
    mac = faked_mac_file(committed_files[0], m1_pro_with_metal(), ["CPU:0", "GPU:0"], MAC_SOFTWARE)
    assert mac["machine"]["description"] == M1_PRO
    return results_dir_with(tmp_path, committed_files, mac)


def test_the_faked_mac_file_validates(m1_pro_dir, root):
    path = m1_pro_dir / "apple-m1-pro-16gpu-macos.json"
    assert validate_module.validate([path], root) == []


def finding_point(data: dict, evidence: dict, root) -> float | None:
    found = claim_rows.evidence_finding(Findings([data]), data, evidence, root)
    return None if found is None else found.point


def test_claim_checks_use_a_mac_file_with_no_code_change(m1_pro_dir, committed_results, root):
    all_data = results_views.load_all(m1_pro_dir)
    mac = next(d for d in all_data if d["machine"]["id"] == "apple-m1-pro-16gpu-macos")
    linux = next(d for d in all_data if d["machine"]["id"] == committed_results[0]["machine"]["id"])
    claim_list = claims.load()
    compared = 0
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            expected = finding_point(linux, evidence, root)
            assert finding_point(mac, evidence, root) == expected, claim["id"]
            compared += expected is not None
    assert compared, "no evidence has current results in the committed file"
    pages = sorted({c["page"] for c in claim_list})
    fragments = [claim_boxes.page_fragment(claim_list, all_data, p, root) for p in pages]
    shown = [text for text in fragments if M1_PRO in text]  # the legend's key to the names
    assert shown, "no claim fragment names the Mac"
    row = f"| {names.machine('apple-m1-pro-16gpu-macos')} | "
    assert any(row in text for text in shown), "no claim table has a row for the Mac"


def test_render_shows_the_mac_on_every_generated_page(m1_pro_dir, root):
    all_data = results_views.load_all(m1_pro_dir)
    rendered = render.render_all(all_data, claims.load(), results_page.load_reference(), root)
    assert M1_PRO in rendered["machines.md"]
    assert "`results/apple-m1-pro-16gpu-macos.json`" in rendered["machines.md"]
    assert "CPU:0, GPU:0" in rendered["machines.md"]
    assert names.machine("apple-m1-pro-16gpu-macos") in rendered["results/measured.md"]
    assert any(M1_PRO in text for name, text in rendered.items() if name.startswith("claims/"))
    tables_with_mac = [
        n for n, text in rendered.items()
        if n.endswith(".table.md") and names.machine("apple-m1-pro-16gpu-macos") in text
    ]  # fmt: skip
    assert tables_with_mac, "no snippet table shows the Mac"
    charts_with_mac = [n for n, text in rendered.items() if n.endswith(".svg") and M1_PRO in text]
    assert charts_with_mac, "no chart has a series for the Mac"


# --- The hosted workflow's measuring steps, on Linux with a faked macOS --------------------


def current_report(linux_files: list[dict], snippet: str, root) -> dict | None:
    """What a child would report for this snippet: a committed file's current entries."""
    for data in linux_files:
        entries = tables.snippet_entries(data, snippet)
        if entries and all(catalog.is_current(e, root) for e in entries):
            return {
                "variants": {e["variant"]: {"stats": e["stats"]} for e in entries},
                "devices": ["CPU:0"],  # the workflow removes tensorflow-metal: CPU only
                "variant_labels": {e["variant"]: e["label"] for e in entries},
                "variant_order": [e["variant"] for e in entries],
                "baseline": entries[0]["baseline"],
                "references": [e["variant"] for e in entries if e.get("reference")],
                "error": None,
            }
    return None


@pytest.mark.end_to_end
def test_the_hosted_workflow_measuring_steps_give_a_file_that_validates_and_renders(
    tmp_path, monkeypatch, committed_results, root
):
    # one machine's entries stand in for every child, so rates and its ceiling agree
    source = max(
        committed_results,
        key=lambda d: sum(catalog.is_current(e, root) for e in d["entries"].values()),
    )
    reports = {
        s.name: current_report([source], s.name, root) for s in catalog.measurable_snippets()
    }
    reports = {name: report for name, report in reports.items() if report}
    assert reports, "no snippet has current committed results to stand in for a child"
    outputs = {
        name: output
        for data in committed_results
        for name, output in data.get("outputs", {}).items()
        if output["snippet_sha256"] == provenance.file_sha256(root / "snippets" / f"{name}.py")
    }

    def collect_machine(probe=None):
        return real_collect(hosted_runner_mac())

    def capture_output(snippet, size, timeout, stack=None):
        text = outputs.get(snippet.name, {}).get("text")
        if text is None:
            variants = reports[snippet.name]["variant_order"]
            text = "".join(f"{v} 1.0 ms/run 1000 examples/s\n" for v in variants)
        return {"text": text, "size": size}

    real_collect = provenance.collect_machine
    software = dict(MAC_SOFTWARE, tensorflow_metal=None)  # the workflow uninstalls it
    monkeypatch.setattr(provenance, "collect_machine", collect_machine)
    monkeypatch.setattr(provenance, "collect_software", lambda probe=None: software)
    monkeypatch.setattr(
        provenance, "git_state", lambda root, probe=None: {"commit": "0" * 40, "dirty": False}
    )
    monkeypatch.setattr(
        variant_processes,
        "measure_snippet",
        lambda snippet, method, args, variants=None: copy.deepcopy(reports[snippet.name]),
    )
    monkeypatch.setattr(children, "capture_output", capture_output)
    monkeypatch.setenv("MEASURE_LOCK", str(tmp_path / "measure.lock"))
    out = tmp_path / "results"
    for data in committed_results:  # the checkout's results/ holds the Linux files
        out.mkdir(exist_ok=True)
        shutil.copy(root / "results" / f"{data['machine']['id']}.json", out)

    only = [arg for name in sorted(reports) for arg in ("--only", name)]
    assert measure.main(["--results-dir", str(out), *only]) == 0

    path = out / "apple-m1-virtual-3cpu-macos-14-github.json"
    data = results_views.view(results.read(path))
    machine = data["machine"]
    assert machine["description"] == HOSTED
    assert machine["hosted_runner"] == "github" and machine["metal_gpu"] is False
    assert machine["tf_devices"] == ["CPU:0"] and machine["gpu_cores"] is None
    assert set(data["entries"]) == {
        f"{s}:{v}" for s, r in reports.items() for v in r["variant_order"]
    }
    # make validate
    assert validate_module.validate(sorted(out.glob("*.json")), root) == []
    # make render
    all_data = results_views.load_all(out)
    rendered = render.render_all(all_data, claims.load(), results_page.load_reference(), root)
    assert HOSTED in rendered["machines.md"]
    assert names.of(data["machine"]) in rendered["results/measured.md"]
    assert any(HOSTED in text for name, text in rendered.items() if name.startswith("claims/"))
