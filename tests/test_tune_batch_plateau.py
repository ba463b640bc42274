"""The sweep that picks the batch of the MLP case's better variant (scripts/tuning/batch_plateau.py):
its rule, that it measures, and that the case uses the batch its committed run chose."""

from __future__ import annotations

import json

import pytest

from scripts.tuning import batch_plateau, validation


def row(batch: int, **highs: float) -> dict:
    gains = {
        name: {"point": high - 0.01, "low": high - 0.02, "high": high}
        for name, high in highs.items()
    }
    return {"batch": batch, "median_s": 1.0, "gains": gains}


def test_the_rule_takes_the_smallest_batch_where_neither_larger_batch_gains_5_percent():
    rows = [
        row(1024, x2=1.30, x4=1.60),
        row(2048, x2=1.04, x4=1.06),  # x4's interval reaches 1.05: not levelled off
        row(4096, x2=1.03, x4=1.049),
        row(8192, x2=1.01, x4=1.02),
    ]
    assert batch_plateau.chosen(rows) == 4096


def test_the_rule_needs_both_larger_batches_measured():
    assert batch_plateau.chosen([row(65536, x2=1.01), row(131072), row(262144)]) is None
    assert not batch_plateau.levelled(row(1024, x4=1.0))


def test_the_sweep_measures_gains_with_intervals_on_a_small_ladder():
    found = batch_plateau.measure(0.0, ladder=(32, 64, 128), examples=256)
    assert found["rounds"] == batch_plateau.MIN_ROUNDS
    by_batch = {r["batch"]: r for r in found["rows"]}
    assert set(by_batch[32]["gains"]) == {"x2", "x4"}
    assert set(by_batch[64]["gains"]) == {"x2"} and by_batch[128]["gains"] == {}
    for gain in by_batch[32]["gains"].values():
        assert 0 < gain["low"] <= gain["point"] <= gain["high"]


def test_the_page_shows_the_committed_sweep_and_the_case_uses_its_batch(root):
    found = batch_plateau.load(batch_plateau.RUN_JSON)
    assert batch_plateau.TABLE_MD.read_text(encoding="utf-8") == batch_plateau.render(found)
    page = (root / "docs" / "tune.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/batch_plateau.md"' in page
    case = validation.case_named("mlp_batch_32.py")
    text = (validation.MODELS / case.better).read_text(encoding="utf-8")
    assert f"mlp_batch_32.BATCH = {found['chosen']}\n" in text, case.better


def test_a_committed_sweep_whose_choice_breaks_the_rule_is_refused(tmp_path):
    found = json.loads(batch_plateau.RUN_JSON.read_text(encoding="utf-8"))
    found["chosen"] = batch_plateau.LADDER[0]
    path = tmp_path / "batch_plateau.json"
    path.write_text(json.dumps(found), encoding="utf-8")
    with pytest.raises(ValueError, match="'chosen' is not the batch the rule gives"):
        batch_plateau.load(path)
