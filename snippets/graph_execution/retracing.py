"""The retracing trap: a tf.function that builds a new graph on every call, and its fixes.

Run it directly to time every variant and count its traces: `python retracing.py` (or
`small`). Every variant makes the same calls: each call passes the next step number and a
batch of sequences one step longer than the last (random data made locally), the way a
loop that pads each batch to its longest sequence can. Lengths never repeat here, which is
the worst case.
"""

import itertools
import statistics
import sys
import time

import numpy as np
import tensorflow as tf

BATCH, FEATURES, FIRST_LENGTH = 8, 16, 32
CALLS_PER_RUN = {"full": 4, "small": 3}

VARIANTS = {
    "eager": "plain Python function (eager): nothing to trace",
    "python_scalar": "@tf.function, step passed as a Python int, lengths change",
    "tensor_step": "@tf.function, step passed as a tensor, lengths change",
    "input_signature": "@tf.function(input_signature=...) with an unknown length",
    "reduce_retracing": "@tf.function(reduce_retracing=True), step passed as a tensor",
}
BASELINE = "eager"


# --8<-- [start:function]
def make_loss(counter: list):
    """The function to trace. Under tf.function its Python body runs only while TensorFlow
    traces it, so counter[0] counts traces (in eager mode, it counts calls)."""

    def sequence_loss(sequences, kernel, step):
        counter[0] += 1  # Python side effect: happens while tracing, never in the graph
        decay = tf.pow(0.5, tf.cast(step, tf.float32) / 100.0)
        hidden = tf.tanh(sequences @ kernel)
        return tf.reduce_mean(tf.square(hidden)) * decay

    return sequence_loss


# --8<-- [end:function]


# --8<-- [start:variants]
SIGNATURE = [
    tf.TensorSpec(shape=(None, None, FEATURES), dtype=tf.float32),  # any batch, any length
    tf.TensorSpec(shape=(FEATURES, FEATURES), dtype=tf.float32),
    tf.TensorSpec(shape=(), dtype=tf.int32),
]


def make_function(variant: str, counter: list):
    """Return (function, step_as_tensor) for a variant."""
    loss = make_loss(counter)
    if variant == "eager":
        return loss, False
    if variant == "python_scalar":
        return tf.function(loss), False  # a new Python int each call: a new trace each call
    if variant == "tensor_step":
        return tf.function(loss), True  # the step no longer retraces, the new lengths still do
    if variant == "input_signature":
        return tf.function(loss, input_signature=SIGNATURE), False  # ints become tensors
    if variant == "reduce_retracing":
        return tf.function(loss, reduce_retracing=True), True  # generalises to length None
    raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")


# --8<-- [end:variants]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run); run.body_runs() counts executions of the Python body."""
    counter = [0]
    function, step_as_tensor = make_function(variant, counter)
    rng = np.random.default_rng(0)
    kernel = tf.constant(rng.standard_normal((FEATURES, FEATURES), dtype=np.float32) * 0.3)
    # The same data for every variant; each call takes a longer slice: a shape never seen.
    longest = FIRST_LENGTH + 2000
    data = tf.constant(rng.standard_normal((BATCH, longest, FEATURES), dtype=np.float32))
    steps = itertools.count()
    calls = CALLS_PER_RUN[size]

    def run():
        for _ in range(calls):
            step = next(steps)
            sequences = data[:, : FIRST_LENGTH + step % 2000]
            loss = function(sequences, kernel, tf.constant(step) if step_as_tensor else step)
        return loss

    run.body_runs = lambda: counter[0]
    return run, calls * BATCH


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run().numpy()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        calls = 6 * CALLS_PER_RUN[size]
        print(
            f"{variant:17s} {median * 1e3:9.2f} ms/run {examples / median:10.0f} examples/s"
            f"   Python body ran {run.body_runs():3d} times in {calls} calls"
        )
