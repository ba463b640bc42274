"""Results files: validation errors name the file and field; writes are atomic."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import provenance
from scripts.core import store as results


def test_committed_results_validate(committed_results):
    for data in committed_results:
        results.check(data, data["machine"]["id"])


def test_file_name_is_the_machine_id(root):
    for path in (root / "results").glob("*.json"):
        assert results.read(path)["machine"]["id"] == path.stem, path


@pytest.fixture()
def good(committed_results) -> dict:
    return copy.deepcopy(committed_results[0])


def first_key(data: dict) -> str:
    return next(iter(data["entries"]))


def write(tmp_path, data) -> object:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(data))
    return path


def entry(d: dict) -> dict:
    return d["entries"][first_key(d)]


MUTATIONS = [
    (lambda d: d["machine"].pop("cpu_model"), "machine: missing field(s) cpu_model"),
    (lambda d: d.pop("entries"), "missing field(s) entries"),
    (lambda d: d.update(schema_version=99), "schema_version 99 is not 1"),
    (lambda d: entry(d).pop("snippet_sha256"), "missing field(s) snippet_sha256"),
    (lambda d: entry(d)["software"].pop("keras"), ".software: missing field(s) keras"),
    (lambda d: entry(d)["stats"].update(median_s=-1.0), "median_s: expected a positive time"),
    (lambda d: entry(d)["stats"].update(median_s="x"), "median_s: expected a finite number"),
    (lambda d: entry(d)["stats"].update(q1_s=1e9, max_s=2e9), "expected min_s <= q1_s"),
    (lambda d: entry(d)["stats"].update(rounds=0), "rounds: expected a whole number"),
]


@pytest.mark.parametrize("mutate, expected", MUTATIONS)
def test_errors_name_the_file_and_field(tmp_path, good, mutate, expected):
    mutate(good)
    path = write(tmp_path, good)
    with pytest.raises(results.ResultsError) as caught:
        results.read(path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_truncated_and_nan_files_are_rejected_clearly(tmp_path, good):
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(good)[:200])
    with pytest.raises(results.ResultsError, match="not a readable JSON results file"):
        results.read(path)
    path.write_text(json.dumps(good).replace('"median_s": ', '"median_s": NaN, "x": ', 1))
    with pytest.raises(results.ResultsError, match="NaN is not a number JSON allows"):
        results.read(path)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "machine.json"
    results.write_json_atomic(path, {"a": 1})
    with pytest.raises(ValueError):
        results.write_json_atomic(path, {"a": float("nan")})  # not valid JSON: refused
    assert json.loads(path.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]  # no temporary left over


def test_merge_keeps_other_snippets_and_drops_removed_variants(tmp_path, good):
    path = tmp_path / f"{good['machine']['id']}.json"
    results.write_json_atomic(path, good)
    key = first_key(good)
    snippet, variant = key.split(":", 1)
    others = {k for k in good["entries"] if not k.startswith(snippet + ":")}
    new = copy.deepcopy(good["entries"][key])
    new["stats"]["median_s"] = new["stats"]["q1_s"]  # a changed value, still consistent
    results.merge_snippet(path, good["machine"], snippet, {key: new}, [variant], None)
    data = results.read(path)
    assert data["entries"][key] == new
    assert others <= set(data["entries"])  # entries of other snippets are kept
    assert [k for k in data["entries"] if k.startswith(snippet + ":")] == [key]


AVX2_EPYC = {
    "cpu_model": "AMD EPYC", "arch": "x86_64", "os": "Linux", "logical_cores": 2,
    "physical_cores": 2, "performance_cores": None, "efficiency_cores": None, "gpu_cores": None,
    "ram_bytes": 25276063744, "cpu_features": ["avx", "avx2", "fma", "sse4_2"],
}  # fmt: skip
AVX512_EPYC = dict(
    AVX2_EPYC,
    cpu_features=["avx", "avx2", "avx512_bf16", "avx512_vnni", "avx512f", "fma", "sse4_2"],
)


@pytest.mark.parametrize(
    "change",
    [
        {"cpu_features": AVX512_EPYC["cpu_features"]},  # the two EPYCs of issue 10
        {"cpu_features": ["avx", "avx2", "amx_tile", "fma"]},
        {"physical_cores": 1},
        {"performance_cores": 8, "efficiency_cores": 2},
        {"gpu_cores": 16},
        {"ram_bytes": 2 * AVX2_EPYC["ram_bytes"]},
        {"cpu_model": "AMD EPYC 9R14"},
    ],
)
def test_machines_that_differ_in_what_changes_numbers_differ_in_fingerprint(change):
    assert provenance.fingerprint(dict(AVX2_EPYC, **change)) != provenance.fingerprint(AVX2_EPYC)


def test_fingerprint_ignores_feature_order_and_ram_rounding():
    shuffled = dict(AVX2_EPYC, cpu_features=list(reversed(AVX2_EPYC["cpu_features"])))
    assert provenance.fingerprint(shuffled) == provenance.fingerprint(AVX2_EPYC)
    nudged = dict(AVX2_EPYC, ram_bytes=AVX2_EPYC["ram_bytes"] + 4096)
    assert provenance.fingerprint(nudged) == provenance.fingerprint(AVX2_EPYC)


def test_the_avx512_epyc_gets_its_own_file_next_to_the_avx2_one(tmp_path, good):
    avx2 = dict(good["machine"], **AVX2_EPYC, id="amd-epyc-2cpu-linux")
    avx512 = dict(avx2, cpu_features=AVX512_EPYC["cpu_features"])
    results.write_json_atomic(tmp_path / "amd-epyc-2cpu-linux.json", dict(good, machine=avx2))
    assert provenance.distinct_id(avx2, tmp_path) == "amd-epyc-2cpu-linux"
    assert provenance.distinct_id(avx512, tmp_path) == (
        f"amd-epyc-2cpu-linux-{provenance.fingerprint(avx512)}"
    )


def test_a_merge_never_puts_a_machine_over_another_machines_entries(tmp_path, good):
    avx2 = dict(good["machine"], **AVX2_EPYC, id="amd-epyc-2cpu-linux")
    avx512 = dict(avx2, cpu_features=AVX512_EPYC["cpu_features"])
    path = tmp_path / "amd-epyc-2cpu-linux.json"
    results.write_json_atomic(path, dict(good, machine=avx2))
    before = path.read_bytes()
    key = first_key(good)
    snippet, variant = key.split(":", 1)
    with pytest.raises(results.ResultsError, match="holds results of another machine"):
        results.merge_snippet(path, avx512, snippet, {key: good["entries"][key]}, [variant], None)
    assert path.read_bytes() == before
