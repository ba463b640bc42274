"""The measuring harness end to end, on small stand-in snippets (no TensorFlow needed)."""

from __future__ import annotations

import json
import os
import textwrap

import pytest

from scripts.core import catalog, provenance
from scripts.core import store as results
from scripts.findings import results_views
from scripts.measuring import arguments, children, measure, run_lock, variant_processes

GOOD = """
    import time
    VARIANTS = {"slow": "sleeps 4 ms", "fast": "sleeps 1 ms"}
    BASELINE = "slow"

    def make_workload(variant, size="full"):
        delay = {"slow": 0.004, "fast": 0.001}[variant]
        return (lambda: time.sleep(delay) or delay), 8

    if __name__ == "__main__":
        print("slow 4.0 ms/run")
"""
CRASHING = """
    import os
    VARIANTS = {"fine": "returns at once", "dies": "kills its process"}
    BASELINE = "fine"

    def make_workload(variant, size="full"):
        if variant == "dies":
            return (lambda: os._exit(3)), 1
        return (lambda: 1.0), 1
"""
BROKEN = """
    import module_that_does_not_exist
    VARIANTS = {"x": "never runs"}
    BASELINE = "x"

    def make_workload(variant, size="full"):
        return (lambda: 1), 1
"""


@pytest.fixture()
def snippets_dir(tmp_path):
    folder = tmp_path / "snippets" / "demo"
    folder.mkdir(parents=True)
    for name, text in {"good": GOOD, "crashing": CRASHING, "broken": BROKEN}.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return tmp_path / "snippets"


@pytest.fixture(autouse=True)
def own_run_lock(tmp_path, monkeypatch):
    """Each test's runs take a lock of their own: the machine-wide one would refuse a run while
    a test on another pytest-xdist worker measures ('another measuring run ... is using this
    machine'), which failed a CI run. The test of that refusal takes its lock here too."""
    monkeypatch.setenv("MEASURE_LOCK", str(tmp_path / "measure.lock"))


@pytest.fixture(autouse=True)
def empty_published_results(tmp_path, monkeypatch):
    """The ids these runs decide do not depend on which machines results/ holds today."""
    published = tmp_path / "published"
    published.mkdir()
    monkeypatch.setattr(results, "RESULTS_DIR", published)
    return published


def run_measure(snippets_dir, results_dir, *extra):
    return measure.main(
        ["--quick", "--snippets-dir", str(snippets_dir), "--results-dir", str(results_dir), *extra]
    )


def results_file(results_dir):
    return results_dir / f"{provenance.collect_machine()['id']}.json"


@pytest.mark.end_to_end
def test_good_snippet_is_measured_with_provenance(snippets_dir, tmp_path, capsys):
    # --quick captures the printed output only on request (--output).
    status = run_measure(snippets_dir, tmp_path / "out", "--only", "demo/good", "--output")
    assert status == 0
    data = results_views.view(results.read(results_file(tmp_path / "out")))
    entry = data["entries"]["demo/good:fast"]
    assert entry["stats"]["rounds"] == 3 and entry["stats"]["median_s"] >= 0.001
    assert entry["stats"]["examples_per_run"] == 8
    assert entry["snippet_sha256"] == provenance.file_sha256(snippets_dir / "demo" / "good.py")
    assert entry["baseline"] == "slow" and entry["size"] == "small"
    assert data["entries"]["demo/good:slow"]["stats"]["median_s"] > entry["stats"]["median_s"]
    assert data["outputs"]["demo/good"]["text"] == "slow 4.0 ms/run\n"
    out = capsys.readouterr().out
    assert "[1/1]" in out and "Summary" in out and "demo/good:fast" in out
    assert f"Session {data['sessions'][0]['id']}: " in out and " variants spread over 10%" in out


@pytest.mark.end_to_end
def test_failures_are_named_and_other_results_are_kept(snippets_dir, tmp_path, capsys):
    out_dir = tmp_path / "out"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good") == 0
    before = results_views.view(results.read(results_file(out_dir)))["entries"]["demo/good:fast"]
    status = run_measure(snippets_dir, out_dir, "--only", "demo/crashing", "--only", "demo/broken")
    assert status == 1
    err = capsys.readouterr().err
    assert "broken.py: import failed: ModuleNotFoundError" in err
    assert "demo/crashing:dies" in err
    data = results_views.view(results.read(results_file(out_dir)))
    assert data["entries"]["demo/good:fast"] == before  # earlier results untouched
    assert "demo/crashing:fine" in data["entries"]  # measured before its sibling crashed
    assert "demo/crashing:dies" not in data["entries"]


