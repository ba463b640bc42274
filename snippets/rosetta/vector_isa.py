"""An x86 analogue, not a Rosetta measurement: convolution speed with the vector ISA capped.

Run it directly: `python vector_isa.py` (or `small`). TensorFlow's x86 builds can run
convolutions through oneDNN, which picks its kernels for the newest vector instructions the
CPU has. On Linux TensorFlow turns oneDNN on by itself only on CPUs with AVX-512 VNNI/BF16,
AVX-VNNI or AMX, so this program turns it on (`TF_ENABLE_ONEDNN_OPTS=1`) unless you set 0.
`ONEDNN_MAX_CPU_ISA` caps that choice; oneDNN reads it once, before it makes its first
kernel, so each variant runs in a fresh process with the cap set before TensorFlow starts.
The cap does nothing on Apple silicon (arm64 builds do not use oneDNN's x86 kernels):
there, only the uncapped variant is listed. Inputs are random, made locally.
"""

import os
import platform
import statistics
import subprocess
import sys
import time
import warnings

SHAPES = {  # batch, height, width, channels in and out, for a 3x3 convolution
    "full": (8, 56, 56, 64, 64),
    "small": (1, 28, 28, 16, 16),
}

VARIANTS = {
    "no_cap": "oneDNN uses the best vector instructions this CPU has",
    "avx2": "capped at AVX2: 256-bit vectors with fused multiply-add",
    "avx": "capped at AVX: 256-bit vectors, no fused multiply-add",
    "sse41": "capped at SSE4.1: 128-bit vectors",
}
BASELINE = "no_cap"
ISOLATE_VARIANTS = True  # the cap must be in place before oneDNN makes its first kernel

# --8<-- [start:cap]
CAPS = {"no_cap": "ALL", "avx2": "AVX2", "avx": "AVX", "sse41": "SSE41"}


def cap_applies() -> bool:
    """oneDNN's x86 kernels (and so the cap) are used by TensorFlow on x86-64 Linux."""
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    return x86 and platform.system() == "Linux" and os.environ.get("TF_ENABLE_ONEDNN_OPTS") != "0"


def set_isa_cap(variant: str) -> None:
    """Put the cap in the environment; it only counts if TensorFlow has not started yet."""
    if "tensorflow" in sys.modules and os.environ.get("ONEDNN_MAX_CPU_ISA") != CAPS[variant]:
        warnings.warn(
            f"{variant}: TensorFlow was already imported, so ONEDNN_MAX_CPU_ISA may not take "
            "effect; run each variant in a fresh process (`python vector_isa.py` does)",
            stacklevel=2,
        )
        return
    os.environ["ONEDNN_MAX_CPU_ISA"] = CAPS[variant]
    os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "1")  # oneDNN's kernels, on any x86 CPU


# --8<-- [end:cap]

if not cap_applies():
    VARIANTS = {"no_cap": VARIANTS["no_cap"]}


# --8<-- [start:conv]
def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() is one 3x3 convolution over a batch."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    set_isa_cap(variant)
    import tensorflow as tf  # imported here, after the cap is set

    batch, height, width, channels_in, channels_out = SHAPES[size]
    images = tf.random.stateless_normal((batch, height, width, channels_in), seed=(1, 2))
    kernel = tf.random.stateless_normal((3, 3, channels_in, channels_out), seed=(3, 4))

    @tf.function
    def convolve(images):
        return tf.nn.conv2d(images, kernel, strides=1, padding="SAME")

    return (lambda: convolve(images)), batch


def flops(variant: str, size: str = "full") -> float:
    """Two operations (multiply, add) per kernel weight per output value."""
    batch, height, width, channels_in, channels_out = SHAPES[size]
    return 2.0 * batch * height * width * channels_out * 9 * channels_in


# --8<-- [end:conv]


def time_variant(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    run().numpy()  # warm-up: oneDNN makes (JIT-compiles) its kernel here
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run().numpy()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    rate = flops(variant, size) / median / 1e9
    print(
        f"{variant:7s} {median * 1e3:8.2f} ms/run {examples / median:8.0f} examples/s"
        f" {rate:7.1f} GFLOP/s  (ONEDNN_MAX_CPU_ISA={os.environ.get('ONEDNN_MAX_CPU_ISA')})"
    )


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one variant, in this fresh process
        time_variant(sys.argv[2], size)
    else:  # each variant in a fresh process whose environment already holds its cap
        for variant in VARIANTS:
            env = dict(os.environ, ONEDNN_MAX_CPU_ISA=CAPS[variant])
            subprocess.run([sys.executable, __file__, size, variant], env=env, check=True)
