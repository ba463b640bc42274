"""Ground-truth model file (benchmarks/tune/ground_truth.py): the case of issue 27. A small CNN
fed by tf.data.Dataset.from_generator over a Python generator that augments every example in
NumPy, with no prefetch written. Planted answer: the input is the bottleneck, so the same
batches held in memory train faster."""

import truth_cnn

STEPS_PER_RUN = 20
build_model = truth_cnn.build_model


def training_data():
    return truth_cnn.generator_dataset()
