"""Shared by the ground-truth model files (benchmarks/tune/ground_truth.py): a small CNN (two
convolutions) on 32x32x3 images in batches of 64, and a Python generator that augments every
example in NumPy (a random crop, a flip, noise, clip passes), a reader's from_generator input.

The per-example cost is set by PASSES (noise and clip passes): on the project's 2-core machine
the generator alone makes fewer examples per second than the model trains on, so the pipeline
as written is the bottleneck, the case the issue reported (issue 27)."""

import keras
import numpy as np
import tensorflow as tf

BATCH, SIDE, PAD, CLASSES = 64, 32, 4, 10
EXAMPLES = 2048  # one epoch: 32 batches
PASSES = 4  # noise and clip passes per example


def build_model(filters=(16, 32)):
    model = keras.Sequential(
        [
            keras.Input(shape=(SIDE, SIDE, 3)),
            keras.layers.Conv2D(filters[0], 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(filters[1], 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(CLASSES),
        ]
    )
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


def raw_images(seed: int = 0):
    """The stored images, larger than the model's input by PAD, and their labels."""
    rng = np.random.default_rng(seed)
    side = SIDE + PAD
    images = rng.integers(0, 256, size=(EXAMPLES, side, side, 3), dtype=np.uint8)
    return images, rng.integers(0, CLASSES, size=EXAMPLES)


def augment(image, rng):
    """One example: a random crop, a random flip, then PASSES passes of noise and a clip."""
    top, left = rng.integers(0, PAD + 1, size=2)
    x = image[top : top + SIDE, left : left + SIDE].astype(np.float32) / 255.0
    if rng.random() < 0.5:
        x = x[:, ::-1]
    for _ in range(PASSES):
        x = x + rng.normal(0.0, 0.02, x.shape).astype(np.float32)
        x = np.clip(x, 0.0, 1.0)
    return x


def augmented_examples():
    """A new generator of augmented (image, label) examples, one epoch's worth."""
    images, labels = raw_images()
    rng = np.random.default_rng(1)
    for image, label in zip(images, labels, strict=True):
        yield augment(image, rng), label


EXAMPLE_SIGNATURE = (
    tf.TensorSpec(shape=(SIDE, SIDE, 3), dtype=tf.float32),
    tf.TensorSpec(shape=(), dtype=tf.int64),
)


def generator_dataset():
    """The reader's pipeline: the generator through from_generator, batched, nothing else."""
    dataset = tf.data.Dataset.from_generator(augmented_examples, output_signature=EXAMPLE_SIGNATURE)
    return dataset.batch(BATCH, drop_remainder=True)
