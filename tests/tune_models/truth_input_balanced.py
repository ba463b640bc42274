"""Ground-truth model file (issue 37, a subtle case): the small CNN of truth_cnn.py fed by a
Python generator through from_generator, with prefetch(AUTOTUNE) written, whose per-example
NumPy work is light (a crop and one noise pass, where truth_cnn.py makes four). Planted
answer: the pipeline costs about as much as a training step, so the prefetch hides part of
it and batches held in memory gain something, but far less than the heavy pipelines' 4 to 5
times. How much is for the truth to say."""

import numpy as np
import tensorflow as tf
import truth_cnn

STEPS_PER_RUN = 20
build_model = truth_cnn.build_model


def light_examples():
    """One epoch of examples: a random crop, then one pass of noise and a clip."""
    images, labels = truth_cnn.raw_images()
    rng = np.random.default_rng(1)
    side = truth_cnn.SIDE
    for image, label in zip(images, labels, strict=True):
        top, left = rng.integers(0, truth_cnn.PAD + 1, size=2)
        x = image[top : top + side, left : left + side].astype(np.float32) / 255.0
        yield np.clip(x + rng.normal(0.0, 0.02, x.shape).astype(np.float32), 0.0, 1.0), label


def training_data():
    dataset = tf.data.Dataset.from_generator(
        light_examples, output_signature=truth_cnn.EXAMPLE_SIGNATURE
    )
    return dataset.batch(truth_cnn.BATCH, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
