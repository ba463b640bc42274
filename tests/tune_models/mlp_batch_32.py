"""tune model file: snippets/batch_size/mlp.py's MNIST-shaped network at its baseline batch
of 32, the data held as tensors as the snippet holds them. The known factor: batch size."""

import numpy as np
import tensorflow as tf
from snippet import load

mlp = load("batch_size/mlp")
build_model = mlp.build_model
BATCH = 32
STEPS_PER_RUN = 8


def training_data():
    """Rows for at least one batch of the x4 arm (four of them at small batches), so that every
    arm cycles through the same rows."""
    rng = np.random.default_rng(0)
    rows = 4 * BATCH * (4 if BATCH <= 1024 else 1)
    x = tf.constant(rng.standard_normal((rows, mlp.FEATURES), dtype=np.float32))
    y = tf.constant(rng.integers(0, mlp.CLASSES, size=rows))
    return x, y, BATCH
