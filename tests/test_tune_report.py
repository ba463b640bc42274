"""tune's verdicts and report from given timings (no TensorFlow): intervals that hold 1.00 say
"no clear difference", only clear gains are recommended, one per experiment, a mixed
precision arm whose loss differs never is; the table names machine, versions and date, and
every guide link points at a heading that exists."""

from __future__ import annotations

import json
import random
import re

import pytest
from markdown.extensions.toc import slugify

from scripts.tuning import analysis, experiments, report, runner

FACTS = {
    "keras_package": "tf_keras",
    "keras_version": "2.16.0",
    "tensorflow_version": "2.16.2",
    "devices": ["CPU:0"],
    "gpu": False,
    "data_kind": "dataset",
    "prefetched": False,
    "batch_size": 32,
    "steps_per_run": 10,
    "run_eagerly": False,
    "jit_compile": False,
    "policy": "float32",
    "logical_cores": 2,
    "parameters": 1234,
}


def timings(median_s: float, rounds: int = 12, spread: float = 0.02, seed: int = 0) -> list[float]:
    rng = random.Random(seed)
    return [median_s * (1 + rng.uniform(-spread, spread)) for _ in range(rounds)]


def arm(median_s: float, samples: int = 320, **extra) -> dict:
    return {
        "label": "",
        "samples_per_run": samples,
        "times_s": timings(median_s, seed=int(median_s * 1e6)),
        **extra,
    }


def rows(experiment: str, arms: dict, facts: dict = FACTS) -> dict[str, analysis.Row]:
    return {r.arm: r for r in analysis.rows_for(experiment, {"arms": arms}, facts)}


def test_a_clear_gain_is_recommended_and_an_interval_holding_one_is_not():
    found = rows("input", {"as_given": arm(0.010), "in_memory": arm(0.005), "prefetch": arm(0.010)})
    assert found["in_memory"].verdict == analysis.FASTER and found["in_memory"].recommended
    assert found["in_memory"].low > 1.0 and found["in_memory"].point == pytest.approx(2.0, rel=0.05)
    assert found["prefetch"].verdict == analysis.NO_CLEAR and not found["prefetch"].recommended
    assert found["prefetch"].low <= 1.0 <= found["prefetch"].high


def test_slower_and_too_small_gains_are_not_recommended():
    found = rows(
        "input", {"as_given": arm(0.010), "in_memory": arm(0.0098), "prefetch": arm(0.013)}
    )
    assert found["in_memory"].verdict in (analysis.SMALL, analysis.NO_CLEAR)
    assert found["prefetch"].verdict == analysis.SLOWER
    assert not any(r.recommended for r in found.values())


def test_samples_per_second_decide_the_batch_size_arms():
    # x4 the samples in 3x the time: 1.33x the samples per second
    found = rows(
        "batch", {"as_given": arm(0.010), "batch_x2": arm(0.020, 640), "batch_x4": arm(0.030, 1280)}
    )
    assert found["batch_x2"].verdict == analysis.NO_CLEAR
    assert found["batch_x4"].point == pytest.approx(4 / 3, rel=0.05)
    assert found["batch_x4"].recommended


def test_an_arm_that_ran_out_of_memory_fails_alone():
    found = rows(
        "batch",
        {
            "as_given": arm(0.010),
            "batch_x2": arm(0.015, 640),
            "batch_x4": {
                "label": "",
                "error": "did not fit in memory (ResourceExhaustedError: OOM)",
            },
        },
    )
    assert found["batch_x2"].recommended
    assert found["batch_x4"].verdict == analysis.FAILED
    assert "did not fit in memory" in found["batch_x4"].note


def test_faster_mixed_precision_with_a_different_loss_is_reported_never_recommended():
    agrees = {
        "agrees": True,
        "steps": 10,
        "loss_float32": 2.0,
        "loss_variant": 2.001,
        "relative_difference": 0.0005,
        "tolerance": 0.02,
    }
    differs = {**agrees, "agrees": False, "loss_variant": 2.5, "relative_difference": 0.25}
    found = rows(
        "precision",
        {
            "as_given": arm(0.010),
            "mixed_float16": arm(0.005, agreement=differs),
            "mixed_bfloat16": arm(0.006, agreement=agrees),
        },
    )
    assert found["mixed_float16"].verdict == analysis.LOSS_DIFFERS
    assert not found["mixed_float16"].recommended
    assert "25.00% apart, tolerance 2%" in found["mixed_float16"].note
    assert found["mixed_bfloat16"].recommended


