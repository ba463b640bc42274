"""The committed full validation run (docs/_generated/tune/validation.json, made by
`python -m benchmarks.tune.validation`): the table the Tune your own model page shows is what
the run renders to (never typed), every case ran on both variants, and the renderer checks
and escapes what the file holds."""

from __future__ import annotations

import copy
import json

import pytest

from benchmarks.tune import validation


@pytest.fixture(scope="module")
def run():
    return validation.load(validation.RUN_JSON)


def test_the_page_shows_the_committed_runs_table(root, run):
    assert validation.TABLE_MD.read_text(encoding="utf-8") == validation.render(run)
    page = (root / "docs" / "tune-validation.md").read_text(encoding="utf-8")
    assert '--8<-- "docs/_generated/tune/validation.md"' in page


def test_every_case_ran_on_both_variants(run):
    assert [entry["name"] for entry in run["cases"]] == [case.name for case in validation.CASES]
    for entry, case in zip(run["cases"], validation.CASES, strict=True):
        assert entry["only"] == list(case.only)
        assert entry["slow"]["file"] == f"tests/tune_models/{case.slow}"
        assert entry["better"]["file"] == f"tests/tune_models/{case.better}"
        for variant in (entry["slow"], entry["better"]):
            assert not variant["interrupted"]


def test_the_verdicts_are_recomputed_from_the_rows_not_read(run):
    entry = copy.deepcopy(run["cases"][0])
    for row in entry["slow"]["rows"]:
        row["recommended"] = False
    assert validation.judged(entry)[0] is False


def test_a_tampered_file_is_refused_or_shown_as_text(tmp_path, run):
    bad = copy.deepcopy(run)
    bad["cases"][0]["slow"]["rows"][0]["point"] = "2.0"
    path = tmp_path / "validation.json"
    path.write_text(json.dumps(bad))
    said = r"cases\[0\].slow.rows\[0\].point: expected a finite number or null, got .2.0."
    with pytest.raises(ValueError, match=said):
        validation.load(path)
    marked = copy.deepcopy(run)
    marked["machine"]["description"] = "<script>x</script> [a](b)"
    path.write_text(json.dumps(marked))
    table = validation.render(validation.load(path))
    assert "<script>" not in table and "[a](b)" not in table


def test_a_verdict_its_numbers_do_not_give_is_refused(tmp_path, run):
    bad = copy.deepcopy(run)
    entry = next(e for e in bad["cases"] if e["better"]["file"].endswith("mlp_batch_65536.py"))
    row = next(r for r in entry["better"]["rows"] if r["arm"] == "batch_x4")
    row["point"], row["low"], row["high"] = 1.2, 1.1, 1.3  # a clear gain, still stored as small
    path = tmp_path / "validation.json"
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="batch_x4: verdict 'faster by under 5%', but its numbers"):
        validation.load(path)
    row["verdict"] = "faster"  # the stored flag must follow the verdict too
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="'recommended' does not follow from the verdict"):
        validation.load(path)
    row["point"] = float("nan")  # refused when read, before any rule of the loader's
    path.write_text(json.dumps(bad))
    with pytest.raises(ValueError, match="validation.json: cannot read it: NaN is not a number"):
        validation.load(path)
