"""The input experiment's advice reads the reader's pipeline (issue 27): it names the usual
fixes the pipeline already has, never advises one of them, and where it has them all, says
which stage costs the time when the inspection can tell. Fake inspections, no TensorFlow."""

from __future__ import annotations

from scripts.tuning import experiments


def stage(name: str, python: bool = False) -> dict:
    return {"stage": name, "python": python}


def change(found: dict | None) -> str:
    arms = experiments.arms("input", {"data_kind": "dataset", "pipeline": found})
    return next(arm for arm in arms if arm.name == "in_memory").change


CACHED_AND_PREFETCHED = {
    "sequential_maps": 0,
    "parallel_maps": 0,
    "prefetched": True,
    "cached": True,
    "stages": [stage("from_tensor_slices"), stage("batch"), stage("cache"), stage("prefetch")],
}


def test_a_pipeline_that_caches_and_prefetches_is_not_told_to_add_them():
    text = change(CACHED_AND_PREFETCHED)
    assert "keep up" not in text and "prefetch(tf.data.AUTOTUNE)" not in text
    assert text.startswith("the pipeline already has cache(), a prefetch at the end:")
    assert "prepare the data once" in text


def test_only_the_missing_fixes_are_advised_and_the_present_ones_named():
    found = {
        "sequential_maps": 0,
        "parallel_maps": 1,
        "prefetched": True,
        "cached": False,
        "stages": [stage("range"), stage("parallel map"), stage("batch"), stage("prefetch")],
    }
    text = change(found)
    assert text.startswith("make the input pipeline keep up: cache(), or prepare the data once")
    assert "(it already has a prefetch at the end and parallel maps)" in text
    assert "num_parallel_calls" not in text and "prefetch(tf.data" not in text


def test_a_generator_is_named_as_the_stage_that_costs_the_time():
    found = {
        "sequential_maps": 0,
        "parallel_maps": 0,
        "prefetched": True,
        "cached": True,
        "stages": [
            stage("from_generator", True),
            stage("batch"),
            stage("prefetch"),
            stage("cache"),
        ],
    }
    # the cache comes last: the generator's examples are replayed, nothing after it costs
    assert "Python" not in change(found)
    found["stages"] = [stage("from_generator", True), stage("batch"), stage("cache"),
                       stage("map", True), stage("prefetch")]  # fmt: skip
    text = change(found)
    assert text.startswith("the pipeline already has cache(), a prefetch at the end:")
    assert "its map stage runs Python for every element" in text


def test_per_element_maps_before_batch_are_named_when_nothing_runs_python():
    found = {
        "sequential_maps": 0,
        "parallel_maps": 2,
        "prefetched": True,
        "cached": False,
        "stages": [
            stage("range"),
            stage("parallel map"),
            stage("parallel map"),
            stage("batch"),
            stage("prefetch"),
        ],  # fmt: skip
    }
    assert "its 2 per-element stages before batch (parallel map, parallel map)" in change(found)


def test_without_an_inspection_the_usual_fixes_are_listed():
    for found in (None, {"error": "InvalidArgumentError: x"}):
        assert change(found) == (
            f"make the input pipeline keep up: {experiments.USUAL_FIXES}, or prepare the data once"
        )


def test_no_arm_adds_what_the_pipeline_has():
    facts = {"data_kind": "dataset", "pipeline": CACHED_AND_PREFETCHED, "prefetched": True}
    assert [arm.name for arm in experiments.arms("input", facts)] == ["as_given", "in_memory"]