def test_too_few_rounds_give_no_interval():
    short = {"label": "", "samples_per_run": 320, "times_s": [0.005, 0.005]}
    found = rows("input", {"as_given": arm(0.010), "in_memory": short})
    assert found["in_memory"].verdict == analysis.FAILED
    assert "too few timed runs" in found["in_memory"].note


def test_the_arms_follow_the_model():
    eager = experiments.arms("graph", {**FACTS, "run_eagerly": True})
    assert [a.name for a in eager] == ["as_given", "graph"]  # XLA is asked once it is a graph
    assert [a.name for a in experiments.arms("graph", {**FACTS, "jit_compile": True})] == [
        "as_given",
        "xla_off",
    ]
    assert "prefetch" not in [
        a.name for a in experiments.arms("input", {**FACTS, "prefetched": True})
    ]
    assert [a.name for a in experiments.arms("threads", {**FACTS, "logical_cores": 8})] == [
        "as_given",
        "intra_1",
        "intra_2",
        "intra_8",
    ]
    assert [a.name for a in experiments.arms("threads", {**FACTS, "logical_cores": 1})] == [
        "as_given",
        "intra_1",
    ]
    chosen, skipped = runner.plan(None, {**FACTS, "gpu": True, "policy": "mixed_float16"})
    assert chosen == ["input", "graph", "device", "batch", "drift", "correctness"]
    assert "GPU" in skipped["threads"] and "mixed_float16" in skipped["precision"]
    chosen, skipped = runner.plan(["graph"], FACTS)
    assert chosen == ["graph"] and skipped["input"] == "not chosen (--only)"


def test_a_model_that_retraces_is_told_so_with_the_guides_section():
    retraces = {**FACTS, "traces": [3, 1, 1, 0, 1, 1]}
    steady = {**FACTS, "traces": [3, 1, 0, 0, 0, 0]}  # one retrace: Keras generalising a shape
    assert experiments.retracing(retraces) and not experiments.retracing(steady)
    (eager,) = experiments.arms("graph", {**retraces, "run_eagerly": True})[1:]
    assert eager.name == "graph" and eager.link == experiments.RETRACING_LINK
    (plain,) = experiments.arms("graph", {**steady, "run_eagerly": True})[1:]
    assert plain.link != experiments.RETRACING_LINK
    assert report.traces_line(retraces).endswith(
        "the model RETRACES (docs/graph-execution.md#the-retracing-trap)"
    )
    assert (
        report.traces_line(steady)
        == "3 in the first training step, 1 in the 5 after it (1 0 0 0 0)"
    )
    silent = {**FACTS, "traces": [0, 0, 0, 0, 0, 0]}  # a graph model's first step traces
    assert report.traces_line(silent).startswith("not counted")
    assert report.traces_line({**silent, "run_eagerly": True}).startswith("0 in the first")
    note = report.retracing_note(retraces)  # a graph already: advice, not an A/B
    assert note.startswith("the model traced again in 4 of the 5 steps after its first")
    assert report.retracing_note(steady) is None
    assert report.retracing_note({**retraces, "run_eagerly": True}) is None  # the arm says it
    found = a_report()
    found["facts"] = retraces
    assert "Traces:   3 in the first" in report.to_text(found)
    assert note in report.to_text(found) and "<dt>Traces</dt>" in report.to_html(found)


def docs_anchors(root, page: str) -> set[str]:
    text = (root / page).read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a '#' comment in code is no heading
    headings = re.findall(r"^#{1,6}\s+(.+?)\s*$", text, flags=re.MULTILINE)
    return {slugify(re.sub(r"[`*]", "", h), "-") for h in headings}


