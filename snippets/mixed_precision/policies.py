"""Mixed precision on a matmul-heavy training step: float32, mixed_bfloat16 and mixed_float16.

Run it directly: `python policies.py` (or `small`). Each variant runs in a fresh process, and
on TensorFlow builds that use oneDNN (Linux x86-64, for one) the line also names the oneDNN
kernels the step used, as oneDNN itself reports them (ONEDNN_VERBOSE=profile_create).
The data are random arrays made locally; nothing is downloaded.
"""

import os
import statistics
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, HIDDEN, CLASSES = 512, 1024, 10
BATCH = {"full": 64, "small": 8}

VARIANTS = {
    "float32": "float32 throughout (the Keras default)",
    "mixed_bfloat16": "mixed_bfloat16: bfloat16 compute, float32 weights",
    "mixed_float16": "mixed_float16: float16 compute, float32 weights, loss scaling",
    "mixed_float16_unfused": "mixed_float16 with Grappler's MatMul+BiasAdd fusion turned off",
}
BASELINE = "float32"
# The policy is global Keras state and the fusion switch is process-wide TensorFlow state
# that cannot be undone once a step has run: every variant gets a fresh process.
ISOLATE_VARIANTS = True


# --8<-- [start:model]
def build_model(policy: str) -> keras.Model:
    """Three Dense layers; the policy applies to the layers built while it is set."""
    keras.mixed_precision.set_global_policy(policy)
    try:
        model = keras.Sequential(
            [
                keras.Input(shape=(FEATURES,)),
                keras.layers.Dense(HIDDEN, activation="relu"),
                keras.layers.Dense(HIDDEN, activation="relu"),
                keras.layers.Dense(CLASSES),
                # Softmax and loss in float32, as the mixed precision guide recommends.
                keras.layers.Activation("softmax", dtype="float32"),
            ]
        )
        # Under mixed_float16, compile wraps the optimizer in a LossScaleOptimizer.
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    finally:
        keras.mixed_precision.set_global_policy("float32")
    return model


# --8<-- [end:model]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() is one training step on one batch."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")
    # --8<-- [start:unfused]
    if variant == "mixed_float16_unfused":
        # Grappler's remapper fuses MatMul + BiasAdd (+ ReLU) into one kernel. Turning it
        # off affects every graph this process builds afterwards, hence ISOLATE_VARIANTS.
        tf.config.optimizer.set_experimental_options({"remapping": False})
    # --8<-- [end:unfused]
    policy = variant.removesuffix("_unfused")
    model = build_model(policy)
    batch = BATCH[size]
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((batch, FEATURES), dtype=np.float32))
    y = tf.constant(rng.integers(0, CLASSES, size=batch))
    return (lambda: model.train_on_batch(x, y)), batch


# --8<-- [start:flops]
def dense_training_flops(batch: int, n_in: int, n_out: int, input_gradient: bool) -> int:
    """Forward x @ W, weight gradient x.T @ dy and, for layers with trainable layers below
    them, input gradient dy @ W.T: 2*batch*n_in*n_out FLOPs each (element-wise work left out).
    """
    return (3 if input_gradient else 2) * 2 * batch * n_in * n_out


def flops(variant: str, size: str = "full") -> float:
    """One training step's FLOPs: the same count under every precision policy."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")
    batch = BATCH[size]
    return float(
        dense_training_flops(batch, FEATURES, HIDDEN, input_gradient=False)
        + dense_training_flops(batch, HIDDEN, HIDDEN, input_gradient=True)
        + dense_training_flops(batch, HIDDEN, CLASSES, input_gradient=True)
    )


# --8<-- [end:flops]


def time_variant(variant: str, size: str) -> str:
    run, examples = make_workload(variant, size)
    run()  # warm-up: the first call traces and sets up, so it is not timed
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    return f"{variant:22s} {median * 1e3:9.1f} ms/step {examples / median:9.0f} examples/s"


# --8<-- [start:kernels]
def onednn_kernels(log_lines: list[str]) -> tuple[str | None, str]:
    """oneDNN's version and view of the CPU, and the kernels it created, from its verbose log.

    A creation line reads "onednn_verbose,primitive,create:...,cpu,<kind>,<implementation>,...";
    "ref:any" is oneDNN's reference implementation: plain loops, not its tuned vector kernels.
    Newer oneDNN (3.7 in TensorFlow 2.21) writes "onednn_verbose,v1,..." with the same fields.
    """
    version, isa, kernels = "oneDNN", None, Counter()
    for line in log_lines:
        fields = line.split(",") + [""] * 6  # padded: short lines compare as empty fields
        if fields[:2] == ["onednn_verbose", "v1"]:
            fields = fields[:1] + fields[2:]
            line = line.replace("onednn_verbose,v1,", "onednn_verbose,", 1)
        if fields[:2] == ["onednn_verbose", "info"] and fields[2].startswith("oneDNN v"):
            version = fields[2].split(" (")[0]
        elif fields[:3] == ["onednn_verbose", "info", "cpu"] and fields[3].startswith("isa:"):
            isa = f"{version} sees this CPU as: " + line.split(",isa:", 1)[1].strip()
        elif fields[:2] == ["onednn_verbose", "primitive"] and fields[2].startswith("create"):
            kernels[f"{fields[4]} {fields[5]}"] += 1
    if not kernels:
        return isa, "no oneDNN kernels (this TensorFlow build or device does not use oneDNN)"
    return isa, "oneDNN kernels: " + ", ".join(f"{k} x{n}" for k, n in sorted(kernels.items()))


def run_in_fresh_process(variant: str, size: str) -> tuple[str, str | None]:
    """Time one variant in a new Python process that logs oneDNN's kernel choices."""
    env = dict(os.environ, ONEDNN_VERBOSE="profile_create", TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(
        [sys.executable, __file__, size, variant],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = done.stdout.splitlines()
    timing = next(line for line in lines if line.startswith(variant))
    isa, kernels = onednn_kernels(lines)
    return f"{timing}  {kernels}", isa


# --8<-- [end:kernels]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # the child process: time one variant
        print(time_variant(sys.argv[2], size), flush=True)
    else:
        for number, variant in enumerate(VARIANTS):
            line, isa = run_in_fresh_process(variant, size)
            if number == 0 and isa:
                line += f"  ({isa})"
            print(line)
