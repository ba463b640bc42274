"""tune model file: snippets/input_pipeline/feeding.py's generator feeding, written to tune's
contract: the snippet's Python generator wrapped in tf.data.Dataset.from_generator with no
prefetch written (its generator_dataset variant; a file returns a dataset, not a loop).
The known factor: input."""

from snippet import load

feeding = load("input_pipeline/feeding")
build_model = feeding.build_model
STEPS_PER_RUN = feeding.BATCHES_PER_RUN["small"]


def training_data():
    return feeding.unprefetched_dataset(feeding.BATCHES_PER_RUN["full"], inject_prefetch=True)
