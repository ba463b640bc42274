"""What `Dataset.cache()` costs in memory and saves in time: one epoch over decoded images.

Run it directly: `python caching.py` (or `small`). Each variant runs in a fresh process, so
each peak resident memory is its own. The "decoding" makes a 64x64x3 float32 image from
the example's index (a stateless random draw plus some arithmetic); nothing is read or
downloaded.
"""

import platform
import resource
import statistics
import subprocess
import sys
import time

import tensorflow as tf

IMAGES = {"full": 2048, "small": 64}
BATCH = 64

VARIANTS = {
    "no_cache": "decode every image again in every epoch",
    "cache_in_memory": ".cache() after decoding: the decoded images are kept in RAM",
}
BASELINE = "no_cache"
ISOLATE_VARIANTS = True  # each variant gets its own process, so its own peak memory


# --8<-- [start:pipeline]
def decode(index):
    """Stand-in for reading and decoding one image: a few ops per example."""
    image = tf.random.stateless_uniform((64, 64, 3), seed=tf.stack([index, 0]))
    image = tf.image.adjust_contrast(image, 1.5)
    return (image - tf.reduce_mean(image)) / (tf.math.reduce_std(image) + 1e-6)


def make_dataset(images: int, cache: bool) -> tf.data.Dataset:
    dataset = tf.data.Dataset.range(images).map(decode, num_parallel_calls=tf.data.AUTOTUNE)
    if cache:
        dataset = dataset.cache()  # kept in memory after the first full epoch
    return dataset.batch(BATCH).prefetch(tf.data.AUTOTUNE)


def one_epoch(dataset: tf.data.Dataset):
    for batch in dataset:  # a training step would go here
        last = batch
    return tf.reduce_mean(last)


# --8<-- [end:pipeline]


def peak_resident_bytes() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if platform.system() == "Darwin" else peak * 1024  # Linux counts KiB


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() reads one epoch of the dataset."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    images = IMAGES[size]
    dataset = make_dataset(images, cache=variant == "cache_in_memory")
    return (lambda: one_epoch(dataset)), images


def time_variant(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    run()  # warm-up: the epoch that fills the cache
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run().numpy()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        f"{variant:15s} {median * 1e3:8.1f} ms/run {examples / median:8.0f} examples/s"
        f"  peak memory {peak_resident_bytes() / 2**20:6.0f} MiB"
    )


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one variant, in this fresh process
        time_variant(sys.argv[2], size)
    else:  # each variant in its own process, so each peak is its own
        for variant in VARIANTS:
            subprocess.run([sys.executable, __file__, size, variant], check=True)
