"""Ground-truth model file: small_ops_eager.py (snippets/graph_execution/small_ops.py's step of
many small ops, as a Keras model run eagerly). Planted answer: compiled as one graph, the same
step runs without Python's cost per op, so it trains faster."""

from small_ops_eager import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
