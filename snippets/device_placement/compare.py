"""CPU or GPU for your model? The same training steps placed with tf.device, timed warmed up.

Run it directly: `python compare.py` (or `small`). To test your own model, replace
build_model() and make_batch() with yours. The variant "gpu" exists only when TensorFlow
sees a GPU (on a Mac: tensorflow-metal installed and loaded). Data are random, made locally.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

CLASSES, BATCH, TIMESTEPS, FEATURES = 10, 32, 50, 32
STEPS_PER_RUN = {"full": 10, "small": 2}

VARIANTS = {"cpu": "train_on_batch steps inside tf.device('/CPU:0')"}
# tf.device('/GPU:0') on a machine without a GPU silently runs on the CPU (soft placement),
# so a "gpu" row there would be a second CPU measurement under a wrong name.
if tf.config.list_physical_devices("GPU"):
    VARIANTS["gpu"] = "the same steps inside tf.device('/GPU:0')"
BASELINE = "cpu"


# --8<-- [start:model]
def build_model() -> keras.Model:
    """A small LSTM classifier: the kind of model users report runs faster on the CPU."""
    model = keras.Sequential(
        [
            keras.Input(shape=(TIMESTEPS, FEATURES)),
            keras.layers.LSTM(64),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def make_batch(seed: int = 0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, TIMESTEPS, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=BATCH)
    return x, y


# --8<-- [end:model]


# --8<-- [start:compare]
def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does some training steps on one device."""
    if variant == "gpu" and not tf.config.list_physical_devices("GPU"):
        raise RuntimeError("variant 'gpu' needs a GPU, and TensorFlow sees none on this machine")
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    device = "/GPU:0" if variant == "gpu" else "/CPU:0"
    with tf.device(device):  # the model's weights are created on this device
        model = build_model()
        x, y = (tf.constant(array) for array in make_batch())  # the batch too, once
    steps = STEPS_PER_RUN[size]

    def run():
        with tf.device(device):
            for _ in range(steps):
                loss = model.train_on_batch(x, y)
        return loss

    return run, steps * BATCH


# --8<-- [end:compare]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if "gpu" not in VARIANTS:
        print("gpu: skipped, TensorFlow sees no GPU on this machine", file=sys.stderr)
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        start = time.perf_counter()
        run()  # the first run traces the training step: timing it alone misleads
        first = time.perf_counter() - start
        times = []
        for _ in range(5):
            start = time.perf_counter()
            float(run())
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:4s} {median * 1e3:9.1f} ms/run {examples / median:9.0f} examples/s"
            f" (first run {first * 1e3:.0f} ms)"
        )