def test_unknown_snippet_name_is_refused_with_the_known_ones(snippets_dir, tmp_path, capsys):
    assert run_measure(snippets_dir, tmp_path / "out", "--only", "demo/nope") == 2
    err = capsys.readouterr().err
    assert "unknown snippet 'demo/nope'" in err and "demo/good" in err
    assert not (tmp_path / "out").exists()


@pytest.mark.end_to_end
def test_corrupt_existing_results_file_is_not_overwritten(snippets_dir, tmp_path, capsys):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    path = results_file(out_dir)
    path.write_text("{ not json")
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good") == 2
    assert path.read_text() == "{ not json"
    assert str(path) in capsys.readouterr().err


@pytest.mark.end_to_end
def test_a_variant_removed_from_a_snippet_loses_its_entry(snippets_dir, tmp_path):
    out_dir = tmp_path / "out"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    good = snippets_dir / "demo" / "good.py"
    good.write_text(good.read_text().replace(', "fast": "sleeps 1 ms"', ""))
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    data = results.read(results_file(out_dir))
    assert sorted(results_views.view(data)["entries"]) == ["demo/good:slow"]
    assert "demo/good:fast" in data["sessions"][0]["entries"]  # the earlier session keeps it
    assert len(data["sessions"]) == 2


ISOLATED = """
    VARIANTS = {"first": "one", "second": "two"}
    BASELINE = "first"
    ISOLATE_VARIANTS = True
    STARTED = []

    def make_workload(variant, size="full"):
        # Like a thread setting: allowed only once per process.
        if STARTED:
            raise RuntimeError("runtime already initialised in this process")
        STARTED.append(variant)
        return (lambda: 1.0), 4

    def flops(variant, size):
        return 2e6
"""


@pytest.mark.end_to_end
def test_isolated_variants_each_get_a_fresh_process(snippets_dir, tmp_path):
    (snippets_dir / "demo" / "isolated.py").write_text(textwrap.dedent(ISOLATED))
    out_dir = tmp_path / "out"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/isolated", "--no-output") == 0
    entries = results_views.view(results.read(results_file(out_dir)))["entries"]
    assert sorted(entries) == ["demo/isolated:first", "demo/isolated:second"]
    stats = entries["demo/isolated:second"]["stats"]
    assert stats["flops_per_run"] == 2e6
    assert stats["gflops_per_s"] == pytest.approx(2e6 / stats["median_s"] / 1e9)
    assert stats["peak_rss_bytes"] > 1e6


@pytest.mark.end_to_end
def test_without_isolation_the_same_snippet_fails_by_name(snippets_dir, tmp_path, capsys):
    text = textwrap.dedent(ISOLATED).replace("ISOLATE_VARIANTS = True", "")
    (snippets_dir / "demo" / "shared.py").write_text(text)
    assert run_measure(snippets_dir, tmp_path / "out", "--only", "demo/shared") == 1
    assert (
        "demo/shared:second: RuntimeError: runtime already initialised" in capsys.readouterr().err
    )


@pytest.mark.end_to_end
def test_another_machine_with_the_same_id_gets_a_suffixed_file(snippets_dir, tmp_path):
    out_dir = tmp_path / "out"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    path = results_file(out_dir)
    data = json.loads(path.read_text())
    data["machine"]["ram_bytes"] = 512 * 2**30  # the file now belongs to a different machine
    path.write_text(json.dumps(data))
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    files = sorted(p.name for p in out_dir.glob("*.json"))
    mine = provenance.collect_machine()
    suffixed = f"{mine['id']}-{provenance.fingerprint(mine)}.json"
    assert files == sorted([path.name, suffixed])
    assert results.read(out_dir / suffixed)["machine"]["id"] == suffixed.removesuffix(".json")
    # measuring again finds its own suffixed file, not a third one
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    assert len(list(out_dir.glob("*.json"))) == 2


