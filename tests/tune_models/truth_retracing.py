"""Ground-truth model file: retracing_python_scalar.py (a Keras model run eagerly whose step
calls a tf.function with the step number as a Python int, so every step traces it again).
Planted answer: compiled as one graph, traced once, it trains faster."""

from retracing_python_scalar import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
