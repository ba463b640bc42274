"""What TensorFlow's device calls really do: list devices, hide the GPU, log and force placement.

Run it directly: `python placement.py` (or `small`). Each variant runs in a fresh process,
because device visibility can only be changed before TensorFlow's runtime starts. Every
line says where the work actually ran. The matrices are random, made locally.
"""

import re
import statistics
import subprocess
import sys
import time

import numpy as np
import tensorflow as tf

SIDE = {"full": 512, "small": 64}  # one run multiplies two SIDE x SIDE matrices

VARIANTS = {
    "default": "no placement call: TensorFlow chooses (placement logged)",
    "forced_cpu": "inside tf.device('/CPU:0')",
    "requested_gpu": "inside tf.device('/GPU:0')",
    "hidden_gpus": "tf.config.set_visible_devices([], 'GPU') before the runtime starts",
    "late_change": "a device change after the runtime started (RuntimeError, caught)",
}
BASELINE = "default"
ISOLATE_VARIANTS = True  # visibility and logging must be set before the runtime starts

NOTES: dict[str, str] = {}  # what each variant's set-up reported, printed with its timing


# --8<-- [start:devices]
def device_counts() -> str:
    # Physical devices: the hardware TensorFlow found. Listing them does not start the runtime.
    physical = tf.config.list_physical_devices("GPU")
    # Logical devices: what ops can be placed on. Listing them starts the runtime.
    logical = tf.config.list_logical_devices("GPU")
    return f"GPUs found {len(physical)}, usable {len(logical)}"


# --8<-- [end:devices]


# --8<-- [start:hide]
def hide_gpus() -> str:
    """Hide every GPU, the Metal one included: from now on everything runs on the CPU."""
    try:
        tf.config.set_visible_devices([], "GPU")
    except RuntimeError as error:  # the runtime had already started in this process
        return f"could not hide: {error}"
    return "hidden before the runtime started"


# --8<-- [end:hide]


# --8<-- [start:late]
def change_devices_late() -> str:
    """Start the runtime with one op, then try to change the devices: TensorFlow refuses."""
    tf.constant(1.0)  # any op starts the runtime; the device list is now fixed
    try:
        if tf.config.list_physical_devices("GPU"):
            tf.config.set_visible_devices([], "GPU")
        else:  # no GPU to hide here: split the CPU instead, which is refused the same way
            cpu = tf.config.list_physical_devices("CPU")[0]
            halves = [tf.config.LogicalDeviceConfiguration()] * 2
            tf.config.set_logical_device_configuration(cpu, halves)
    except RuntimeError as error:
        return f"RuntimeError caught: {error}"
    return "no error: the change was allowed"


# --8<-- [end:late]


def make_matrices(side: int):
    rng = np.random.default_rng(0)
    return [tf.constant(rng.standard_normal((side, side), dtype=np.float32)) for _ in "ab"]


@tf.function
def multiply(a, b):
    return tf.nn.relu(a @ b)


# --8<-- [start:force]
def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() multiplies two matrices where the variant says."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(VARIANTS)}")
    if variant == "default":
        # Before the runtime starts: log the device every op of every graph is placed on.
        tf.debugging.set_log_device_placement(True)
    if variant == "hidden_gpus":
        NOTES[variant] = hide_gpus()
    if variant == "late_change":
        NOTES[variant] = change_devices_late()
    device = {"forced_cpu": "/CPU:0", "requested_gpu": "/GPU:0"}.get(variant)
    side = SIDE[size]
    a, b = make_matrices(side)

    def run():
        if device is None:
            return multiply(a, b)
        with tf.device(device):  # ops created inside run on this device, if it exists
            return multiply(a, b)

    return run, side


# --8<-- [end:force]


def flops(variant: str, size: str = "full") -> float:
    return 2.0 * SIDE[size] ** 3


def time_variant(variant: str, size: str) -> None:
    run, examples = make_workload(variant, size)
    result = run()  # warm-up: tracing and placement happen here
    times = []
    for _ in range(5):
        start = time.perf_counter()
        result = run()
        result.numpy()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    ran_on = result.device.rsplit("/", 1)[-1].replace("device:", "")
    facts = [f"ran on {ran_on}", device_counts(), NOTES.get(variant, "")]
    print(
        f"{variant:14s} {median * 1e3:8.2f} ms/run {examples / median:10.0f} examples/s | "
        + " | ".join(fact for fact in facts if fact)
    )


# TensorFlow prints each placement decision as "name: (OpType): /job:.../device:CPU:0".
PLACEMENT_LINE = re.compile(r"^\S+: \((\w+)\): \S+/device:(\w+:\d+)$")


def placement_summary(lines: list[str]) -> str:
    """The op types of the traced graph, grouped by the device TensorFlow chose for them."""
    by_device: dict[str, list[str]] = {}
    for line in lines:
        match = PLACEMENT_LINE.match(line)
        if match and not match.group(1).startswith("_"):  # skip arguments and return values
            ops = by_device.setdefault(match.group(2), [])
            if match.group(1) not in ops:
                ops.append(match.group(1))
    return "; ".join(f"{', '.join(ops)} -> {device}" for device, ops in by_device.items())


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    if len(sys.argv) > 2:  # one variant, in this fresh process
        time_variant(sys.argv[2], size)
    else:  # each variant in its own process; keep our lines, summarise the placement log
        for variant in VARIANTS:
            done = subprocess.run(
                [sys.executable, __file__, size, variant],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            lines = done.stdout.splitlines()
            ours = [line for line in lines if line.startswith(variant + " ")]
            logged = placement_summary(lines)
            print(ours[-1] + (f" | placement log: {logged}" if logged else ""), flush=True)
