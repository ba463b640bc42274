"""tune model file: snippets/graph_execution/small_ops.py's slow variant (a step of many small
ops, run eagerly) as a Keras model: its train_step is the snippet's. The known factor: graph."""

import keras
import numpy as np
import tensorflow as tf
from snippet import load

small_ops = load("graph_execution/small_ops")
STEPS_PER_RUN = small_ops.STEPS_PER_RUN["small"]
RUN_EAGERLY = True


class SmallOpsCell(keras.Model):
    """The snippet's recurrent cell; a training step is the snippet's own train_step."""

    def __init__(self):
        super().__init__()
        self.cell = small_ops.make_cell()

    def call(self, inputs):
        return tf.zeros((tf.shape(inputs)[0], 1))  # tune only trains: the step below

    def train_step(self, data):
        inputs, targets, _ = keras.utils.unpack_x_y_sample_weight(data)
        return {"loss": small_ops.train_step(self.cell, inputs, targets)}


def build_model():
    model = SmallOpsCell()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=RUN_EAGERLY)
    return model


def training_data():
    rng = np.random.default_rng(1)
    shape = (small_ops.BATCH * 4, small_ops.TIME_STEPS, small_ops.FEATURES)
    inputs = rng.standard_normal(shape, dtype=np.float32)
    targets = rng.standard_normal((small_ops.BATCH * 4, 1), dtype=np.float32)
    return tf.data.Dataset.from_tensor_slices((inputs, targets)).batch(small_ops.BATCH).cache()
