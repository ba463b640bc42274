"""Peak memory of training as the batch grows: a small CNN on 32x32x3 images.

Run it directly: `python batch_memory.py` (or `small`). Every run trains on the same number
of images, in batches of the variant's size. Each batch size runs in a fresh process,
because a process's peak resident memory only ever goes up. Images are random arrays of
the real shape, made locally.
"""

import platform
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

BATCHES = {"batch_16": 16, "batch_128": 128, "batch_1024": 1024}
SMALL_BATCHES = {"batch_16": 2, "batch_128": 4, "batch_1024": 8}  # for a quick check
CLASSES = 10

VARIANTS = {
    "batch_16": "1,024 images per run, in 64 steps of 16",
    "batch_128": "1,024 images per run, in 8 steps of 128",
    "batch_1024": "1,024 images per run, in 1 step of 1,024",
}
BASELINE = "batch_16"
ISOLATE_VARIANTS = True  # each batch size gets its own process, so its own peak


# --8<-- [start:model]
def build_model() -> keras.Model:
    model = keras.Sequential(
        [
            keras.Input(shape=(32, 32, 3)),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


# --8<-- [end:model]


# --8<-- [start:peak]
def peak_resident_bytes() -> int:
    """This process's peak resident memory so far, as the kernel counts it."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024  # Linux counts KiB


# --8<-- [end:peak]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() trains on the same number of images at any batch."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    batches = BATCHES if size == "full" else SMALL_BATCHES
    batch, examples = batches[variant], max(batches.values())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 32, 32, 3), dtype=np.float32)
    y = rng.integers(0, CLASSES, size=batch)
    model = build_model()

    def run():
        for _ in range(examples // batch):
            loss = model.train_on_batch(x, y)
        return loss

    return run, examples


def time_variant(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    run()  # warm-up
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"{variant:10s} {median * 1e3:8.1f} ms/run {examples / median:8.0f} examples/s"
        f"  peak memory {peak_resident_bytes() / 2**20:6.0f} MiB"
    )


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one variant, in this fresh process
        time_variant(sys.argv[2], size)
    else:  # each variant in its own process, so each peak is its own
        for variant in VARIANTS:
            subprocess.run([sys.executable, __file__, size, variant], check=True)
