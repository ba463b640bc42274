"""Ground-truth model file: the small CNN of truth_cnn.py at a batch of 256, its examples held
in memory. Planted answer: at this batch the convolutions already keep the two cores busy, so
four times the batch trains no more samples per second. BATCH is the reader's batch: the
ground truth's larger batch arm sets it, as a reader would change it."""

import numpy as np
import tensorflow as tf
import truth_cnn

build_model = truth_cnn.build_model
BATCH = 256
STEPS_PER_RUN = 4
ROWS = 4096


def training_data():
    rng = np.random.default_rng(0)
    shape = (ROWS, truth_cnn.SIDE, truth_cnn.SIDE, 3)
    x = rng.random(shape, dtype=np.float32)
    y = rng.integers(0, truth_cnn.CLASSES, size=ROWS)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH, drop_remainder=True).cache()
