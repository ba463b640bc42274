"""tune model file: snippets/graph_execution/retracing.py's python_scalar variant as a Keras
model run eagerly: its training step calls the snippet's tf.function with the step number as
a Python int, so every step traces it again. The known factor: retracing."""

import keras
import numpy as np
import tensorflow as tf
from snippet import load

retracing = load("graph_execution/retracing")
STEPS_PER_RUN = retracing.CALLS_PER_RUN["small"]
VARIANT = "python_scalar"


class SequenceModel(keras.Model):
    """The snippet's sequence loss as a model: its kernel is the one weight trained."""

    def __init__(self):
        super().__init__()
        features = retracing.FEATURES
        self.kernel = self.add_weight(shape=(features, features), initializer="glorot_uniform")
        self.loss_of, self.step_as_tensor = retracing.make_function(VARIANT, [0])
        self.step = 0

    def call(self, sequences):
        return tf.tanh(sequences @ self.kernel)

    def train_step(self, data):
        sequences, _, _ = keras.utils.unpack_x_y_sample_weight(data)
        self.step += 1
        step = tf.constant(self.step) if self.step_as_tensor else self.step
        weight = self.kernel.value  # the tf.Variable itself, watched by the tape
        with tf.GradientTape() as tape:
            loss = self.loss_of(sequences, weight, step)
        gradients = tape.gradient(loss, [weight])
        self.optimizer.apply_gradients(zip(gradients, [self.kernel], strict=True))
        return {"loss": loss}


def build_model():
    model = SequenceModel()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    return model


def training_data():
    rng = np.random.default_rng(0)
    shape = (retracing.BATCH * 4, retracing.FIRST_LENGTH, retracing.FEATURES)
    sequences = rng.standard_normal(shape, dtype=np.float32)
    targets = np.zeros((retracing.BATCH * 4, 1), np.float32)
    return tf.data.Dataset.from_tensor_slices((sequences, targets)).batch(retracing.BATCH).cache()
