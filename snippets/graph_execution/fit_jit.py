"""model.fit with Keras's default compile and with compile(jit_compile=True) (XLA).

Run it directly to time every variant on your machine: `python fit_jit.py` (or `small`).
An MNIST-shaped classifier (784 -> 256 -> 256 -> 10) on random data made locally.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, CLASSES, BATCH = 784, 10, 128
BATCHES_PER_RUN = {"full": 20, "small": 2}

VARIANTS = {
    "default": 'compile() as usually written (jit_compile="auto")',
    "jit_compile": "compile(jit_compile=True): the train step is compiled by XLA",
}
BASELINE = "default"


# --8<-- [start:compile]
def build_model(**compile_options) -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(CLASSES),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        **compile_options,
    )
    return model


COMPILE_OPTIONS = {
    "default": {},
    "jit_compile": {"jit_compile": True},
}
# --8<-- [end:compile]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() is one epoch of model.fit."""
    if variant not in COMPILE_OPTIONS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    model = build_model(**COMPILE_OPTIONS[variant])
    examples = BATCHES_PER_RUN[size] * BATCH
    rng = np.random.default_rng(0)
    x = rng.standard_normal((examples, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=examples)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).cache()

    def run():
        history = model.fit(dataset, epochs=1, verbose=0)
        return history.history["loss"][-1]

    run.model = model
    return run, examples


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up: the first fit traces (and compiles, for XLA), so it is not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:12s} {median * 1e3:9.1f} ms/run {examples / median:10.0f} examples/s"
            f"   (model.jit_compile resolved to {run.model.jit_compile})"
        )
