"""Throughput against batch size for a small MNIST-shaped network (784 -> 128 -> 10).

Run it directly to time every batch size on your machine: `python mlp.py` (or `small`).
Every run trains on the same number of examples, so a faster run means more examples per
second. The data are random arrays of MNIST's shape, made locally; nothing is downloaded.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, HIDDEN, CLASSES = 784, 128, 10
EXAMPLES_PER_RUN = {"full": 2048, "small": 1024}

# One variant per batch size; a run is EXAMPLES_PER_RUN examples in steps of that size.
VARIANTS = {
    "batch_8": "8 examples per step",
    "batch_16": "16 examples per step",
    "batch_32": "32 examples per step",
    "batch_64": "64 examples per step",
    "batch_128": "128 examples per step",
    "batch_256": "256 examples per step",
    "batch_512": "512 examples per step",
    "batch_1024": "1024 examples per step",
}
BASELINE = "batch_32"


def batch_size_of(variant: str) -> int:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")
    return int(variant.removeprefix("batch_"))


# --8<-- [start:model]
def build_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(HIDDEN, activation="relu"),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


# --8<-- [end:model]


# --8<-- [start:train]
def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() trains on the same examples in steps of one size."""
    batch = batch_size_of(variant)
    steps = EXAMPLES_PER_RUN[size] // batch
    model = build_model()
    rng = np.random.default_rng(0)
    # One batch of random data, kept as tensors: this measures the training step alone.
    x = tf.constant(rng.standard_normal((batch, FEATURES), dtype=np.float32))
    y = tf.constant(rng.integers(0, CLASSES, size=batch))

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        return loss

    return run, steps * batch


# --8<-- [end:train]


# --8<-- [start:flops]
def dense_training_flops(batch: int, n_in: int, n_out: int, input_gradient: bool) -> int:
    """Multiply-adds (2 FLOPs each) of one Dense layer's training step.

    Forward x @ W and the weight gradient x.T @ dy cost 2*batch*n_in*n_out each; the input
    gradient dy @ W.T costs the same again, but only layers with a trainable layer below
    them need it (the first layer does not). Bias, activation and optimizer updates are
    element-wise and left out: they are a small share here.
    """
    matmuls = 3 if input_gradient else 2
    return matmuls * 2 * batch * n_in * n_out


def flops(variant: str, size: str = "full") -> float:
    """Floating-point operations of one run (all its steps), forward and backward."""
    batch = batch_size_of(variant)
    steps = EXAMPLES_PER_RUN[size] // batch
    per_step = dense_training_flops(batch, FEATURES, HIDDEN, input_gradient=False)
    per_step += dense_training_flops(batch, HIDDEN, CLASSES, input_gradient=True)
    return float(steps * per_step)


# --8<-- [end:flops]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        steps = examples // batch_size_of(variant)
        run()  # warm-up: the first call traces and sets up, so it is not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:11s} {median / steps * 1e3:8.2f} ms/step {median * 1e3:8.1f} ms/run "
            f"{examples / median:9.0f} examples/s"
        )
