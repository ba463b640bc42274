"""A convolution-heavy training step: eager, tf.function, and tf.function with XLA.

Run it directly to time every variant on your machine: `python conv_step.py` (or `small`).
Three 3x3 convolutions on random 32x32x3 images made locally: a few large ops per step.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf

IMAGE, CLASSES = 32, 10
# (kernel size, input channels, output channels, stride) of each convolution.
LAYERS = [(3, 3, 32, 1), (3, 32, 64, 2), (3, 64, 64, 2)]
SIZES = {"full": {"batch": 64, "steps": 1}, "small": {"batch": 4, "steps": 1}}

VARIANTS = {
    "eager": "plain Python function, every op dispatched one by one (eager)",
    "tf_function": "the same function under @tf.function (one graph per step)",
    "xla": "the same function under @tf.function(jit_compile=True) (XLA)",
}
BASELINE = "eager"


# --8<-- [start:step]
def make_weights(seed: int = 0):
    rng = np.random.default_rng(seed)
    weights = []
    for k, c_in, c_out, _ in LAYERS:
        scale = (2 / (k * k * c_in)) ** 0.5
        weights.append(tf.Variable(rng.standard_normal((k, k, c_in, c_out), np.float32) * scale))
    weights.append(tf.Variable(rng.standard_normal((LAYERS[-1][2], CLASSES), np.float32) * 0.1))
    return weights


def train_step(weights, images, labels, learning_rate=0.01):
    """Three convolutions, global average pooling, a linear head; plain gradient descent."""
    with tf.GradientTape() as tape:
        x = images
        for kernel, (_, _, _, stride) in zip(weights[:-1], LAYERS, strict=True):
            x = tf.nn.relu(tf.nn.conv2d(x, kernel, strides=stride, padding="SAME"))
        logits = tf.reduce_mean(x, axis=(1, 2)) @ weights[-1]
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        )
    for weight, gradient in zip(weights, tape.gradient(loss, weights), strict=True):
        weight.assign_sub(learning_rate * gradient)
    return loss


# --8<-- [end:step]


def compiled_step(variant: str):
    if variant == "eager":
        return train_step
    if variant == "tf_function":
        return tf.function(train_step)
    if variant == "xla":
        return tf.function(train_step, jit_compile=True)
    raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")


def step_flops(batch: int) -> float:
    """Multiply-add FLOPs of one training step: forward, weight gradients, input gradients.

    Backward costs twice the forward for every layer except the first, whose input (the
    images) needs no gradient. Element-wise ops (relu, pooling, loss) are not counted.
    """
    total, size = 0.0, IMAGE
    for index, (k, c_in, c_out, stride) in enumerate(LAYERS):
        size = -(-size // stride)  # SAME padding: ceil(size / stride)
        forward = 2.0 * batch * size * size * c_out * k * k * c_in
        total += forward * (2 if index == 0 else 3)
    return total + 3 * 2.0 * batch * LAYERS[-1][2] * CLASSES


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does one training step (at both sizes)."""
    step = compiled_step(variant)
    batch, steps = SIZES[size]["batch"], SIZES[size]["steps"]
    rng = np.random.default_rng(1)
    images = tf.constant(rng.standard_normal((batch, IMAGE, IMAGE, 3), dtype=np.float32))
    labels = tf.constant(rng.integers(0, CLASSES, size=batch))
    weights = make_weights()

    def run():
        for _ in range(steps):
            loss = step(weights, images, labels)
        return loss

    return run, steps * batch


def flops(variant: str, size: str = "full") -> float:
    return step_flops(SIZES[size]["batch"]) * SIZES[size]["steps"]


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
