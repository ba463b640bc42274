"""tune model file written as a new user would, not one of the guide's snippets: a small CNN, its
images noised in a NumPy function inside map, no num_parallel_calls and no prefetch. Used by
tests/test_tune_zipapp.py to run the published archive on a file of the kind readers bring."""

import keras
import numpy as np
import tensorflow as tf


def add_noise(image):
    noisy = image + np.random.normal(0, 0.1, image.shape).astype("float32")
    return np.clip(noisy, 0.0, 1.0)


def build_model():
    model = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            keras.layers.Conv2D(16, 3, activation="relu"),
            keras.layers.MaxPooling2D(),
            keras.layers.Conv2D(32, 3, activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    return model


def training_data():
    images = np.random.rand(2000, 28, 28, 1).astype("float32")
    labels = np.random.randint(0, 10, 2000)
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(2000)
    ds = ds.map(lambda x, y: (tf.numpy_function(add_noise, [x], tf.float32), y))
    ds = ds.map(lambda x, y: (tf.reshape(x, (28, 28, 1)), y))
    return ds.batch(64)
