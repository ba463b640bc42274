"""make compare: shared speed-ups side by side, their drift, and the flags."""

from __future__ import annotations

import copy
import json

import pytest

from scripts import compare
from scripts.core import claims
from scripts.core import store as results
from scripts.findings import claim_rows, comparison
from scripts.findings.pairs import Findings
from scripts.measuring import versus_guide
from scripts.rendering import drift_table


@pytest.fixture()
def data(committed_results) -> dict:
    return copy.deepcopy(committed_results[0])


def test_a_file_against_itself_drifts_nowhere(data):
    rows = comparison.compare(data, data, claims.load())
    assert rows and all(r.drift_percent == 0 and r.inside and not r.flags for r in rows)
    claimed = {(e["variant"], e["baseline"]) for c in claims.load() for e in c.get("evidence", [])
               if e.get("baseline_stat", "median_s") == "median_s"}  # fmt: skip
    present = {pair for pair in claimed if all(k in data["entries"] for k in pair)}
    assert sum(r.claim for r in rows) == len(present)


def test_a_slower_variant_shows_its_drift_and_is_flagged(data):
    slower = copy.deepcopy(data)
    entry = next(e for e in slower["entries"].values() if e["variant"] != e["baseline"])
    entry["stats"]["times_s"] = [t * 1.5 for t in entry["stats"]["times_s"]]
    entry["stats"]["median_s"] *= 1.5
    rows = {r.key: r for r in comparison.compare(data, slower, [])}
    key = f"{entry['snippet']}:{entry['variant']} vs {entry['baseline']}"
    assert rows[key].drift_percent == pytest.approx(-100 / 3)
    assert "beyond ±10%" in rows[key].flags
    assert [r.key for r in rows.values() if r.flags] == [key]
    assert "1 drift more than ±10%" in drift_table.summary(list(rows.values()))


def test_the_cli_prints_the_table_and_names_a_bad_file(tmp_path, committed_files, capsys):
    data = committed_files[0]
    good = tmp_path / f"{data['machine']['id']}.json"
    results.write_json_atomic(good, data)
    assert compare.main([str(good), str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| Speed-up | Claim | A:") and "shared speed-ups" in out
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema_version": 1}))
    assert compare.main([str(good), str(broken)]) == 2
    assert str(broken) in capsys.readouterr().err


def test_measure_quick_picks_the_claims_pairs():
    from scripts.core import catalog
    from scripts.measuring import measure

    feeding = catalog.Snippet("input_pipeline/feeding", catalog.SNIPPETS_DIR / "x.py")
    chosen = measure.claim_variants(feeding, claims.load())
    assert {"generator_loop", "train_only", "generator_prefetch", "tensor_slices_fit"} <= set(
        chosen
    )
    assert "produce_only" not in chosen  # in no claim's evidence
    nothing = catalog.Snippet("versions/fused_dense", catalog.SNIPPETS_DIR / "x.py")
    assert measure.claim_variants(nothing, claims.load()) == []


def test_your_machine_vs_the_guide_lists_every_claim_speedup(committed_results):
    mine, *_ = committed_results
    text = versus_guide.versus_the_guide(mine, committed_results)
    others = [d for d in committed_results if d is not mine]
    header = next(line for line in text.splitlines() if line.startswith("| Claim |"))
    assert header.count("|") == 4 + len(others)  # this machine plus every other one
    findings = Findings([mine])
    shown = sum(1 for c in claims.load() for e in c.get("evidence", [])
                if claim_rows.evidence_finding(findings, mine, e) is not None)  # fmt: skip
    rows = [
        line for line in text.splitlines() if line.startswith("| C") and "| Claim |" not in line
    ]
    assert len(rows) == shown


def test_a_quick_run_is_compared_with_the_guides_figures_of_its_own_stack(tmp_path, root):
    """make measure-quick STACK=x sets this machine's figures beside the guide's on stack x
    only: a file whose sessions are all of another stack adds no column."""
    import shutil

    from scripts.core import store
    from scripts.measuring import run_summary

    first = root / "results" / "amd-epyc-2cpu-linux.json"
    second = root / "results" / "intel-xeon-2cpu-linux.json"
    shutil.copy(first, tmp_path / first.name)
    data = store.read(second)
    for session in data["sessions"]:  # the second machine measured only the newest stack
        session["stack"] = "tf221-keras3"
        for entry in session["entries"].values():
            entry["software"] = {**entry["software"], "tensorflow": "2.21.0", "keras": "3.15.1"}
    (tmp_path / second.name).write_text(json.dumps(data))

    def columns(text: str) -> str:
        return next(line for line in text.splitlines() if line.startswith("| Claim |"))

    amd, intel = (store.read(path)["machine"]["description"] for path in (first, second))
    keras3 = run_summary.versus_the_guide_on("tf216-keras3", tmp_path / first.name, tmp_path)
    assert keras3.startswith("Stack tf216-keras3:") and intel not in columns(keras3)
    newest = run_summary.versus_the_guide_on("tf221-keras3", tmp_path / second.name, tmp_path)
    assert newest.startswith("Stack tf221-keras3:") and amd not in columns(newest)
