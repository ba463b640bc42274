"""tune model file: snippets/threads/small_model.py's better variant, one intra-op thread, set
by this file at import as a reader's script sets it: fewer threads must not be recommended."""

from threads_default import STEPS_PER_RUN, build_model, small_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
small_model.set_threads(*small_model.THREADS["intra_1"])
