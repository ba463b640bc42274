"""Ground-truth model file: the small CNN of truth_cnn.py at a batch of 256, its examples held
in memory (truth_batch_large.py's model and data). Planted answer: its convolutions keep both
cores busy, so one intra-op thread instead of TensorFlow's default pool trains slower."""

from truth_batch_large import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
