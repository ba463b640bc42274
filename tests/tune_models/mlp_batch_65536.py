"""tune model file: snippets/batch_size/mlp.py's network at a batch of 65536, where a larger
batch must not be recommended. The batch is not typed from a tune result: it is the one
`python -m benchmarks.tune.batch_plateau` chose by its rule, committed before the sweep ran
(the smallest batch whose x2 and x4 gains both have their whole 95% interval below tune's 5%
threshold), on the machine the committed sweep names; another machine may level off
elsewhere. docs/_generated/tune/batch_plateau.json holds the run, and a test holds the two
equal. The snippet's own largest batch, 1024, is not used: its table shows the throughput
still rising there, so a larger batch may well be right advice at 1024."""

import mlp_batch_32
from mlp_batch_32 import STEPS_PER_RUN, build_model, training_data

__all__ = ["STEPS_PER_RUN", "build_model", "training_data"]
mlp_batch_32.BATCH = 65536
