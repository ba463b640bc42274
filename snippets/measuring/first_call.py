"""The calls popular articles time once, timed properly: first call vs warmed-up median.

Run it directly: `python first_call.py` (or `small`). Each scenario runs in a fresh process,
as it would in a reader's script, and one run is exactly one call, so the first run is the
first call. All data are random tensors of the articles' shapes, made locally.
"""

import statistics
import subprocess
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

SIZES = {
    "full": {"conv_images": 100, "conv_side": 100, "matmul": 2048},
    "small": {"conv_images": 2, "conv_side": 32, "matmul": 256},
}
FEATURES, CLASSES, BATCH, TAPE_STEPS = 256, 10, 32, 10

VARIANTS = {
    "train_on_batch": "one model.train_on_batch call (Dense 512 -> 10, batch 32)",
    "conv2d_call": "one call of a Conv2D(32, 7) layer on 100 images of 100x100x3",
    "matmul_2048": "one 2048 x 2048 float32 matmul",
    "tape_10_steps": "a 10-step GradientTape loop with a @tf.function train step",
}
BASELINE = "train_on_batch"
# Separate scenarios, not alternatives to one another: their tables show no speed-ups.
REFERENCE_VARIANTS = ("conv2d_call", "matmul_2048", "tape_10_steps")
ISOLATE_VARIANTS = True  # a first call is only a first call in a fresh process


# --8<-- [start:timing_helper]
def wait_for(result):
    """Block until a result exists: device work runs asynchronously until it is read."""
    if isinstance(result, (list, tuple)):
        for item in result:
            wait_for(item)
    elif hasattr(result, "numpy"):
        result.numpy()
    return result


def time_call(fn, warmup: int = 2, repeats: int = 10) -> dict:
    """Time fn() properly: the first call on its own, then warm-up, then repeats.

    Returns the first call, the median of the repeats and their spread (IQR / median).
    """
    start = time.perf_counter()
    wait_for(fn())
    first = time.perf_counter() - start
    for _ in range(warmup - 1):
        wait_for(fn())
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        wait_for(fn())
        times.append(time.perf_counter() - start)
    q1, median, q3 = statistics.quantiles(times, n=4, method="inclusive")
    return {"first_s": first, "median_s": median, "spread": (q3 - q1) / median}


# --8<-- [end:timing_helper]


# --8<-- [start:scenarios]
def dense_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def train_on_batch_call():
    model = dense_model()
    x = np.random.default_rng(0).standard_normal((BATCH, FEATURES), dtype=np.float32)
    y = np.random.default_rng(1).integers(0, CLASSES, size=BATCH)
    return lambda: model.train_on_batch(x, y)


def conv2d_call(images: int, side: int):
    layer = keras.layers.Conv2D(32, 7)
    batch = tf.random.normal((images, side, side, 3))
    return lambda: layer(batch)[0, 0, 0]  # one element is enough to wait for the whole call


def matmul_call(n: int):
    a, b = tf.random.normal((n, n)), tf.random.normal((n, n))
    return lambda: tf.matmul(a, b)[0, 0]


def tape_loop():
    model = dense_model()
    optimizer = keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    x = tf.random.normal((BATCH, FEATURES))
    y = tf.random.uniform((BATCH,), maxval=CLASSES, dtype=tf.int32)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
        return loss

    def ten_steps():
        for _ in range(TAPE_STEPS):
            loss = train_step(x, y)
        return loss

    return ten_steps


# --8<-- [end:scenarios]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): one run is exactly one call of the scenario."""
    shapes = SIZES[size]
    if variant == "train_on_batch":
        return train_on_batch_call(), BATCH
    if variant == "conv2d_call":
        return conv2d_call(shapes["conv_images"], shapes["conv_side"]), shapes["conv_images"]
    if variant == "matmul_2048":
        return matmul_call(shapes["matmul"]), 1
    if variant == "tape_10_steps":
        return tape_loop(), BATCH * TAPE_STEPS
    raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")


def flops(variant: str, size: str = "full") -> float | None:
    """FLOPs of one call where the shapes make it simple: the matmul and the convolution."""
    shapes = SIZES[size]
    if variant == "matmul_2048":
        return 2.0 * shapes["matmul"] ** 3
    if variant == "conv2d_call":
        out = shapes["conv_side"] - 7 + 1  # "valid" padding
        return 2.0 * shapes["conv_images"] * out * out * 32 * 7 * 7 * 3
    return None


def report(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    timing = time_call(run)
    first, median = timing["first_s"], timing["median_s"]
    print(
        f"{variant:15s} first call {first * 1e3:8.1f} ms   warmed-up median {median * 1e3:7.2f} ms"
        f"   first/median {first / median:6.1f}x   {examples / median:9.0f} examples/s"
    )


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one scenario, in this fresh process
        report(sys.argv[2], size)
    else:  # each scenario in its own process, so that each first call really is first
        for variant in VARIANTS:
            subprocess.run([sys.executable, __file__, size, variant], check=True)
