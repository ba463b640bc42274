"""Do the CPU and the GPU train your model to the same numbers? A check, not a measurement.

Run it directly: `python device_agreement.py [full|small] [sgd|adam|rmsprop]` (`small` for
fewer steps; the optimizer you train with, SGD if you name none). It trains the model of
build_model() for a few steps of that optimizer from the same initial weights on the same
batches, once on /CPU:0 and once on /GPU:0, then compares the losses and the final weights
within a tolerance and prints a verdict. The optimizer is built by the installed Keras from its
name, as `model.compile(optimizer="adam")` builds it. Replace build_model() and make_batches()
with your own model and data (keep the data small: a few batches are enough), and
make_optimizer() with your optimizer if it is not one of the three. Data are random, made
locally. Runs on Python 3.9 and later, with Keras 3 or with tf-keras (TF_USE_LEGACY_KERAS=1).
"""

from __future__ import annotations  # annotations such as `str | None` on Python 3.9

import sys
from dataclasses import dataclass

import numpy as np
import tensorflow as tf

SEED = 0
STEPS = {"full": 50, "small": 5}  # training steps per device
# The optimizers the command line can name, with the learning rate this check gives each.
LEARNING_RATES = {"sgd": 0.05, "adam": 0.001, "rmsprop": 0.001}
# float32 keeps about 7 significant digits; different kernels and summation orders change
# the last ones, and training carries those changes on. A value agrees when
# |a - b| <= ATOL + RTOL * |b|: generous for round-off, far below a wrong result.
RTOL, ATOL = 1e-3, 1e-5
NO_GPU = "no GPU listed: nothing to compare; this check needs a Mac with tensorflow-metal"
USAGE = "usage: python device_agreement.py [full|small] [sgd|adam|rmsprop]"


# --8<-- [start:model]
def build_model():
    """The model to check: replace with yours (tf.keras works with Keras 2 and Keras 3)."""
    return tf.keras.Sequential(
        [
            tf.keras.Input(shape=(16,)),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(1),
        ]
    )


def make_batches(steps: int) -> list:
    """One (x, y) batch of float32 NumPy arrays per step; replace with a few of your batches."""
    rng = np.random.default_rng(SEED)
    true_w = rng.standard_normal((16, 1)).astype(np.float32) / 4
    batches = []
    for _ in range(steps):
        x = rng.standard_normal((64, 16)).astype(np.float32)
        batches.append((x, x @ true_w + 0.1 * rng.standard_normal((64, 1)).astype(np.float32)))
    return batches


def loss_fn(y, prediction):
    return tf.reduce_mean(tf.square(prediction - y))


def make_optimizer(name: str = "sgd"):
    """A new optimizer, built by the installed Keras from its name as model.compile() builds
    it (tf.keras.optimizers.get): with tf-keras on an Apple-silicon Mac, tf-keras's legacy
    optimizer; with Keras 3, Keras 3's. Replace with yours, e.g. tf.keras.optimizers.Adam(1e-4)."""
    if name not in LEARNING_RATES:
        raise ValueError(f"unknown optimizer {name!r}: one of {', '.join(LEARNING_RATES)}")
    optimizer = tf.keras.optimizers.get(name)
    optimizer.learning_rate = LEARNING_RATES[name]
    return optimizer


# --8<-- [end:model]


@dataclass
class Run:
    device: str  # the device asked for, e.g. "/GPU:0"
    ran_on: str  # where the loss was computed (tensor.device)
    losses: np.ndarray  # one per step
    weights: list  # [(name, final value)] in the model's order
    optimizer: str = ""  # the optimizer's class, with its module


# --8<-- [start:train]
def initial_weights() -> list:
    """The weights every run starts from, made once, on the CPU (no GPU random ops)."""
    tf.keras.utils.set_random_seed(SEED)
    with tf.device("/CPU:0"):
        return build_model().get_weights()


def train(device: str, initial: list, batches: list, optimizer="sgd", perturb=None) -> Run:
    """Train from `initial` on `device` with a new optimizer: a name for make_optimizer(), or
    a function that returns a new optimizer. perturb(weights) -> weights lets a test change it."""
    with tf.device(device):  # the variables and every op of the steps go to this device
        model = build_model()
        model.set_weights(perturb(initial) if perturb else initial)
        opt = optimizer() if callable(optimizer) else make_optimizer(optimizer)

        @tf.function  # graph mode, as in fit(): where graph optimisations (fusions) apply
        def step(x, y):
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            variables = model.trainable_variables
            grads = tape.gradient(loss, variables)
            opt.apply_gradients([(grads[i], v) for i, v in enumerate(variables)])
            return loss

        losses = [step(tf.constant(x), tf.constant(y)) for x, y in batches]
    weights = [(getattr(v, "path", v.name), v.numpy()) for v in model.weights]
    kind = f"{type(opt).__module__}.{type(opt).__name__}"
    return Run(device, losses[-1].device, np.array([float(v) for v in losses]), weights, kind)


