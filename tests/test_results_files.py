"""Results files: validation errors name the file and field; writes are atomic."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import provenance
from scripts.core import store as results
from scripts.findings import results_views


def test_committed_results_validate(root):
    for path in sorted((root / "results").glob("*.json")):
        data = results.read(path)
        # read() returns a version-1 file upgraded, so the version is read from the file as
        # committed: the site publishes these bytes, and they must be what the scripts write.
        stored = json.loads(path.read_text(encoding="utf-8"))["schema_version"]
        assert stored == results.SCHEMA_VERSION, f"{path}: stored at version {stored}"
        results.check(data, str(path))


def test_file_name_is_the_machine_id(root):
    for path in (root / "results").glob("*.json"):
        assert results.read(path)["machine"]["id"] == path.stem, path


@pytest.fixture()
def good(root) -> dict:
    """A committed results file as it is stored (version 2: sessions)."""
    return results.read(min((root / "results").glob("*.json"), key=lambda p: p.stat().st_size))


def first_key(data: dict) -> str:
    return next(iter(data["sessions"][-1]["entries"]))


def write(tmp_path, data) -> object:
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(data))
    return path


def entry(d: dict) -> dict:
    return d["sessions"][-1]["entries"][first_key(d)]


def session(d: dict) -> dict:
    return d["sessions"][-1]


MUTATIONS = [
    (lambda d: d["machine"].pop("cpu_model"), "machine: missing field(s) cpu_model"),
    (lambda d: d.pop("sessions"), "missing field(s) sessions"),
    (lambda d: d.update(schema_version=99), "schema_version: expected one of 1, 2, got '99'"),
    (lambda d: entry(d).pop("snippet_sha256"), "missing field(s) snippet_sha256"),
    (lambda d: entry(d)["software"].pop("keras"), ".software: missing field(s) keras"),
    (lambda d: entry(d)["stats"].update(median_s=-1.0), "median_s: expected a positive number"),
    (lambda d: entry(d)["stats"].update(median_s="x"), "median_s: expected a finite number"),
    (lambda d: entry(d)["stats"].update(q1_s=1e9, max_s=2e9), "expected min_s <= q1_s"),
    (lambda d: entry(d)["stats"].update(rounds=0), "rounds: expected a whole number >= 1"),
    (lambda d: session(d).update(noisy_variants=session(d)["noisy_variants"] + 1), ".noisy_variants: "),
    (lambda d: session(d).update(marked_noisy=not session(d)["marked_noisy"]), ".marked_noisy: "),
    (lambda d: session(d).update(stack="tf221-keras3"), "not the session's 'tf221-keras3'"),
    (lambda d: d["sessions"].append(copy.deepcopy(d["sessions"][0])), "expected ids in time order, none twice"),
    (lambda d: session(d).update(origin="<b>x</b>"), ".origin: only plain text"),
    (lambda d: session(d).update(notes="x"), "unknown field(s) 'notes'"),
]  # fmt: skip


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


def version_1(data: dict) -> dict:
    """The same measurements as a version-1 file: one set of entries, no sessions."""
    entries, outputs = {}, {}
    for s in data["sessions"]:
        entries.update(s["entries"])
        outputs.update(s["outputs"])
    return {"schema_version": 1, "machine": data["machine"], "entries": entries, "outputs": outputs}


def test_a_version_1_file_is_split_into_sessions_at_gaps(tmp_path, good):
    old = version_1(good)
    keys = sorted(old["entries"], key=lambda k: old["entries"][k]["date"])
    early, late = keys[: len(keys) // 2], keys[len(keys) // 2 :]
    for number, key in enumerate(early):
        old["entries"][key]["date"] = f"2026-01-01T10:{number % 60:02d}:00Z"
    for number, key in enumerate(late):
        old["entries"][key]["date"] = f"2026-01-02T10:{number % 60:02d}:00Z"
    upgraded = results.read(write(tmp_path, old))
    assert [s["id"] for s in upgraded["sessions"]] == [
        "2026-01-01T10:00:00Z",
        "2026-01-02T10:00:00Z",
    ]
    assert set(upgraded["sessions"][0]["entries"]) == set(early)
    assert set(upgraded["sessions"][1]["entries"]) == set(late)
    results.check(upgraded, "upgraded")


def test_a_measure_adds_a_session_and_never_replaces_one(tmp_path, good):
    path = tmp_path / f"{good['machine']['id']}.json"
    results.write_json_atomic(path, good)
    before = copy.deepcopy(good["sessions"])
    key = first_key(good)
    new = copy.deepcopy(entry(good))
    new["stats"]["median_s"] = new["stats"]["q1_s"]  # a changed value, still consistent
    run = {"id": "2099-01-01T00:00:00Z", "stack": session(good)["stack"], "origin": "make measure"}
    results.merge_snippet(path, good["machine"], run, {key: new}, None)
    other = f"{key.split(':')[0]}:other_variant"
    again = dict(copy.deepcopy(new), variant="other_variant")
    output = {"text": "ok", "date": new["date"], "snippet_sha256": new["snippet_sha256"]}
    results.merge_snippet(path, good["machine"], run, {other: again}, ("x/y", output))
    data = results.read(path)
    assert data["sessions"][:-1] == before  # every earlier session as it was
    added = data["sessions"][-1]
    assert added["id"] == run["id"] and set(added["entries"]) == {key, other}
    assert added["outputs"]["x/y"]["text"] == "ok" and added["variants"] == 2
    assert results_views.view(data)["entries"][key] == new  # the latest session's entry is shown


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "machine.json"
    results.write_json_atomic(path, {"a": 1})
    with pytest.raises(ValueError):
        results.write_json_atomic(path, {"a": float("nan")})  # not valid JSON: refused
    assert json.loads(path.read_text()) == {"a": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["machine.json"]  # no temporary left over


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
    run = {"id": "2099-01-01T00:00:00Z", "stack": session(good)["stack"], "origin": "make measure"}
    with pytest.raises(results.ResultsError, match="holds results of another machine"):
        results.merge_snippet(path, avx512, run, {key: entry(good)}, None)
    assert path.read_bytes() == before
