"""A CPU-heavy per-example preprocessing step in tf.data: sequential, parallel, batch-then-map.

Run it directly to time every variant on your machine: `python preprocessing.py` (or `small`).
The images are random uint8 arrays of a real shape (96x96x3), made locally.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf

IMAGE, CROP, BATCH = 96, 80, 32
EXAMPLES_PER_RUN = {"full": 1024, "small": 64}

VARIANTS = {
    "sequential_map": "map(augment), one example at a time (as usually written)",
    "parallel_map": "map(augment, num_parallel_calls=AUTOTUNE) + prefetch",
    "batch_then_map": "batch first, then map(augment_batch, AUTOTUNE) + prefetch",
}
BASELINE = "sequential_map"

# A fixed 5x5 blur kernel, applied to each colour channel on its own.
BLUR = tf.constant(np.full((5, 5, 3, 1), 1 / 25, dtype=np.float32))


# --8<-- [start:augment]
def augment_batch(images, labels):
    """Crop, flip, blur and standardise a batch of images (shape [n, 96, 96, 3], uint8)."""
    images = tf.image.convert_image_dtype(images, tf.float32)
    images = tf.image.random_crop(images, size=(tf.shape(images)[0], CROP, CROP, 3))
    images = tf.image.random_flip_left_right(images)
    images = tf.image.resize(images, (IMAGE, IMAGE))
    images = tf.nn.depthwise_conv2d(images, BLUR, strides=[1, 1, 1, 1], padding="SAME")
    images = tf.image.per_image_standardization(images)
    return images, labels


def augment(image, label):
    """The same steps for a single image: the per-example function given to map()."""
    images, label = augment_batch(image[tf.newaxis], label)
    return images[0], label


# --8<-- [end:augment]


def random_images(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, IMAGE, IMAGE, 3), dtype=np.uint8)
    labels = rng.integers(0, 10, size=n)
    return images, labels


# --8<-- [start:pipelines]
def sequential_pipeline(images, labels):
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    return dataset.map(augment).batch(BATCH)


def parallel_pipeline(images, labels):
    dataset = tf.data.Dataset.from_tensor_slices((images, labels))
    dataset = dataset.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.batch(BATCH).prefetch(tf.data.AUTOTUNE)


def batch_then_map_pipeline(images, labels):
    dataset = tf.data.Dataset.from_tensor_slices((images, labels)).batch(BATCH)
    dataset = dataset.map(augment_batch, num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.prefetch(tf.data.AUTOTUNE)


# --8<-- [end:pipelines]

PIPELINES = {
    "sequential_map": sequential_pipeline,
    "parallel_map": parallel_pipeline,
    "batch_then_map": batch_then_map_pipeline,
}


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() reads the pipeline once and returns its last batch."""
    if variant not in PIPELINES:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(PIPELINES)}")
    n = EXAMPLES_PER_RUN[size]
    dataset = PIPELINES[variant](*random_images(n))

    def read_all():
        for images, _ in dataset:
            last = images
        return last

    return read_all, n


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up: the first pass traces the map function, so it is not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{variant:20s} {median * 1e3:9.1f} ms/run {examples / median:10.0f} examples/s")
