"""tune model file: snippets/memory/conversion.py's slow variant (NumPy arrays given to every
step, converted each time), written to tune's contract. The known factor: input."""

import numpy as np
from snippet import load

conversion = load("memory/conversion")
build_model = conversion.build_model
STEPS_PER_RUN = conversion.STEPS_PER_RUN["small"]


def training_data():
    """Four of the snippet's batches, so that tune's batch-size arms (x2, x4) have data."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4 * conversion.BATCH, 64, 64, 3), dtype=np.float32)
    y = rng.integers(0, conversion.CLASSES, size=4 * conversion.BATCH)
    return x, y, conversion.BATCH
