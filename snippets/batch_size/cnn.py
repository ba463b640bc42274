"""Throughput against batch size for a small CIFAR-shaped CNN (one Conv2D, pooling, Dense).

Run it directly to time every batch size on your machine: `python cnn.py` (or `small`).
Every run trains on the same number of examples, so a faster run means more examples per
second. The data are random arrays of CIFAR-10's shape, made locally; nothing is downloaded.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

IMAGE, CHANNELS, FILTERS, KERNEL, CLASSES = 32, 3, 32, 3, 10
EXAMPLES_PER_RUN = {"full": 1024, "small": 1024}

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
            keras.Input(shape=(IMAGE, IMAGE, CHANNELS)),
            keras.layers.Conv2D(FILTERS, KERNEL, activation="relu"),
            keras.layers.MaxPooling2D(2),
            keras.layers.Flatten(),
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
    x = tf.constant(rng.random((batch, IMAGE, IMAGE, CHANNELS), dtype=np.float32))
    y = tf.constant(rng.integers(0, CLASSES, size=batch))

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        return loss

    return run, steps * batch


# --8<-- [end:train]


# --8<-- [start:flops]
CONV_OUT = IMAGE - KERNEL + 1  # 30: a 3x3 convolution without padding
POOLED = CONV_OUT // 2  # 15: 2x2 max pooling


def conv_training_flops(batch: int) -> int:
    """Multiply-adds (2 FLOPs each) of the Conv2D layer's training step.

    Forward: every output value (30 x 30 x 32 per image) sums 3 x 3 x 3 products. The weight
    gradient costs the same again; the input gradient is not needed (the images are not
    trained). Bias, ReLU and pooling are element-wise and left out.
    """
    forward = 2 * batch * CONV_OUT * CONV_OUT * FILTERS * KERNEL * KERNEL * CHANNELS
    return 2 * forward


def dense_training_flops(batch: int, n_in: int, n_out: int) -> int:
    """Forward, weight gradient and input gradient (to the layers below): 3 matmuls."""
    return 3 * 2 * batch * n_in * n_out


def flops(variant: str, size: str = "full") -> float:
    """Floating-point operations of one run (all its steps), forward and backward."""
    batch = batch_size_of(variant)
    steps = EXAMPLES_PER_RUN[size] // batch
    per_step = conv_training_flops(batch)
    per_step += dense_training_flops(batch, POOLED * POOLED * FILTERS, CLASSES)
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
