"""Convert a Keras 3 model to Core ML, the only route from TensorFlow to the Neural Engine.

`python -m scripts.coreml_convert` builds a small CNN, exports it with one serving
signature, converts it with coremltools and describes the result. Conversion runs on Linux
too; predicting (and so timing each compute unit) needs macOS, and is skipped elsewhere.
Needs `pip install coremltools` (tested with 9.0); it is not one of TensorFlow's packages.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import keras
import numpy as np
import tensorflow as tf

INPUT_SHAPE = (1, 28, 28, 1)  # Core ML models have fixed input shapes unless told otherwise
MAC_ONLY = "Core ML runs models only on macOS, so prediction was skipped on this machine"


def build_model() -> keras.Model:
    return keras.Sequential(
        [
            keras.Input(shape=INPUT_SHAPE[1:]),
            keras.layers.Conv2D(8, 3, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(10, activation="softmax"),
        ]
    )


# --8<-- [start:export]
class Serving(tf.Module):
    """The model behind exactly one concrete function: the form coremltools accepts."""

    def __init__(self, model: keras.Model):
        super().__init__()
        self.model = model

    @tf.function(input_signature=[tf.TensorSpec(INPUT_SHAPE, tf.float32, name="image")])
    def serve(self, image):
        return self.model(image, training=False)


def export_saved_model(model: keras.Model, directory: Path) -> Path:
    module = Serving(model)
    tf.saved_model.save(module, str(directory), signatures=module.serve)
    return directory


# --8<-- [end:export]


# --8<-- [start:convert]
def convert(saved_model: Path, compute_units: str = "ALL"):
    """SavedModel -> Core ML ML program. Weights and activations default to float16."""
    import coremltools as ct

    return ct.convert(
        str(saved_model),
        source="tensorflow",
        convert_to="mlprogram",
        compute_units=getattr(ct.ComputeUnit, compute_units),  # a wish: Core ML decides
    )


# --8<-- [end:convert]


def compute_precision(mlmodel) -> str:
    """'float16' when the ML program casts its input to float16 (coremltools' default)."""
    from coremltools.proto import MIL_pb2

    function = mlmodel.get_spec().mlProgram.functions["main"]
    operations = function.block_specializations[function.opset].operations
    casts = [
        MIL_pb2.DataType.Name(op.outputs[0].type.tensorType.dataType)
        for op in operations
        if op.type == "cast"
    ]
    return "float16" if "FLOAT16" in casts else "float32"


def describe(mlmodel) -> list[str]:
    spec = mlmodel.get_spec()
    inputs = [f"{i.name} {list(i.type.multiArrayType.shape)}" for i in spec.description.input]
    outputs = [f"{o.name} {list(o.type.multiArrayType.shape)}" for o in spec.description.output]
    return [
        f"model type: {spec.WhichOneof('Type')} (spec version {spec.specificationVersion})",
        f"inputs: {', '.join(inputs)}; outputs: {', '.join(outputs)}",
        f"compute precision: {compute_precision(mlmodel)}",
        f"compute units requested: {mlmodel.compute_unit.name}",
    ]


# --8<-- [start:predict]
def time_compute_units(saved_model: Path, model: keras.Model, repeats: int = 50) -> list[str]:
    """macOS only: predict with each compute-unit setting, time it, compare with Keras."""
    image = np.random.default_rng(0).standard_normal(INPUT_SHAPE, dtype=np.float32)
    expected = model(image, training=False).numpy()
    lines = []
    for units in ("CPU_ONLY", "CPU_AND_GPU", "CPU_AND_NE", "ALL"):
        mlmodel = convert(saved_model, units)
        name = mlmodel.get_spec().description.input[0].name
        output = next(iter(mlmodel.predict({name: image}).values()))  # first call: set-up
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            mlmodel.predict({name: image})
            times.append(time.perf_counter() - start)
        difference = float(np.abs(output - expected).max())
        lines.append(
            f"{units:12s} median {statistics.median(times) * 1e3:7.3f} ms/prediction, "
            f"largest difference from Keras {difference:.1e}"
        )
    return lines


# --8<-- [end:predict]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.coreml_convert", description=__doc__)
    parser.add_argument("--out", type=Path, help="also save the .mlpackage here")
    args = parser.parse_args(argv)
    try:
        import coremltools as ct
    except ImportError:
        print("coremltools is not installed: `pip install coremltools`", file=sys.stderr)
        return 2
    print(f"coremltools {ct.__version__}, TensorFlow {tf.__version__}, Keras {keras.__version__}")
    model = build_model()
    with tempfile.TemporaryDirectory() as tmp:
        saved_model = export_saved_model(model, Path(tmp) / "saved_model")
        mlmodel = convert(saved_model)
        print("\n".join(describe(mlmodel)))
        if args.out:
            mlmodel.save(str(args.out))
            print(f"saved {args.out}")
        if platform.system() == "Darwin":
            print("\n".join(time_compute_units(saved_model, model)))
        else:
            print(MAC_ONLY)
    return 0


if __name__ == "__main__":
    sys.exit(main())
