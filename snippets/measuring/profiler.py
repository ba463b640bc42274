"""Capture a TensorFlow profiler trace of a few training steps, and what capturing costs.

Run it directly: `python profiler.py` (or `small`). The trace goes to a temporary folder
(printed with the file names it wrote); open such a folder in TensorBoard's Profile tab.
The model and data are the small Dense classifier on random data made locally.
"""

import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

FEATURES, CLASSES, BATCH = 256, 10, 32
STEPS_PER_RUN = {"full": 10, "small": 2}

VARIANTS = {
    "plain": "10 training steps (a @tf.function train step)",
    "profiled": "the same 10 steps inside a tf.profiler.experimental trace",
}
BASELINE = "plain"


def make_train_step():
    model = keras.Sequential(
        [
            keras.Input(shape=(FEATURES,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(CLASSES, activation="softmax"),
        ]
    )
    optimizer = keras.optimizers.Adam()
    optimizer.build(model.trainable_variables)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))
        return loss

    return train_step


# --8<-- [start:profile]
def profile_steps(train_step, x, y, steps: int, logdir: str):
    """Run training steps inside a profiler trace written to logdir."""
    tf.profiler.experimental.start(logdir)
    for step in range(steps):
        # Marks each step, so the trace viewer can show step boundaries.
        with tf.profiler.experimental.Trace("train", step_num=step, _r=1):
            loss = train_step(x, y)
    loss.numpy()  # let the last step finish inside the trace
    tf.profiler.experimental.stop()  # writes plugins/profile/<date_time>/<host>.xplane.pb
    return loss


# --8<-- [end:profile]


def files_written(logdir: str) -> list[str]:
    """The files under logdir, with the run folder's date and this machine's name generalised."""
    host = socket.gethostname()
    names = set()
    for path in Path(logdir).rglob("*"):
        if path.is_file():
            *folders, run, name = path.relative_to(logdir).parts
            names.add("/".join([*folders, "<date_time>", name.replace(host, "<host>", 1)]))
    return sorted(names)


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() does a few training steps."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    train_step = make_train_step()
    x = tf.random.normal((BATCH, FEATURES))
    y = tf.random.uniform((BATCH,), maxval=CLASSES, dtype=tf.int32)
    steps = STEPS_PER_RUN[size]
    if variant == "plain":

        def run():
            for _ in range(steps):
                loss = train_step(x, y)
            return loss

        return run, steps * BATCH
    logdir = tempfile.TemporaryDirectory(prefix="tf-profile-")  # removed when run is freed

    def run():
        return profile_steps(train_step, x, y, steps, logdir.name)

    run.logdir = logdir
    return run, steps * BATCH


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run().numpy()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        line = f"{variant:9s} {median * 1e3:8.1f} ms/run {examples / median:8.0f} examples/s"
        if variant == "profiled":
            line += "   wrote " + ", ".join(files_written(run.logdir.name))
        print(line)
