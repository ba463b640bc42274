"""`make validate`: every kind of bad results file gets a clear message and never a traceback."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest

from scripts.core import store as results
from scripts.core.catalog import CEILING_KEY
from scripts.results import validate


@pytest.fixture()
def good(root) -> dict:
    """The smallest committed results file as stored (version 2: sessions)."""
    return results.read(min((root / "results").glob("*.json"), key=lambda p: p.stat().st_size))


def key_of(data: dict) -> str:
    return next(iter(data["sessions"][-1]["entries"]))


def put(tmp_path, data, name=None) -> object:
    path = tmp_path / f"{name or data['machine']['id']}.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def test_committed_results_are_valid(root):
    assert validate.validate(sorted((root / "results").glob("*.json"))) == []


def stats(d):
    return d["sessions"][-1]["entries"][key_of(d)]["stats"]


BAD_DATA = {
    "wrong type": (lambda d: d["machine"].update(logical_cores="two"), "logical_cores: expected a whole number"),
    "machine not an object": (lambda d: d.update(machine=[1, 2]), "machine: expected an object, got list"),
    "huge string": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(label="x" * 1_000_000), "label: longer than 300 characters"),
    "hostile id": (lambda d: d["machine"].update(id="../../etc/passwd"), "id: '../../etc/passwd' does not match"),
    "zero time": (lambda d: stats(d).update(min_s=0.0), "min_s: expected a positive number, got 0.0"),
    "negative time": (lambda d: stats(d).update(median_s=-0.5), "median_s: expected a positive number"),
    "quartiles out of order": (lambda d: stats(d).update(q1_s=stats(d)["q3_s"] * 2, max_s=1e9), "expected min_s <= q1_s <= median_s"),
    "unknown snippet version": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(snippet_sha256="ab" * 32), "matches no version of snippets/"),
    "impossible FLOP rate": (lambda d: stats(d).update(gflops_per_s=1e9), "is outside (0, 200,000] GFLOP/s"),
    "inconsistent throughput": (lambda d: stats(d).update(throughput_per_s=stats(d)["throughput_per_s"] * 3), "throughput_per_s: expected examples_per_run / median_s"),
    "inconsistent spread": (lambda d: stats(d).update(iqr_over_median=5.0), "iqr_over_median: 5.0 does not equal"),
    "future date": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(date="2999-01-01T00:00:00Z"), "is in the future"),
    "bad date": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(date="yesterday"), "expected an ISO 8601 UTC time"),
    "missing provenance": (lambda d: d["machine"].pop("ram_bytes"), "missing field(s) ram_bytes"),
    # Issue 21 item 5: what a stranger's pull request could slip past a reviewer.
    "id names another machine": (lambda d: d["machine"].update(cpu_model="Apple M3 Max", os="Darwin"), "does not name the machine this block describes: expected 'apple-m3-max-2cpu-macos'"),
    "commit not a hash": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(commit="main (trust me)"), ".commit: 'main (trust me)' does not match ^([0-9a-f]{40}|[0-9a-f]{64})$: The measured commit's full hash"),
    "short commit": (lambda d: d["sessions"][-1]["entries"][key_of(d)].update(commit="c4a4016"), ".commit: 'c4a4016' does not match"),
    "unknown top-level key": (lambda d: d.update(notes="see my blog"), "unknown field(s) 'notes'; expected only schema_version, machine, sessions"),
    "absurd core count": (lambda d: d["machine"].update(physical_cores=10**30, logical_cores=10**30), "logical_cores: 1000000000000000000000000000000 is more than any machine has"),
    "more physical than logical cores": (lambda d: d["machine"].update(physical_cores=64), "physical_cores: 64 is more than logical_cores (2)"),
    "absurd memory": (lambda d: d["machine"].update(ram_bytes=2**60), "ram_bytes: 1152921504606846976 is more than any machine has"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_DATA))
def test_bad_data_is_named(case, tmp_path, good):
    mutate, expected = BAD_DATA[case]
    mutate(good)
    name = "machine" if case in ("hostile id", "machine not an object") else None
    path = put(tmp_path, good, name)
    problems = validate.validate([path])
    assert any(expected in p for p in problems), problems
    assert all(str(path) in p for p in problems)


BAD_TEXT = {
    "truncated": (lambda text: text[: len(text) // 2], "not a readable JSON results file"),
    "NaN": (lambda text: text.replace('"median_s": ', '"median_s": NaN, "x": ', 1), "NaN is not a number JSON allows"),
    "deeply nested": (lambda text: "[" * 100_000 + "]" * 100_000, "not a readable JSON results file"),
    "not JSON at all": (lambda text: "\x00\xff garbage", "not a readable JSON results file"),
    "a JSON list": (lambda text: "[1, 2, 3]", "expected an object, got list"),
    # The reviewer reads the first median in the diff; json.loads would keep the second.
    "duplicate key": (lambda text: text.replace('"median_s": ', '"median_s": 1e-9, "median_s": ', 1), "the key 'median_s' appears twice in one object"),
    "duplicate machine id": (lambda text: text.replace('"id": ', '"id": "apple-m4-max-40gpu-macos", "id": ', 1), "the key 'id' appears twice"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_TEXT))
def test_malformed_files_are_named(case, tmp_path, good):
    make, expected = BAD_TEXT[case]
    path = put(tmp_path, make(json.dumps(good)), "machine")
    problems = validate.validate([path])
    assert len(problems) == 1 and expected in problems[0] and str(path) in problems[0]


def test_duplicated_machine_id_and_wrong_file_name(tmp_path, good):
    first = put(tmp_path, good)
    second = put(tmp_path, good, "another-name")
    problems = validate.validate([first, second])
    assert any("must equal the file name" in p and str(second) in p for p in problems)
    assert any(f"is also used by {first}" in p for p in problems)


def test_cli_reports_without_traceback_and_changes_nothing(tmp_path, good, root, child_env):
    other = put(tmp_path, good)
    before = other.read_bytes()
    hostile = put(tmp_path, "[" * 100_000, "hostile")
    done = subprocess.run(
        [sys.executable, "-m", "scripts.results.validate", str(other), str(hostile)],
        cwd=root, env=child_env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{hostile}: not a readable JSON results file" in done.stderr
    assert other.read_bytes() == before


def entry(d):
    return d["sessions"][-1]["entries"][key_of(d)]


def first_output(d):
    return next(iter(next(s for s in d["sessions"] if s["outputs"])["outputs"].values()))


# Strings a stranger's pull request could carry into the site, the field, and the words
# `make validate` must answer with. Each must be refused before it reaches a page.
HOSTILE = {
    "script tag": (lambda d, s: d["machine"].update(description=s), "<script>alert(1)</script>", "machine.description: only plain text"),
    "img onerror": (lambda d, s: d["machine"].update(cpu_model=s), "<img src=x onerror=alert(3)>", "machine.cpu_model: only plain text"),
    "markdown js link": (lambda d, s: d["machine"].update(description=s), "[link](javascript:alert(2))", "would make a Markdown link"),
    "markdown image": (lambda d, s: d["machine"].update(os_version=s), "![x](http://evil/x.png)", "would make a Markdown link"),
    "bold markup": (lambda d, s: d["machine"].update(description=s), "**bold**", "found '*'"),
    "html entity": (lambda d, s: d["machine"].update(os=s), "&lt;script&gt;", "found '&'"),
    "svg onload": (lambda d, s: d["machine"].update(arch=s), "<svg onload=alert(4)>", "machine.arch: only plain text"),
    "attribute break": (lambda d, s: d["machine"].update(os_version=s), '" onmouseover="alert(5)', "'onmouseover=' is script in HTML"),
    "bare js url": (lambda d, s: d["machine"].update(description=s), "see javascript:alert(1)", "'javascript:' is script in HTML"),
    "iframe device": (lambda d, s: d["machine"].update(tf_devices=[s]), "<iframe src=javascript:alert(6)>", "tf_devices[0]: only plain text"),
    "code span label": (lambda d, s: entry(d).update(label=s), "`rm -rf`", "label: only plain text"),
    "table pipe": (lambda d, s: entry(d).update(label=s), "a | b", "found '|'"),
    "attr_list": (lambda d, s: entry(d).update(label=s), "x {: onclick=alert(8) }", "found '{'"),
    "control char": (lambda d, s: d["machine"].update(description=s), "Mac\x1b[31m", "found '\\x1b'"),
    "newline": (lambda d, s: d["machine"].update(description=s), "line\n# heading", "found '\\n'"),
    "footnote": (lambda d, s: entry(d).update(label=s), "x[^1]", "found '^'"),
    "emphasis": (lambda d, s: entry(d).update(label=s), "__init__ trick", "would make Markdown emphasis"),
    "software version": (lambda d, s: entry(d)["software"].update(keras=s), "3.10<script>", "software.keras: only plain text"),
    "method text": (lambda d, s: entry(d)["method"].update(timer=s), "<b>t</b>", "method.timer: only plain text"),
    "baseline": (lambda d, s: entry(d).update(baseline=s), "x<y", "baseline: 'x<y' does not match"),
    "cpu feature": (lambda d, s: d["machine"].update(cpu_features=[s]), "avx<script>", "cpu_features[0]"),
    "snippet path": (lambda d, s: entry(d).update(snippet_path=s), "../../etc/passwd.py", "snippet_path"),
    "output control char": (lambda d, s: first_output(d).update(text=s), "ok\x07bell", "control character"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_strings_are_refused_with_the_field_named(case, tmp_path, good):
    mutate, value, expected = HOSTILE[case]
    mutate(good, value)
    path = put(tmp_path, good)
    problems = validate.validate([path])
    assert any(expected in p for p in problems), problems
    assert all(str(path) in p for p in problems)


@pytest.mark.parametrize(
    "value",
    ["Apple M1 Pro, 10-core CPU (8P+2E), 16 GB", "Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz",
     "macOS 15.1 (24B83)", "tf.config.set_visible_devices([], 'GPU') before the runtime starts",
     "one model.train_on_batch call (Dense 512 -> 10, batch 32)", "Ryzen™ 9 – naïve"],
)  # fmt: skip
def test_ordinary_machine_names_and_labels_pass(value, tmp_path, good):
    good["machine"]["description"] = value
    entry(good)["label"] = value
    assert validate.validate([put(tmp_path, good)]) == []


# Interleaved entries (issue 10): each timing's place in its round, equal rounds within one
# run, and a stored speed-up that the stored timings give.
@pytest.fixture()
def interleaved(root) -> tuple[dict, str]:
    """A committed file (as stored) whose latest session has a snippet timed in interleaved
    rounds, and one of its variants that stores a speed-up."""
    for path in sorted((root / "results").glob("*.json")):
        data = results.read(path)
        for key, entry in data["sessions"][-1]["entries"].items():
            if entry["method"].get("schedule") == "interleaved rounds" and "speedup" in entry:
                return data, key
    pytest.fail("no committed results file has interleaved entries with a stored speed-up")


def shorten_by_one_round(entry: dict) -> None:
    """Drop the last round from one variant only, keeping its own fields consistent."""
    s = entry["stats"]
    s["times_s"].pop()
    s["round_positions"].pop()
    s["rounds"] -= 1


BAD_ROUNDS = {
    "rounds of unequal length": (shorten_by_one_round, "rounds of unequal length in one interleaved run"),
    "missing round order": (lambda e: e["stats"].pop("round_positions"), "stats: missing field(s) round_positions"),
    "round order of the wrong length": (lambda e: e["stats"]["round_positions"].pop(), "round_positions: expected"),
    "interval without its point": (lambda e: e["speedup"].update(low=e["speedup"]["point"] * 1.1), "does not contain its point estimate"),
    "stored interval not what the timings give": (lambda e: e["speedup"].update(high=e["speedup"]["high"] * 2), "speedup.high"),
    "stored speed-up against another baseline": (lambda e: e["speedup"].update(vs="something_else"), "speedup.vs: expected the entry's baseline"),
    "unknown schedule": (lambda e: e["method"].update(schedule="whenever"), "method.schedule: expected one of"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_ROUNDS))
def test_bad_rounds_and_intervals_are_named(case, tmp_path, interleaved):
    data, key = interleaved
    mutate, expected = BAD_ROUNDS[case]
    mutate(data["sessions"][-1]["entries"][key])
    path = put(tmp_path, data)
    problems = validate.validate([path])
    assert any(expected in p for p in problems), problems
    assert all(str(path) in p for p in problems)


def test_a_rate_is_checked_against_the_best_ceiling_any_session_measured(root):
    """A session timed while other programs ran measures a lower ceiling; a workload's rate is
    held to the best the machine reached, and still refused far above it."""
    data = results.read(root / "results" / "intel-xeon-2cpu-linux-5ffe08.json")
    best = validate.best_ceiling(data)
    rates = [
        s["entries"][CEILING_KEY]["stats"]["gflops_per_s"]
        for s in data["sessions"]
        if CEILING_KEY in s["entries"]
    ]
    assert best == max(rates) and len(rates) >= 2 and min(rates) < best
    run = {"entries": {"x/y:z": copy.deepcopy(next(iter(data["sessions"][0]["entries"].values())))}}
    stats_of = run["entries"]["x/y:z"]["stats"]
    stats_of["gflops_per_s"] = min(rates) * 1.6  # above 1.5x the low session's ceiling
    assert best * 1.5 > stats_of["gflops_per_s"]
    assert not [p for p in validate.plausibility_problems(run, "f", best) if "ceiling" in p]
    stats_of["gflops_per_s"] = best * 1.6
    assert [p for p in validate.plausibility_problems(run, "f", best) if "ceiling" in p]
