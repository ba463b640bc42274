"""The sweep that picks the batch of the MLP case's better variant (benchmarks/tune/batch_plateau.py):
its rule, that it measures, that a committed run is checked before it reaches the page, and that
the case uses the batch the committed run chose."""

from __future__ import annotations

import copy
import json

import pytest

from benchmarks.tune import batch_plateau, validation


def gain(point: float, low: float, high: float) -> dict:
    return {"point": point, "low": low, "high": high}


def row(batch: int, **gains: dict) -> dict:
    return {"batch": batch, "median_s": 1.0, "gains": gains}


def test_the_rule_takes_the_smallest_batch_where_neither_larger_batch_gains_5_percent():
    rows = [
        row(8192, x2=gain(1.01, 1.00, 1.02), x4=gain(1.01, 1.00, 1.02)),  # not the first in order
        row(1024, x2=gain(1.30, 1.20, 1.36), x4=gain(1.50, 1.40, 1.60)),
        row(2048, x2=gain(1.02, 1.00, 1.04), x4=gain(1.04, 1.02, 1.06)),  # point below, high above
        row(4096, x2=gain(1.03, 1.01, 1.04), x4=gain(1.04, 1.03, 1.05)),  # high at 1.05: not below
        row(6144, x2=gain(1.03, 1.01, 1.04), x4=gain(1.04, 1.03, 1.049)),
    ]
    assert batch_plateau.chosen(rows) == 6144


def test_the_rule_needs_both_larger_batches_measured():
    levelled = gain(1.01, 1.00, 1.02)
    assert batch_plateau.chosen([row(65536, x2=levelled), row(131072), row(262144)]) is None
    assert not batch_plateau.levelled(row(1024, x4=levelled))


def test_the_sweep_measures_gains_as_ratios_of_median_run_times():
    found = batch_plateau.measure(0.0, ladder=(32, 64, 128), examples=256)
    assert found["rounds"] == batch_plateau.MIN_ROUNDS
    by_batch = {r["batch"]: r for r in found["rows"]}
    assert set(by_batch[32]["gains"]) == {"x2", "x4"}
    assert set(by_batch[64]["gains"]) == {"x2"} and by_batch[128]["gains"] == {}
    for factor in (2, 4):
        measured = by_batch[32]["gains"][f"x{factor}"]
        ratio = by_batch[32]["median_s"] / by_batch[32 * factor]["median_s"]
        assert measured["point"] == pytest.approx(ratio)
        assert 0 < measured["low"] <= measured["high"]


def test_a_batch_whose_examples_do_not_divide_is_refused():
    with pytest.raises(ValueError, match="multiple of the batch 96"):
        batch_plateau.workload(None, 96, 256)


def test_the_page_shows_the_committed_sweep_and_the_case_uses_its_batch(root):
    found = batch_plateau.load(batch_plateau.RUN_JSON)
    assert batch_plateau.TABLE_MD.read_text(encoding="utf-8") == batch_plateau.render(found)
    page = (root / "docs" / "tune-validation.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/batch_plateau.md"' in page
    case = validation.case_named("mlp_batch_32.py")
    text = (validation.MODELS / case.better).read_text(encoding="utf-8")
    assert f"mlp_batch_32.BATCH = {found['chosen']}\n" in text, case.better


@pytest.fixture
def committed():
    return json.loads(batch_plateau.RUN_JSON.read_text(encoding="utf-8"))


def refused(tmp_path, found: dict, message: str) -> None:
    path = tmp_path / "batch_plateau.json"
    path.write_text(json.dumps(found), encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        batch_plateau.load(path)


def test_a_committed_sweep_whose_choice_breaks_the_rule_is_refused(tmp_path, committed):
    committed["chosen"] = batch_plateau.LADDER[0]
    refused(tmp_path, committed, "chosen is 1024, but the rule gives")


def test_a_tampered_sweep_is_refused_naming_the_field(tmp_path, committed):
    reordered = copy.deepcopy(committed)
    reordered["rows"].reverse()
    refused(tmp_path, reordered, r"rows\[0\]\.batch: expected 1024")
    not_finite = copy.deepcopy(committed)
    not_finite["rows"][2]["gains"]["x4"]["high"] = float("nan")
    refused(tmp_path, not_finite, r"batch_plateau.json: cannot read it: NaN is not a number")
    off_ladder = copy.deepcopy(committed)
    off_ladder["rows"][-2]["gains"]["x4"] = gain(1.0, 1.0, 1.0)
    refused(tmp_path, off_ladder, r"rows\[7\]\.gains: expected only \['x2'\]")
    missing = copy.deepcopy(committed)
    del missing["rows"][0]["median_s"]
    refused(tmp_path, missing, r"batch_plateau.json: rows\[0\]: missing field\(s\) median_s")


def test_a_failed_batch_is_shown_with_its_error_escaped(tmp_path, committed):
    committed["rows"][-1] = {"batch": 262144, "error": "<b>OOM</b> [x](y)", "gains": {}}
    committed["rows"][-3]["gains"].pop("x4")
    committed["rows"][-2]["gains"] = {}
    committed["chosen"] = batch_plateau.chosen(committed["rows"])
    path = tmp_path / "batch_plateau.json"
    path.write_text(json.dumps(committed), encoding="utf-8")
    table = batch_plateau.render(batch_plateau.load(path))
    assert "| 262,144 | failed: " in table
    assert "<b>" not in table and "[x](y)" not in table
