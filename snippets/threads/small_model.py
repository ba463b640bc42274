"""Intra-op and inter-op thread settings on a small model's training steps (train_on_batch).

Run it directly to time every variant on your machine: `python small_model.py` (or `small`).
Thread pools are made once, when TensorFlow runs its first op, so each variant runs in a
fresh process. The model is the Dense(512) -> Dense(10) classifier on random data made locally.
"""

import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, CLASSES, BATCH = 256, 10, 32
STEPS_PER_RUN = {"full": 20, "small": 2}

VARIANTS = {
    "default": "intra-op 0, inter-op 0: TensorFlow picks both (usually all cores)",
    "intra_1": "intra-op 1: each op runs on one thread",
    "intra_2": "intra-op 2: each op may use two threads",
    "inter_1": "inter-op 1: independent ops run one after another",
}
BASELINE = "default"
ISOLATE_VARIANTS = True  # thread settings only take effect before the runtime starts


# --8<-- [start:threads]
THREADS = {  # variant: (intra-op threads, inter-op threads); 0 lets TensorFlow choose
    "default": (0, 0),
    "intra_1": (1, 0),
    "intra_2": (2, 0),
    "inter_1": (0, 1),
}


def set_threads(intra: int, inter: int) -> None:
    """Call before TensorFlow runs any op; afterwards it raises RuntimeError."""
    tf.config.threading.set_intra_op_parallelism_threads(intra)
    tf.config.threading.set_inter_op_parallelism_threads(inter)


# --8<-- [end:threads]


# --8<-- [start:performance_cores]
def performance_cores() -> int | None:
    """The number of performance (P) cores of an Apple-silicon Mac; None elsewhere."""
    if platform.system() != "Darwin":
        return None
    done = subprocess.run(
        ["sysctl", "-n", "hw.perflevel0.physicalcpu"], capture_output=True, text=True, check=False
    )
    text = done.stdout.strip()
    return int(text) if done.returncode == 0 and text.isdigit() else None


# On a Mac, before anything else touches TensorFlow:
#     set_threads(intra=performance_cores() or 0, inter=0)
# --8<-- [end:performance_cores]


def build_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does a few train_on_batch steps."""
    if variant not in THREADS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    set_threads(*THREADS[variant])  # first, before any op runs
    model = build_model()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, FEATURES), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=BATCH)
    steps = STEPS_PER_RUN[size]

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        return loss

    return run, steps * BATCH


def time_variant(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    run()  # warm-up
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(f"{variant:10s} {median * 1e3:9.2f} ms/run {examples / median:10.0f} examples/s")


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one variant, in this fresh process
        time_variant(sys.argv[2], size)
    else:  # each variant in its own process, because thread pools are made only once
        for variant in VARIANTS:
            subprocess.run([sys.executable, __file__, size, variant], check=True)
