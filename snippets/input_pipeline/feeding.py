"""Feeding a small Keras model: a Python generator with train_on_batch, prefetch, and tf.data + fit.

Run it directly to time every variant on your machine: `python feeding.py` (or `small`).
Data are random arrays of the real shapes, made locally; nothing is downloaded.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, CLASSES, BATCH = 256, 10, 32
BATCHES_PER_RUN = {"full": 200, "small": 4}

# What each variant does, in the words the tables use. The first one is the baseline.
VARIANTS = {
    "generator_loop": "Python generator + train_on_batch loop (as usually written)",
    "generator_prefetch": "same generator through tf.data, prefetch(AUTOTUNE)",
    "generator_dataset": "same generator through tf.data, no prefetch written",
    "generator_dataset_no_inject": "same, with tf.data's inject_prefetch default turned off",
    "generator_fit": "same generator through tf.data, prefetch, model.fit",
    "tensor_slices_fit": "from_tensor_slices + batch + cache + prefetch, model.fit",
    "produce_only": "producing the batches alone (no training)",
    "train_only": "training alone on one fixed batch",
}
BASELINE = "generator_loop"
# Not ways to train: the two halves of a step, timed alone to give the overlap bound.
REFERENCE_VARIANTS = ("produce_only", "train_only")


# --8<-- [start:model]
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


# --8<-- [end:model]


# --8<-- [start:generator]
def random_batches(n_batches: int, seed: int = 0):
    """The generator readers write: make one batch of features and labels at a time."""
    rng = np.random.default_rng(seed)
    for _ in range(n_batches):
        x = rng.standard_normal((BATCH, FEATURES), dtype=np.float32)
        y = rng.integers(0, CLASSES, size=BATCH)
        yield x, y


# --8<-- [end:generator]


# --8<-- [start:generator_loop]
def train_from_generator(model, n_batches):
    for x, y in random_batches(n_batches):
        loss = model.train_on_batch(x, y)
    return loss


# --8<-- [end:generator_loop]


# --8<-- [start:generator_prefetch]
def generator_dataset(n_batches):
    signature = (
        tf.TensorSpec(shape=(BATCH, FEATURES), dtype=tf.float32),
        tf.TensorSpec(shape=(BATCH,), dtype=tf.int64),
    )
    dataset = tf.data.Dataset.from_generator(
        lambda: random_batches(n_batches), output_signature=signature
    )
    # Telling tf.data how many batches come lets model.fit end the epoch cleanly.
    dataset = dataset.apply(tf.data.experimental.assert_cardinality(n_batches))
    return dataset.prefetch(tf.data.AUTOTUNE)


def train_from_prefetched_generator(model, n_batches):
    for x, y in generator_dataset(n_batches):
        loss = model.train_on_batch(x, y)
    return loss


# --8<-- [end:generator_prefetch]


# --8<-- [start:generator_dataset]
def unprefetched_dataset(n_batches, inject_prefetch: bool):
    """The generator through tf.data with no prefetch written. tf.data's default
    optimisations still add one at the end (inject_prefetch) unless it is turned off."""
    signature = (
        tf.TensorSpec(shape=(BATCH, FEATURES), dtype=tf.float32),
        tf.TensorSpec(shape=(BATCH,), dtype=tf.int64),
    )
    dataset = tf.data.Dataset.from_generator(
        lambda: random_batches(n_batches), output_signature=signature
    )
    options = tf.data.Options()
    options.experimental_optimization.inject_prefetch = inject_prefetch
    return dataset.with_options(options)


def train_from_dataset(model, dataset):
    for x, y in dataset:
        loss = model.train_on_batch(x, y)
    return loss


# --8<-- [end:generator_dataset]


# --8<-- [start:tensor_slices_fit]
def tensor_slices_dataset(n_batches):
    x, y = zip(*random_batches(n_batches), strict=True)
    dataset = tf.data.Dataset.from_tensor_slices((np.concatenate(x), np.concatenate(y)))
    return dataset.batch(BATCH).cache().prefetch(tf.data.AUTOTUNE)


def fit_one_epoch(model, dataset):
    history = model.fit(dataset, epochs=1, verbose=0)
    return history.history["loss"][-1]


# --8<-- [end:tensor_slices_fit]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does one timed unit of work and returns its result."""
    n_batches = BATCHES_PER_RUN[size]
    examples = n_batches * BATCH
    if variant == "produce_only":
        return (lambda: [x for x, _ in random_batches(n_batches)][-1]), examples
    model = build_model()
    if variant == "generator_loop":
        return (lambda: train_from_generator(model, n_batches)), examples
    if variant == "generator_prefetch":
        return (lambda: train_from_prefetched_generator(model, n_batches)), examples
    if variant in ("generator_dataset", "generator_dataset_no_inject"):
        inject = variant == "generator_dataset"
        return (
            lambda: train_from_dataset(model, unprefetched_dataset(n_batches, inject))
        ), examples
    if variant == "generator_fit":
        return (lambda: fit_one_epoch(model, generator_dataset(n_batches))), examples
    if variant == "tensor_slices_fit":
        dataset = tensor_slices_dataset(n_batches)
        return (lambda: fit_one_epoch(model, dataset)), examples
    if variant == "train_only":
        x, y = next(random_batches(1))

        def train_fixed_batch():
            for _ in range(n_batches):
                loss = model.train_on_batch(x, y)
            return loss

        return train_fixed_batch, examples
    raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up: the first call traces and sets up, so it is not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{variant:28s} {median * 1e3:9.1f} ms/run {examples / median:10.0f} examples/s")