def test_every_guide_link_points_at_a_heading_that_exists(root):
    facts = [FACTS, {**FACTS, "run_eagerly": True}, {**FACTS, "data_kind": "arrays"}]
    facts.append({**FACTS, "run_eagerly": True, "traces": [1, 1, 1, 1, 1, 1]})
    facts.append({**FACTS, "pipeline": {"sequential_maps": 1, "parallel_maps": 0}})
    links = {
        a.link for f in facts for e in experiments.ORDER for a in experiments.arms(e, f) if a.link
    }
    assert len(links) >= 8
    for link in links:
        page, anchor = link.split("#")
        assert anchor in docs_anchors(root, page), link


def a_report() -> dict:
    measured = {
        "input": {
            "arms": {"as_given": arm(0.010), "in_memory": arm(0.004), "prefetch": arm(0.006)}
        },
        "graph": {"arms": {"as_given": arm(0.010), "xla_on": arm(0.0101)}},
    }
    found = {
        "file": "my_model.py",
        "date": "2026-11-24T03:00:00Z",
        "machine": {"description": "Apple M1 Pro, 10-core CPU (8P+2E), 16-core GPU, 16 GB"},
        "software": {
            "python": "3.11.7",
            "tensorflow": "2.16.2",
            "keras": None,
            "numpy": "1.26.4",
            "tensorflow_metal": "1.1.0",
        },
        "facts": FACTS,
        "experiments": measured,
        "skipped": {"threads": "not chosen (--only)"},
        "rows": [],
        "notes": [],
        "interrupted": False,
        "error": None,
    }
    runner.finish(found)
    return found


def test_the_terminal_report_ranks_by_speed_up_and_says_what_to_change():
    text = report.to_text(a_report())
    for needed in (
        "my_model.py",
        "2026-11-24T03:00:00Z",
        "Apple M1 Pro",
        "TensorFlow 2.16.2",
        "Keras 2.16.0 (tf_keras)",
        "tensorflow-metal 1.1.0",
        "1,234 parameters",
    ):
        assert needed in text
    table = text[text.index("#  experiment") :]
    assert table.index("held in memory") < table.index(".prefetch") < table.index("XLA on")
    assert "no clear difference" in table
    changes = text[text.index("What to change") :]
    assert changes.count("see docs/") == 1  # the best of the input arms, once
    assert "see docs/input-pipeline.md#what-to-do" in changes
    assert "getting the next batch takes about 60% of a training step" in text
    assert "CPU threads: not chosen (--only)" in text


def test_the_json_report_carries_the_same_rows():
    found = a_report()
    again = json.loads(report.to_json(found))
    assert [r["arm"] for r in again["rows"]] == ["in_memory", "prefetch", "xla_on"]
    assert again["rows"][0]["recommended"] is True
    assert again["machine"] and again["software"] and again["date"]


def test_an_interrupted_or_failed_run_says_so():
    found = a_report()
    found["interrupted"] = True
    assert "interrupted (Ctrl-C)" in report.to_text(found)
    found["error"] = "my_model.py: build_model() is not defined; expected ..."
    text = report.to_text(found)
    assert "error: my_model.py: build_model() is not defined" in text
    assert "Nothing was measured." in text


def test_the_pages_example_is_the_committed_runs_report(root):
    # docs/tune.md shows the text; the JSON beside it is the run. The text must be what the
    # run's report renders to (never typed), and the run must find the snippet's known factor.
    folder = root / "docs" / "_generated" / "tune"
    run = folder / "conversion_numpy_each_step.json"  # beside validation.json, overhead.json
    found = json.loads(run.read_text(encoding="utf-8"))
    assert run.with_suffix(".txt").read_text(encoding="utf-8") == report.to_text(found)
    assert (
        f"docs/_generated/tune/{run.with_suffix('.txt').name}"
        in (root / "docs" / "tune.md").read_text()
    )
    top = analysis.recommendations(found["rows"])[0]
    assert (top["experiment"], top["arm"]) == ("input", "in_memory") and top["low"] > 1.0
    assert not found["interrupted"] and not found["error"]


def test_the_help_prints_its_text_as_written(capsys):
    """argparse formats each option's help with %, never the description: a "%%" there was
    printed as written ("95%% interval")."""
    from scripts import tune

    with pytest.raises(SystemExit):
        tune.parse_args(["--help"], "python -m scripts.tune")
    shown = " ".join(capsys.readouterr().out.split())
    assert "each an A/B with a 95% interval, on this machine." in shown
    assert "%%" not in shown
