"""What a stack's environment really loads, read by running its Python: the TensorFlow, the
Keras that `tf.keras` resolves to under the stack's TF_USE_LEGACY_KERAS, NumPy and Python.

A results entry records this, not the versions data/measured_stacks.yml expects, and a run
whose environment loads another stack than the one it was asked for stops with an error.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable

from scripts.core import measured_stacks, software_stack

# Run by the stack's Python: prints one JSON line. tf.keras is Keras 3 ("keras._tf_keras.keras")
# or tf-keras ("tf_keras.api._v2.keras"); its package's version is read from its metadata.
PROBE = """
import importlib.metadata as metadata, json, platform
import tensorflow as tf
package = "tf-keras" if tf.keras.__name__.startswith("tf_keras") else "keras"
def version(name):
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
print(json.dumps({"python": platform.python_version(), "tensorflow": tf.__version__,
                  "keras": version(package), "keras_package": package,
                  "numpy": version("numpy"), "tensorflow_metal": version("tensorflow-metal")}))
"""


def run_probe(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False)


def probe(
    stack: measured_stacks.Stack,
    run: Callable[[list[str], dict[str, str]], subprocess.CompletedProcess] = run_probe,
) -> dict:
    """The software the stack's environment loads; StackError if it is missing, fails to
    import TensorFlow, or loads another stack than this one."""
    why = stack.missing()
    if why:
        raise measured_stacks.StackError(why)
    env = stack.environ()
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    done = run([str(stack.interpreter()), "-c", PROBE], env)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise measured_stacks.StackError(
            f"stack {stack.id}: its Python ({stack.environment}) could not import TensorFlow: "
            f"{tail[0]}"
        )
    software = json.loads(lines[-1])
    loaded = software_stack.name(software)
    if loaded != stack.id:
        raise measured_stacks.StackError(
            f"stack {stack.id}: {stack.environment} loads TensorFlow {software['tensorflow']} "
            f"with {software['keras_package']} {software['keras']}, which is stack {loaded}; "
            f"rebuild it ({stack.build_command()})"
        )
    return software
