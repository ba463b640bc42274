"""tune model file: snippets/graph_execution/small_ops.py's better variant (the same step
compiled as a graph): leaving eager mode must not be recommended."""

import small_ops_eager
from small_ops_eager import STEPS_PER_RUN, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]


def build_model():
    small_ops_eager.RUN_EAGERLY = False
    return small_ops_eager.build_model()
