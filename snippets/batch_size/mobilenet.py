"""Throughput against batch size for MobileNetV2 at 224x224 (random weights, random images).

Run it directly to time every batch size on your machine: `python mobilenet.py` (or `small`).
`weights=None` builds the network with random weights: the same layers and shapes as the
ImageNet weights, so the same work per step, and nothing is downloaded. Every run trains on
the same number of images, so a faster run means more images per second.
"""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras: Keras 3, or tf-keras where TF_USE_LEGACY_KERAS=1

CLASSES = 1000
# "small" uses 96x96 images (MobileNetV2's smallest standard input) to keep tests quick.
IMAGE_SIZE = {"full": 224, "small": 96}
IMAGES_PER_RUN = {"full": 16, "small": 16}

# Batches of 4 to 16: one step of 16 images takes about a second on a 2-core CPU.
VARIANTS = {
    "batch_4": "4 images per step",
    "batch_8": "8 images per step",
    "batch_16": "16 images per step",
}
BASELINE = "batch_4"


def batch_size_of(variant: str) -> int:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {list(VARIANTS)}")
    return int(variant.removeprefix("batch_"))


# --8<-- [start:model]
def build_model(image_size: int) -> keras.Model:
    model = keras.applications.MobileNetV2(
        weights=None, input_shape=(image_size, image_size, 3), classes=CLASSES
    )
    # Plain SGD, as in the published M1 Max MobileNetV2 benchmark this page cites.
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy")
    return model


# --8<-- [end:model]


def make_workload(variant: str, size: str = "full"):
    """Return (run, images_per_run): run() trains on the same images in steps of one size."""
    batch = batch_size_of(variant)
    steps = IMAGES_PER_RUN[size] // batch
    image_size = IMAGE_SIZE[size]
    model = build_model(image_size)
    rng = np.random.default_rng(0)
    x = tf.constant(rng.random((batch, image_size, image_size, 3), dtype=np.float32))
    y = tf.constant(rng.integers(0, CLASSES, size=batch))

    def run():
        for _ in range(steps):
            loss = model.train_on_batch(x, y)
        return loss

    return run, steps * batch


# --8<-- [start:flops]
def forward_flops(model: keras.Model) -> tuple[int, int]:
    """(FLOPs of one image's forward pass, FLOPs of the first convolution alone).

    Counted from the layer shapes: a Conv2D output value sums kh*kw*c_in products, a
    depthwise one kh*kw, a Dense one n_in; one multiply-add is 2 FLOPs. Batch norm, ReLU6,
    additions and pooling are element-wise and left out (a few percent of the total).
    """
    total = first = 0
    for layer in model.layers:
        if isinstance(layer, keras.layers.DepthwiseConv2D):
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


def flops(variant: str, size: str = "full") -> float:
    """One run's FLOPs: forward, input gradients and weight gradients of every layer.

    The backward pass of each layer costs about its forward twice (one product for the
    input gradient, one for the weight gradient), except that the first convolution needs
    no input gradient: the images are not trained.
    """
    forward, first = forward_flops(build_model(IMAGE_SIZE[size]))
    return float(IMAGES_PER_RUN[size] * (3 * forward - first))


# --8<-- [end:flops]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, images = make_workload(variant, size)
        steps = images // batch_size_of(variant)
        run()  # warm-up: the first call traces and sets up, so it is not timed
        times = []
        for _ in range(3):  # a run takes seconds on a CPU: three are enough for a median
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(
            f"{variant:9s} {median / steps * 1e3:8.1f} ms/step {median:7.2f} s/run "
            f"{images / median:7.1f} examples/s"
        )
