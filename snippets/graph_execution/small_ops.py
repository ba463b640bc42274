"""A training step made of many small ops: eager, tf.function, and tf.function with XLA.

Run it directly to time every variant on your machine: `python small_ops.py` (or `small`).
The step is a hand-written recurrent cell unrolled over 20 time steps on random data made
locally: hundreds of small ops per step, each on a 16 x 32 tensor.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf

BATCH, TIME_STEPS, FEATURES, HIDDEN = 16, 20, 8, 32
STEPS_PER_RUN = {"full": 5, "small": 2}

VARIANTS = {
    "eager": "plain Python function, every op dispatched one by one (eager)",
    "tf_function": "the same function under @tf.function (one graph per step)",
    "xla": "the same function under @tf.function(jit_compile=True) (XLA)",
}
BASELINE = "eager"


# --8<-- [start:step]
def make_cell(seed: int = 0):
    rng = np.random.default_rng(seed)

    def weight(*shape):
        return tf.Variable(rng.standard_normal(shape, dtype=np.float32) * 0.1)

    return [weight(FEATURES, HIDDEN), weight(HIDDEN, HIDDEN), weight(HIDDEN), weight(HIDDEN, 1)]


def train_step(weights, inputs, targets, learning_rate=0.01):
    """Unroll a small recurrent cell, compute a loss, and apply plain gradient descent."""
    w_in, w_hidden, bias, w_out = weights
    with tf.GradientTape() as tape:
        state = tf.zeros((BATCH, HIDDEN))
        for t in range(TIME_STEPS):  # a Python loop: unrolled into the graph when traced
            state = tf.tanh(inputs[:, t] @ w_in + state @ w_hidden + bias)
        prediction = state @ w_out
        loss = tf.reduce_mean(tf.square(prediction - targets))
    for weight, gradient in zip(weights, tape.gradient(loss, weights), strict=True):
        weight.assign_sub(learning_rate * gradient)
    return loss


# --8<-- [end:step]


# --8<-- [start:variants]
def compiled_step(variant: str):
    if variant == "eager":
        return train_step
    if variant == "tf_function":
        return tf.function(train_step)
    if variant == "xla":
        return tf.function(train_step, jit_compile=True)
    raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")


# --8<-- [end:variants]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does STEPS_PER_RUN training steps."""
    step = compiled_step(variant)
    rng = np.random.default_rng(1)
    inputs = tf.constant(rng.standard_normal((BATCH, TIME_STEPS, FEATURES), dtype=np.float32))
    targets = tf.constant(rng.standard_normal((BATCH, 1), dtype=np.float32))
    weights = make_cell()
    steps = STEPS_PER_RUN[size]

    def run():
        for _ in range(steps):
            loss = step(weights, inputs, targets)
        return loss

    return run, steps * BATCH


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up: the first call traces (and compiles, for XLA), so it is not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run().numpy()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{variant:12s} {median * 1e3:9.1f} ms/run {examples / median:10.0f} examples/s")
