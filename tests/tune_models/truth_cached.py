"""Ground-truth model file: the same CNN and examples, augmented once when the data are made
and fed from memory (from_tensor_slices, batch, cache, prefetch). Planted answer: the
pipeline costs next to nothing, so batches held in memory gain nothing."""

import numpy as np
import tensorflow as tf
import truth_cnn

STEPS_PER_RUN = 20
build_model = truth_cnn.build_model


def training_data():
    images, labels = zip(*truth_cnn.augmented_examples(), strict=True)
    dataset = tf.data.Dataset.from_tensor_slices((np.stack(images), np.array(labels)))
    return dataset.batch(truth_cnn.BATCH, drop_remainder=True).cache().prefetch(tf.data.AUTOTUNE)
