"""Transfer learning with MobileNetV2: a frozen base with a new head, or fine-tuning everything.

Run it directly to time every variant on your machine: `python frozen_base.py` (or `small`).
The layout follows TensorFlow's transfer-learning tutorial: 160x160 images and a pooled
Dense head on MobileNetV2 without its top. `weights=None` gives random weights of exactly
the shapes the ImageNet weights have, so every step does the same work as with them, and
nothing is downloaded.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

CLASSES = 2
IMAGE_SIZE = {"full": 160, "small": 96}
# The tutorial uses batches of 32; 16 keeps a step near a second on a 2-core CPU.
BATCH = {"full": 16, "small": 8}

VARIANTS = {
    "fine_tune_all": "every layer trainable (full fine-tuning)",
    "frozen_base": "base frozen (trainable = False), only the new head trains",
    "fine_tune_other_weights": "as fine_tune_all, after loading a second set of weight values",
}
BASELINE = "fine_tune_all"


# --8<-- [start:model]
def build_model(image_size: int, frozen: bool) -> keras.Model:
    base = keras.applications.MobileNetV2(
        weights=None,  # "imagenet" would load other values into the same shapes
        include_top=False,
        input_shape=(image_size, image_size, 3),
    )
    base.trainable = not frozen
    inputs = keras.Input(shape=(image_size, image_size, 3))
    # A frozen base also runs its batch-norm layers in inference mode.
    features = base(inputs, training=False) if frozen else base(inputs)
    pooled = keras.layers.GlobalAveragePooling2D()(features)
    outputs = keras.layers.Dense(CLASSES)(pooled)
    model = keras.Model(inputs, outputs)
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return model


def trainable_parameters(model: keras.Model) -> int:
    return sum(int(np.prod(w.shape)) for w in model.trainable_weights)


# --8<-- [end:model]

_fine_tune_models: dict[int, keras.Model] = {}


# --8<-- [start:other_weights]
def fine_tune_model(image_size: int, other_weights: bool) -> keras.Model:
    """The fine-tuning model, built once per image size, optionally with new weight values.

    The values come from a second, independently initialised copy of the network. Loading
    pretrained weights does the same: it assigns other values to the same variables, and
    the layers, shapes and operations, so the work per step, stay as they were.
    """
    if image_size not in _fine_tune_models:
        _fine_tune_models[image_size] = build_model(image_size, frozen=False)
    model = _fine_tune_models[image_size]
    if other_weights:
        model.set_weights(build_model(image_size, frozen=False).get_weights())
    return model


# --8<-- [end:other_weights]


def model_for(variant: str, image_size: int) -> keras.Model:
    if variant == "fine_tune_all":
        return fine_tune_model(image_size, other_weights=False)
    if variant == "fine_tune_other_weights":
        return fine_tune_model(image_size, other_weights=True)
    if variant == "frozen_base":
        return build_model(image_size, frozen=True)
    raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")


def training_step(variant: str, size: str = "full"):
    """Return (model, run, images_per_run): run() is one training step on one batch."""
    image_size, batch = IMAGE_SIZE[size], BATCH[size]
    model = model_for(variant, image_size)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((batch, image_size, image_size, 3), dtype=np.float32))
    y = tf.constant(rng.integers(0, CLASSES, size=batch))
    return model, (lambda: model.train_on_batch(x, y)), batch


def make_workload(variant: str, size: str = "full"):
    _, run, images = training_step(variant, size)
    return run, images


# --8<-- [start:flops]
def forward_flops(model: keras.Model) -> tuple[int, int]:
    """(FLOPs of one image's forward pass through `model`, those of its first convolution).

    Counted from the layer shapes (nested models included): a Conv2D output value sums
    kh*kw*c_in products, a depthwise one kh*kw, a Dense one n_in; a multiply-add is 2 FLOPs.
    Batch norm, ReLU6, additions and pooling are element-wise and left out.
    """
    total = first = 0
    for layer in model.layers:
        if isinstance(layer, keras.Model):
            count, nested_first = forward_flops(layer)
            first = first or nested_first
        elif isinstance(layer, keras.layers.DepthwiseConv2D):
            _, height, width, channels = layer.output.shape
            kh, kw = layer.kernel_size
            count = 2 * height * width * channels * kh * kw
        elif isinstance(layer, keras.layers.Conv2D):
            _, height, width, c_out = layer.output.shape
            kh, kw = layer.kernel_size
            count = 2 * height * width * c_out * kh * kw * layer.input.shape[-1]
        elif isinstance(layer, keras.layers.Dense):
            count = 2 * layer.input.shape[-1] * layer.units
        else:
            continue
        first = first or count
        total += count
    return total, first


def head_flops(image_size: int) -> int:
    """The new Dense head's forward FLOPs per image (1280 pooled features -> CLASSES)."""
    base_channels = 1280  # MobileNetV2's last feature map has 1280 channels at any input size
    return 2 * base_channels * CLASSES


def flops(variant: str, size: str = "full") -> float:
    """One step's FLOPs, forward and backward.

    Fine-tuning: forward, then an input gradient and a weight gradient for every layer
    (about twice the forward), except the first convolution's input gradient (the images
    are not trained). Frozen base: the whole forward pass, then only the head's weight
    gradient: no gradient flows into the base, since nothing there is trained.
    """
    image_size, batch = IMAGE_SIZE[size], BATCH[size]
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")
    forward, first = forward_flops(build_model(image_size, frozen=variant == "frozen_base"))
    if variant == "frozen_base":
        return float(batch * (forward + head_flops(image_size)))
    return float(batch * (3 * forward - first))


# --8<-- [end:flops]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        model, run, images = training_step(variant, size)
        run()  # warm-up: the first call traces and sets up, so it is not timed
        times = []
        for _ in range(3):  # a step takes about a second on a CPU: three give a median
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:24s} {median * 1e3:8.1f} ms/step {images / median:6.1f} examples/s  "
            f"trainable {trainable_parameters(model):,} of {model.count_params():,} parameters"
        )
