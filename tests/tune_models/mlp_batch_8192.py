"""tune model file: snippets/batch_size/mlp.py's network at a batch of 8192, where a larger
batch must not be recommended. Not the snippet's largest batch, 1024: its table shows the
throughput still rising from 512 to 1024, so a larger batch may well be right advice there;
at 8192, tune's x2 and x4 arms gave no clear gain in a trial run."""

import mlp_batch_32
from mlp_batch_32 import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
mlp_batch_32.BATCH = 8192
