"""Passing NumPy arrays to every training step vs converting them to tensors once.

Run it directly: `python conversion.py` (or `small`). A batch of 256 random 64x64x3 float32
images (12 MiB), made locally, trains a deliberately light model, so the per-step cost of
turning the NumPy array into a tensor is visible next to the step itself.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

BATCH, CLASSES = 256, 10
STEPS_PER_RUN = {"full": 20, "small": 2}

VARIANTS = {
    "numpy_each_step": "train_on_batch(x, y) with NumPy arrays: converted at every step",
    "tensor_once": "tf.constant(x) once before the loop, then train_on_batch on the tensors",
}
BASELINE = "numpy_each_step"


def build_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(64, 64, 3)),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


# --8<-- [start:convert]
def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does some train_on_batch steps on one batch."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 64, 64, 3), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=BATCH)
    if variant == "tensor_once":
        x, y = tf.constant(x), tf.constant(y)  # one copy, made before the loop
    model = build_model()
    steps = STEPS_PER_RUN[size]

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)  # NumPy input is copied into a new tensor
        return loss

    return run, steps * BATCH


# --8<-- [end:convert]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{variant:16s} {median * 1e3:9.1f} ms/run {examples / median:9.0f} examples/s")
