"""A known tensorflow-metal issue and its workaround: MatMul + BiasAdd + Relu in graph mode.

Run it directly: `python fused_dense.py` (or `small`). Both variants compute
relu(x @ W + b) inside a tf.function and print the largest difference from the same
computation in float64 NumPy. On this kind of CPU both agree to float32 rounding; on a Mac
where the fused kernel is wrong (as reported) the first line's error is large. Data are
random, made locally.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf

SHAPES = {"full": (256, 512), "small": (8, 16)}  # batch, width of every layer
LAYERS = 20  # one run: the same layer applied 20 times in a chain

VARIANTS = {
    "fused": "tf.nn.bias_add then relu: the pattern graph mode fuses into _FusedMatMul",
    "add_then_relu": "x @ W + b then relu: the workaround reported for Metal",
}
BASELINE = "fused"


# --8<-- [start:forms]
def dense_fused(x, w, b):
    return tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w), b))


def dense_add(x, w, b):
    return tf.nn.relu(x @ w + b)  # AddV2 instead of BiasAdd


# --8<-- [end:forms]


def make_inputs(size: str):
    batch, width = SHAPES[size]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, width), dtype=np.float32)
    w = rng.standard_normal((width, width), dtype=np.float32) * np.float32(np.sqrt(2.0 / width))
    b = rng.standard_normal(width, dtype=np.float32) * np.float32(0.1)
    return x, w, b


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() sends one batch through LAYERS dense layers."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    dense = dense_fused if variant == "fused" else dense_add
    x, w, b = (tf.constant(array) for array in make_inputs(size))

    @tf.function  # graph mode: where the fusion, and the reported error, happen
    def run():
        h = x
        for _ in range(LAYERS):
            h = dense(h, w, b)
        return h

    return run, SHAPES[size][0]


def flops(variant: str, size: str = "full") -> float:
    batch, width = SHAPES[size]
    return 2.0 * batch * width * width * LAYERS


# --8<-- [start:check]
def largest_error(result, size: str) -> float:
    """Largest difference from the same layers computed in float64 by NumPy."""
    h, w, b = (array.astype(np.float64) for array in make_inputs(size))
    for _ in range(LAYERS):
        h = np.maximum(h @ w + b, 0.0)
    return float(np.abs(result.numpy() - h).max())


# --8<-- [end:check]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        result = run()  # warm-up: tracing, graph optimisation (the fusion) happen here
        times = []
        for _ in range(5):
            start = time.perf_counter()
            result = run()
            result.numpy()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:14s} {median * 1e3:8.2f} ms/run {examples / median:9.0f} examples/s"
            f"  largest error vs float64: {largest_error(result, size):.1e}"
        )
