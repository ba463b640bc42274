"""tune model file: snippets/threads/small_model.py's small model with TensorFlow's default
thread pools (its baseline), fed as the snippet feeds it. The known factor: threads."""

import numpy as np
from snippet import load

small_model = load("threads/small_model")
build_model = small_model.build_model
STEPS_PER_RUN = small_model.STEPS_PER_RUN["full"]


def training_data():
    rng = np.random.default_rng(0)
    rows = 4 * small_model.BATCH
    x = rng.standard_normal((rows, small_model.FEATURES), dtype=np.float32)
    y = rng.integers(0, small_model.CLASSES, size=rows)
    return x, y, small_model.BATCH