@pytest.mark.end_to_end
def test_a_second_run_is_refused_while_one_holds_the_machine(snippets_dir, tmp_path, capsys):
    first = run_lock.hold_run_lock()
    assert first is not None
    try:
        assert run_measure(snippets_dir, tmp_path / "out", "--only", "demo/good") == 2
        err = capsys.readouterr().err
        assert "another measuring run" in err and str(os.getpid()) in err
        assert not (tmp_path / "out").exists()  # nothing measured, nothing written
    finally:
        first.close()
    assert run_measure(snippets_dir, tmp_path / "out", "--only", "demo/good", "--no-output") == 0


@pytest.mark.end_to_end
def test_each_entry_records_the_noise_check(snippets_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(measure.noise_check, "snapshot", lambda: {"load_1m": 9.0, "cores": 2})
    assert run_measure(snippets_dir, tmp_path / "out", "--only", "demo/good", "--no-output") == 0
    assert "warning: The load average over the last minute is 9.0 on 2 cores" in (
        capsys.readouterr().err
    )
    data = results_views.view(results.read(results_file(tmp_path / "out")))
    assert all(e["conditions"] == {"load_1m": 9.0, "cores": 2} for e in data["entries"].values())


@pytest.mark.end_to_end
def test_a_dirty_tree_is_refused_for_results_but_not_for_a_scratch_folder(
    snippets_dir, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(
        measure.provenance, "git_state", lambda root: {"commit": "a" * 40, "dirty": True}
    )
    publish = tmp_path / "results"
    monkeypatch.setattr(measure.results, "RESULTS_DIR", publish)
    assert run_measure(snippets_dir, publish, "--only", "demo/good") == 2
    assert "uncommitted changes" in capsys.readouterr().err and not publish.exists()
    assert run_measure(snippets_dir, publish, "--only", "demo/good", "--no-output",
                       "--allow-dirty") == 0  # fmt: skip
    assert (
        run_measure(snippets_dir, tmp_path / "scratch", "--only", "demo/good", "--no-output") == 0
    )


@pytest.mark.end_to_end
def test_a_scratch_run_takes_the_id_its_machine_has_in_results(
    snippets_dir, tmp_path, empty_published_results
):
    """Another machine of the same model owns the plain id in results/, so this machine's
    published file is suffixed: a run into another folder must use that same name."""
    mine = provenance.collect_machine()
    other = {**mine, "ram_bytes": 512 * 2**30}
    (empty_published_results / f"{mine['id']}.json").write_text(
        json.dumps({"schema_version": 2, "machine": other, "sessions": []})
    )
    out_dir = tmp_path / "scratch"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    suffixed = f"{mine['id']}-{provenance.fingerprint(mine)}.json"
    assert [p.name for p in out_dir.glob("*.json")] == [suffixed]


@pytest.mark.end_to_end
def test_variants_are_timed_in_interleaved_rounds(snippets_dir, tmp_path):
    out_dir = tmp_path / "out"
    assert run_measure(snippets_dir, out_dir, "--only", "demo/good", "--no-output") == 0
    entries = results_views.view(results.read(results_file(out_dir)))["entries"]
    slow, fast = entries["demo/good:slow"], entries["demo/good:fast"]
    for entry in (slow, fast):
        assert entry["method"]["schedule"] == "interleaved rounds"
        assert entry["method"]["order_seed"] == 0
        assert len(entry["stats"]["round_positions"]) == entry["stats"]["rounds"] == 3
    assert slow["method"]["run_started"] == fast["method"]["run_started"]
    # each round ran both variants once: their places in a round are 0 and 1, in some order
    for pair in zip(
        slow["stats"]["round_positions"], fast["stats"]["round_positions"], strict=True
    ):
        assert sorted(pair) == [0, 1]
    assert "speedup" not in slow  # the baseline
    assert fast["speedup"]["vs"] == "slow"
    assert fast["speedup"]["low"] <= fast["speedup"]["point"] <= fast["speedup"]["high"]


LOGGING_PIDS = """
    import os, time
    VARIANTS = {"one": "sleeps 2 ms", "two": "sleeps 1 ms"}
    BASELINE = "one"
    ISOLATE_VARIANTS = True

    def make_workload(variant, size="full"):
        with open(os.environ["PROCESS_LOG"], "a") as log:
            log.write(f"{variant} {os.getpid()}\\n")
        delay = {"one": 0.002, "two": 0.001}[variant]
        return (lambda: time.sleep(delay) or delay), 1
"""


def test_isolated_variants_alternate_fresh_processes(snippets_dir, tmp_path, monkeypatch):
    (snippets_dir / "demo" / "isolated.py").write_text(textwrap.dedent(LOGGING_PIDS))
    log = tmp_path / "processes.log"
    monkeypatch.setenv("PROCESS_LOG", str(log))
    method = {
        "size": "small", "warmup": 1, "min_rounds": 2, "max_rounds": 4, "budget_s": 0.0,
        "process_rounds": 2,
    }  # fmt: skip
    args = arguments.parse_args(["--snippets-dir", str(snippets_dir)])
    snippet = next(s for s in catalog.select(["demo/isolated"], snippets_dir))
    report = variant_processes.measure_snippet(snippet, method, args)
    started = [line.split() for line in log.read_text().splitlines()]
    assert len({pid for _, pid in started}) == 4  # 2 variants x 2 process rounds, all fresh
    assert sorted(v for v, _ in started[:2]) == ["one", "two"]  # both ran before round 2
    assert sorted(v for v, _ in started[2:]) == ["one", "two"]
    for variant in ("one", "two"):
        stats = report["variants"][variant]["stats"]
        assert stats["rounds"] == 4 and len(stats["times_s"]) == 4  # 2 runs per process
        assert len(stats["first_calls_s"]) == 2  # one first call per fresh process
    assert report["schedule"]["kind"] == "alternating processes"
    # round i of one variant sits in the same process round as round i of the other
    positions = [report["variants"][v]["stats"]["round_positions"] for v in ("one", "two")]
    for pair in zip(*positions, strict=True):
        assert sorted(pair) == [0, 1]


SKIPPED_HERE = """
    import os
    SKIP_ON_STACKS = {"tf216-keras3": "stands for a snippet this stack cannot run"}
    VARIANTS = {"x": "would kill its process"}
    BASELINE = "x"

    def make_workload(variant, size="full"):
        return (lambda: os._exit(3)), 1
"""


@pytest.mark.end_to_end
def test_a_snippet_declared_unable_to_run_on_the_stack_is_skipped_by_name(
    snippets_dir, tmp_path, capsys
):
    (snippets_dir / "demo" / "skipped.py").write_text(textwrap.dedent(SKIPPED_HERE))
    out_dir = tmp_path / "out"
    only = ["--only", "demo/skipped", "--only", "demo/good", "--stack", "tf216-keras3"]
    assert run_measure(snippets_dir, out_dir, *only) == 0
    out = capsys.readouterr().out
    reason = "skipped on stack tf216-keras3: stands for a snippet this stack cannot run"
    assert f"demo/skipped: {reason}" in out.split("Summary")[1]  # named in the summary too
    entries = results_views.view(results.read(results_file(out_dir)))["entries"]
    assert "demo/good:fast" in entries and not any(k.startswith("demo/skipped") for k in entries)
    malformed = (
        textwrap.dedent(SKIPPED_HERE)
        .replace(
            'SKIP_ON_STACKS = {"tf216-keras3": "stands', 'SKIP_ON_STACKS = ["tf216-keras3", "stands'
        )
        .replace('cannot run"}', 'cannot run"]')
    )
    (snippets_dir / "demo" / "skipped.py").write_text(malformed)
    assert run_measure(snippets_dir, out_dir, "--only", "demo/skipped") == 2
    assert "skipped.py: SKIP_ON_STACKS must be a literal dict" in capsys.readouterr().err


def test_a_child_report_that_breaks_its_format_is_that_snippets_error_naming_the_field(tmp_path):
    """The parent holds the child's report to messages.ChildReport: a wrong field becomes the
    snippet's error, naming the file and the field, instead of a KeyError later."""
    snippet = catalog.Snippet("demo/good", tmp_path / "good.py")
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"variants": {"fast": {"stats": {}}}, "devices": "CPU"}))
    report = children.read_report(path, snippet)
    assert report["variants"] == {}
    assert str(path) in report["error"] and "devices" in report["error"], report["error"]
    path.write_text(json.dumps({"variants": {"fast": {"stats": {}}}, "devices": ["CPU:0"]}))
    assert children.read_report(path, snippet)["variants"] == {"fast": {"stats": {}}}
    assert children.read_report(tmp_path / "none.json", snippet) == {"variants": {}}