# --8<-- [end:train]


# --8<-- [start:compare]
def largest_differences(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """(max absolute, max relative) difference, relative to |b|, computed in float64."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    absolute = np.abs(a - b)
    relative = absolute / np.maximum(np.abs(b), np.finfo(np.float32).tiny)
    return float(absolute.max(initial=0.0)), float(relative.max(initial=0.0))


def same_shapes(a: Run, b: Run) -> bool:
    shapes = [[x.shape for _, x in run.weights] for run in (a, b)]
    return len(a.losses) == len(b.losses) and shapes[0] == shapes[1]


def first_difference(a: Run, b: Run, rtol: float = RTOL, atol: float = ATOL) -> str | None:
    """The first loss step, else the first weight, where the runs differ beyond tolerance."""
    if not same_shapes(a, b):
        return "the runs have different numbers of steps or different weight shapes"
    apart = np.flatnonzero(~np.isclose(a.losses, b.losses, rtol=rtol, atol=atol))
    if len(apart):
        x, y = a.losses[apart[0]], b.losses[apart[0]]
        return f"loss at step {apart[0] + 1}: {x:.7g} on {a.device}, {y:.7g} on {b.device}"
    for index, (name, x) in enumerate(a.weights):
        y = b.weights[index][1]
        apart = np.argwhere(~np.isclose(x, y, rtol=rtol, atol=atol))
        if len(apart):
            at = tuple(int(i) for i in apart[0])
            return f"weight {name}{list(at)}: {x[at]:.7g} on {a.device}, {y[at]:.7g} on {b.device}"
    return None


def verdict(a: Run, b: Run, rtol: float = RTOL, atol: float = ATOL) -> str:
    first = first_difference(a, b, rtol, atol)
    return "agree within tolerance" if first is None else f"DIFFER: {first}"


def placement_problem(run: Run) -> str | None:
    """tf.device falls back to the CPU, silently, when the device asked for cannot run the ops."""
    if run.ran_on.upper().endswith(run.device.upper().lstrip("/")):
        return None
    return f"asked for {run.device}, but the loss was computed on {run.ran_on or 'no device'}"


def report(a: Run, b: Run, rtol: float = RTOL, atol: float = ATOL) -> list[str]:
    """The lines to print: where each run ran, the largest differences, the verdict."""
    lines = [f"{run.device}: ran on {run.ran_on}" for run in (a, b)]
    lines += [f"WARNING: {problem}" for problem in map(placement_problem, (a, b)) if problem]
    if a.optimizer or b.optimizer:
        kinds = {a.optimizer, b.optimizer}
        lines.append(f"optimizer: {' and '.join(sorted(kinds))}")
    if same_shapes(a, b):
        flat = [np.concatenate([x.ravel() for _, x in run.weights]) for run in (a, b)]
        for what, x, y in [("losses", a.losses, b.losses), ("final weights", *flat)]:
            absolute, relative = largest_differences(x, y)
            lines.append(f"{what}: max abs diff {absolute:.2e}, max rel diff {relative:.2e}")
    lines.append(f"tolerance: |a - b| <= {atol:g} + {rtol:g} * |b|, over {len(a.losses)} steps")
    lines.append(f"verdict: {verdict(a, b, rtol, atol)}")
    return lines


# --8<-- [end:compare]


# --8<-- [start:main]
def main(devices=("/CPU:0", "/GPU:0"), steps: int = STEPS["full"], optimizer="sgd", perturb=None):
    """Train on both devices and print the report; 1 when they differ, else 0. `optimizer` is
    a name (sgd, adam, rmsprop) or a function that returns a new optimizer."""
    if any("GPU" in d.upper() for d in devices) and not tf.config.list_physical_devices("GPU"):
        print(f"verdict: {NO_GPU}")
        return 0
    batches, initial = make_batches(steps), initial_weights()
    first = train(devices[0], initial, batches, optimizer)
    second = train(devices[1], initial, batches, optimizer, perturb)
    print("\n".join(report(first, second)))
    return 0 if first_difference(first, second) is None else 1


def options(words: list) -> tuple[int, str]:
    """(steps, optimizer name) from the command line's words, in any order."""
    sizes = [w for w in words if w in STEPS]
    names = [w for w in words if w in LEARNING_RATES]
    if len(sizes) + len(names) < len(words) or len(sizes) > 1 or len(names) > 1:
        raise SystemExit(f"{USAGE}\n(not understood: {' '.join(words)})")
    return STEPS[sizes[0] if sizes else "full"], names[0] if names else "sgd"


# --8<-- [end:main]


if __name__ == "__main__":
    steps, optimizer = options(sys.argv[1:])
    status = main(steps=steps, optimizer=optimizer)
    if status:  # a non-zero exit when the devices differ, for scripts
        sys.exit(status)
