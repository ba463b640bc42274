"""make compare: shared speed-ups side by side, their drift, and the flags."""

from __future__ import annotations

import copy
import json

import pytest

from scripts import claims, compare, results


@pytest.fixture()
def data(committed_results) -> dict:
    return copy.deepcopy(committed_results[0])


def test_a_file_against_itself_drifts_nowhere(data):
    rows = compare.compare(data, data, claims.load())
    assert rows and all(r.drift_percent == 0 and r.overlap and not r.flagged for r in rows)
    claimed = {(e["variant"], e["baseline"]) for c in claims.load() for e in c.get("evidence", [])
               if e.get("baseline_stat", "median_s") == "median_s"}  # fmt: skip
    present = {pair for pair in claimed if all(k in data["entries"] for k in pair)}
    assert sum(r.claim for r in rows) == len(present)


def test_a_slower_variant_shows_its_drift_and_is_flagged(data):
    slower = copy.deepcopy(data)
    entry = next(e for e in slower["entries"].values() if e["variant"] != e["baseline"])
    entry["stats"]["times_s"] = [t * 1.5 for t in entry["stats"]["times_s"]]
    entry["stats"]["median_s"] *= 1.5
    rows = {r.key: r for r in compare.compare(data, slower, [])}
    key = f"{entry['snippet']}:{entry['variant']} vs {entry['baseline']}"
    assert rows[key].drift_percent == pytest.approx(-100 / 3)
    assert rows[key].flagged
    assert [r.key for r in rows.values() if r.flagged] == [key]
    assert "1 drift more than ±10%" in compare.summary(list(rows.values()))


def test_the_cli_prints_the_table_and_names_a_bad_file(tmp_path, data, capsys):
    good = tmp_path / f"{data['machine']['id']}.json"
    results.write_json_atomic(good, data)
    assert compare.main([str(good), str(good)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| Speed-up | Claim | A:") and "shared speed-ups" in out
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"schema_version": 1}))
    assert compare.main([str(good), str(broken)]) == 2
    assert str(broken) in capsys.readouterr().err
