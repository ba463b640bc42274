"""Ground-truth model file (issue 37, a subtle case): snippets/threads/small_model.py's model
at a batch of 256, between the tiny model (batch 32, where one intra-op thread is faster)
and the CNN (where it is slower). Planted answer: near the crossover, one thread and the
default pool train about as fast, so there is nothing to gain."""

import numpy as np
import tensorflow as tf
from snippet import load

small_model = load("threads/small_model")
build_model = small_model.build_model
BATCH = 256
STEPS_PER_RUN = 10


def training_data():
    rng = np.random.default_rng(0)
    rows = 32 * BATCH
    x = rng.standard_normal((rows, small_model.FEATURES), dtype=np.float32)
    y = rng.integers(0, small_model.CLASSES, size=rows)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).cache()
