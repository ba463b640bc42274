"""Sessions: a run elsewhere joins its machine's file, the stack names what ran, and the
held-back calibration page shows what scripts/findings/calibration.py counts."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import software_stack
from scripts.core import store as results
from scripts.findings import calibration as held_back
from scripts.findings import results_views
from scripts.rendering import calibration_page, escaping
from scripts.results import add_sessions


@pytest.fixture()
def small(root) -> dict:
    return results.read(min((root / "results").glob("*.json"), key=lambda p: p.stat().st_size))


def moved(data: dict, new_id: str) -> dict:
    """The file's last session as if measured again at another time."""
    again = copy.deepcopy(data)
    again["sessions"] = [dict(copy.deepcopy(data["sessions"][-1]), id=new_id)]
    return again


def test_a_run_made_elsewhere_is_added_beside_the_sessions_there(tmp_path, small):
    target_dir = tmp_path / "results"
    target_dir.mkdir()
    results.write_json_atomic(target_dir / f"{small['machine']['id']}.json", small)
    source = tmp_path / "scratch.json"
    source.write_text(json.dumps(moved(small, "2099-01-01T00:00:00.000001Z")))
    assert add_sessions.add(source, target_dir) == ["2099-01-01T00:00:00.000001Z"]
    data = results.read(target_dir / f"{small['machine']['id']}.json")
    assert data["sessions"][:-1] == small["sessions"]
    assert data["sessions"][-1]["origin"] == "added from scratch.json"
    assert add_sessions.add(source, target_dir) == []  # the same session twice: nothing new


def test_a_session_id_already_there_with_other_entries_is_refused(tmp_path, small):
    target_dir = tmp_path / "results"
    target_dir.mkdir()
    path = target_dir / f"{small['machine']['id']}.json"
    results.write_json_atomic(path, small)
    before = path.read_bytes()
    other = moved(small, small["sessions"][-1]["id"])
    next(iter(other["sessions"][0]["entries"].values()))["label"] = "changed"
    source = tmp_path / "other.json"
    source.write_text(json.dumps(other))
    with pytest.raises(results.ResultsError, match="already in .* with other entries"):
        add_sessions.add(source, target_dir)
    assert path.read_bytes() == before


def test_another_machines_file_is_refused_and_a_hostile_name_is_not_kept(tmp_path, small):
    target_dir = tmp_path / "results"
    target_dir.mkdir()
    other_machine = dict(small["machine"], ram_bytes=small["machine"]["ram_bytes"] * 4)
    results.write_json_atomic(
        target_dir / f"{small['machine']['id']}.json", dict(small, machine=other_machine)
    )
    source = tmp_path / "mine.json"
    source.write_text(json.dumps(small))
    with pytest.raises(results.ResultsError, match="is not the machine of"):
        add_sessions.add(source, target_dir)
    assert add_sessions.origin_words(tmp_path / "<script>.json") == "added from a file"


def test_the_command_names_a_bad_file_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    assert add_sessions.main([str(bad), "--results-dir", str(tmp_path)]) == 1
    assert f"error: {bad}" in capsys.readouterr().err


@pytest.mark.parametrize(
    "software, expected",
    [({"tensorflow": "2.16.2", "keras": "3.10.0"}, "tf216-keras3"),
     ({"tensorflow": "2.16.2", "keras": "2.16.0"}, "tf216-tf-keras"),
     ({"tensorflow": "2.21.0", "keras": "3.15.1"}, "tf221-keras3"),
     ({"tensorflow": "2.15.0", "keras": "2.15.0"}, "tf215-keras2"),
     ({"tensorflow": None, "keras": None}, "tf-unknown-keras-unknown")],
)  # fmt: skip
def test_the_stack_is_named_from_the_software(software, expected):
    assert software_stack.name(software) == expected


def test_a_variant_the_latest_version_dropped_leaves_the_view_but_not_its_session(small):
    data = copy.deepcopy(small)
    last = data["sessions"][-1]
    key = next(iter(last["entries"]))
    snippet = key.split(":")[0]
    later = {
        k: dict(copy.deepcopy(e), snippet_sha256="f" * 64)
        for k, e in last["entries"].items()
        if k.startswith(snippet + ":") and k != key
    }
    data["sessions"].append(
        {"id": "2099-01-01T00:00:00Z", "stack": last["stack"], "origin": "make measure",
         "entries": later, "outputs": {}, **results.session_counts(later)}
    )  # fmt: skip
    view = results_views.view(data)
    assert key not in view["entries"] and key in data["sessions"][-2]["entries"]
    assert all(view["entries"][k]["snippet_sha256"] == "f" * 64 for k in later)


def test_the_calibration_page_shows_what_the_findings_count(committed_files):
    views = [escaping.escaped_results(v) for v in results_views.stack_views(committed_files)]
    page = calibration_page.table(views)
    found = held_back.calibrate(views)
    for scheme in held_back.SCHEMES:
        coverage = found.coverage(scheme)
        if coverage.compared:
            assert f"| {calibration_page.percent(coverage.inside, coverage.compared)} |" in page
            row = next(
                line for line in page.splitlines() if calibration_page.SCHEME_WORDS[scheme] in line
            )
            assert row.endswith("| met |") == coverage.meets_target
    for view in found.views:
        checkable = "yes" if view.sittings >= 2 else "no: one sitting"
        assert f"| {view.sittings} | {view.sessions} | {checkable} |" in page
