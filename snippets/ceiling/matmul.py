"""This machine's practical float32 ceiling: large square matmuls, warmed up, results forced.

Run it directly to measure your machine: `python matmul.py` (or `small`). On a Mac with
tensorflow-metal installed, TensorFlow places the matmuls on the Metal GPU, so the same file
measures the GPU's ceiling; the device used is printed at the end of the line.
"""

import statistics
import sys
import time

import tensorflow as tf

# Matrix size and matmuls per run: a run takes under a second on two CPU cores.
SIZES = {"full": (3072, 2), "small": (256, 2)}

VARIANTS = {"float32": "n x n float32 matmuls (n = 3072), results forced"}
BASELINE = "float32"


# --8<-- [start:ceiling]
def matmul_flops(n: int, matmuls: int = 1) -> float:
    """An n x n by n x n matmul does n^3 multiply-adds: 2 * n^3 floating-point operations."""
    return 2.0 * n**3 * matmuls


def make_matmuls(n: int, matmuls: int, dtype=tf.float32):
    a = tf.random.normal((n, n), dtype=dtype)
    b = tf.random.normal((n, n), dtype=dtype)

    def run():
        # One element of each product is enough to make every matmul finish before the
        # timer stops; copying whole n x n results back would add time that is not compute.
        corners = [tf.matmul(a, b)[0, 0] for _ in range(matmuls)]
        return tf.stack(corners)

    return run


# --8<-- [end:ceiling]


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run); an 'example' here is one matmul."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    n, matmuls = SIZES[size]
    return make_matmuls(n, matmuls), matmuls


def flops(variant: str, size: str = "full") -> float:
    n, matmuls = SIZES[size]
    return matmul_flops(n, matmuls)


# --8<-- [start:main]
if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run().numpy()  # warm-up: kernel selection and memory set-up are not timed
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run().numpy()  # .numpy() waits for the device to finish
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        gflops = flops(variant, size) / median / 1e9
        device = tf.matmul(tf.ones((2, 2)), tf.ones((2, 2))).device.rsplit("/", 1)[-1]
        print(
            f"{variant:10s} {median * 1e3:9.1f} ms/run {examples / median:8.2f} examples/s"
            f" {gflops:9.1f} GFLOP/s on {device}"
        )
# --8<-- [end:main]
