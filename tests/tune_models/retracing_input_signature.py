"""tune model file: snippets/graph_execution/retracing.py's input_signature variant in the same
Keras model: the step number becomes a tensor, so the function is traced once. Retracing
must not be reported or recommended."""

import retracing_python_scalar
from retracing_python_scalar import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
retracing_python_scalar.VARIANT = "input_signature"
