"""The input experiment's view of the reader's tf.data pipeline (scripts/tuning/pipeline.py):
maps written without num_parallel_calls and a missing prefetch are found in the dataset's
serialised graph, and the rewritten pipeline runs those maps in parallel and gives the same
elements, Python functions (py_function, from_generator) included."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf

from scripts.tuning import experiments, pipeline, report


def doubled(x):
    return x * 2


def with_py_function(x):
    return tf.py_function(doubled, [x], tf.int64)


def elements(dataset) -> list:
    return [value.numpy().tolist() for value in dataset]


def test_sequential_maps_and_a_missing_prefetch_are_found():
    plain = tf.data.Dataset.range(8).map(with_py_function).map(lambda x: x + 1).batch(2)
    assert pipeline.inspect(tf, plain) == {
        "sequential_maps": 2,
        "parallel_maps": 0,
        "prefetched": False,
        "cached": False,
        "stages": [
            {"stage": "range", "python": False},
            {"stage": "map", "python": True},
            {"stage": "map", "python": False},
            {"stage": "batch", "python": False},
        ],
    }
    options = tf.data.Options()
    options.deterministic = True
    tuned = (
        tf.data.Dataset.range(8)
        .map(with_py_function, num_parallel_calls=tf.data.AUTOTUNE)
        .batch(2)
        .prefetch(tf.data.AUTOTUNE)
        .with_options(options)  # a wrapper, looked through
    )
    found = pipeline.inspect(tf, tuned)
    assert {k: v for k, v in found.items() if k != "stages"} == {
        "sequential_maps": 0,
        "parallel_maps": 1,
        "prefetched": True,
        "cached": False,
    }
    assert [s["stage"] for s in found["stages"]] == ["range", "parallel map", "batch", "prefetch"]


def test_a_generator_and_a_cache_are_named_in_order():
    dataset = tf.data.Dataset.from_generator(
        lambda: iter(np.arange(6)), output_signature=tf.TensorSpec((), tf.int64)
    )
    found = pipeline.inspect(tf, dataset.batch(2).cache().prefetch(tf.data.AUTOTUNE))
    assert found["cached"] and found["prefetched"]
    assert found["stages"] == [
        {"stage": "from_generator", "python": True},
        {"stage": "batch", "python": False},
        {"stage": "cache", "python": False},
        {"stage": "prefetch", "python": False},
    ]
    assert report.pipeline_line({"pipeline": found}) == (
        "from_generator (Python) > batch > cache > prefetch: 0 maps without "
        "num_parallel_calls, 0 with it, a cache(), ends in a prefetch"
    )


@pytest.mark.parametrize("source", ["range", "generator"])
def test_the_parallel_pipeline_gives_the_same_batches(source):
    if source == "range":
        dataset = tf.data.Dataset.range(10)
    else:
        dataset = tf.data.Dataset.from_generator(
            lambda: iter(np.arange(10)), output_signature=tf.TensorSpec((), tf.int64)
        )
    dataset = dataset.map(with_py_function).map(lambda x: x + 1).batch(3)
    parallel = pipeline.parallelized(tf, dataset)
    assert pipeline.inspect(tf, parallel)["sequential_maps"] == 0
    assert pipeline.inspect(tf, parallel)["parallel_maps"] == 2
    assert elements(parallel) == elements(dataset) == [[1, 3, 5], [7, 9, 11], [13, 15, 17], [19]]


def test_the_arm_follows_what_was_found():
    facts = {"data_kind": "dataset"}
    found = {"sequential_maps": 2, "parallel_maps": 0, "prefetched": False}
    names = [a.name for a in experiments.arms("input", {**facts, "pipeline": found})]
    assert names == ["as_given", "in_memory", "parallel_map"]
    (arm,) = experiments.arms("input", {**facts, "pipeline": found})[2:]
    assert "on its 2 maps and .prefetch(tf.data.AUTOTUNE) added" in arm.label
    done = {**found, "sequential_maps": 0, "prefetched": True}
    names = [
        a.name for a in experiments.arms("input", {**facts, "pipeline": done, "prefetched": True})
    ]
    assert names == ["as_given", "in_memory"]
    assert report.pipeline_line({"pipeline": found}) == (
        "2 maps without num_parallel_calls, 0 with it, no prefetch at the end"
    )
    assert report.pipeline_line({"pipeline": {"error": "InvalidArgumentError: x"}}) == (
        "not inspected (InvalidArgumentError: x)"
    )
