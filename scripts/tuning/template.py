"""A model file for `tune`: copy it, put your model and data in, and run
`python tf-doctor.pyz tune my_model.py` (or `make tune FILE=my_model.py` from a clone).

tune imports this file in child processes; it calls build_model() once per variant it
measures and training_data() for the batches. Nothing here is written to or changed.
For Keras 2 (the stack the guide's Set up page recommends for Macs), import tf_keras as keras.
"""

import keras
import numpy as np
import tensorflow as tf

# Optional: training steps in one timed run (default 10). Raise it if one step is very short.
STEPS_PER_RUN = 10
# Optional, only if build_model() returns a model it has not compiled: the loss (and the
# optimizer, default "rmsprop") tune compiles it with.
# LOSS = "sparse_categorical_crossentropy"
# OPTIMIZER = "adam"


def build_model():
    """Return your model, compiled as you train it (optimizer, loss, jit_compile...)."""
    model = keras.Sequential(
        [
            keras.Input(shape=(32,)),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
    return model


def training_data():
    """Return your training batches: a tf.data.Dataset of (x, y) batches as you feed fit(),
    or a tuple (x, y, batch_size) of arrays."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 32), dtype=np.float32)
    y = rng.integers(0, 10, size=4096)
    return tf.data.Dataset.from_tensor_slices((x, y)).shuffle(4096).batch(64)
