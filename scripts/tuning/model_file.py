"""The reader's model file, tune's contract: checked from its source (no import) before any
child starts, then loaded and called in the child; every problem is a ModelFileError whose
message names the file, the function and what was expected.

The contract (scripts/tuning/template.py is a file to copy):
  build_model()    returns a compiled Keras model: Keras 3 (`import keras`) or Keras 2
                   (`import tf_keras`), compiled with its optimizer and loss;
  training_data()  returns a tf.data.Dataset of (x, y) or (x, y, sample_weight) batches, or
                   a tuple (x, y, batch_size) of arrays;
  STEPS_PER_RUN    optional: training steps in one timed run (default 10);
  LOSS             optional, for a model build_model() returns uncompiled: tune compiles it
                   with this loss (a Keras loss name, object or function) and OPTIMIZER
                   (optional: a Keras optimizer name, or a function returning a new optimizer;
                   default "rmsprop", model.compile's own default).

Standard library only at import: the parent (tf-doctor.pyz) checks a file with no TensorFlow.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

BUILD_MODEL = "build_model"
TRAINING_DATA = "training_data"
STEPS_NAME = "STEPS_PER_RUN"
DEFAULT_STEPS = 10
LOSS_NAME, OPTIMIZER_NAME = "LOSS", "OPTIMIZER"
DEFAULT_OPTIMIZER = "rmsprop"  # what model.compile uses when given no optimizer
# The Keras packages whose models tune drives: Keras 3, and Keras 2 as tf_keras (the Keras
# of the recipe Set up recommends for Macs). A `keras` 2.x package is Keras 2 as well.
KERAS_PACKAGES = ("keras", "tf_keras")

EXPECTED = {
    BUILD_MODEL: "a function build_model() that returns a compiled Keras model "
    "(keras.Model, or tf_keras.Model for Keras 2), compiled with an optimizer and a loss",
    TRAINING_DATA: "a function training_data() that returns a tf.data.Dataset of (x, y) "
    "batches, or a tuple (x, y, batch_size) of arrays",
}
TEMPLATE_HINT = "(tune --template prints a file to start from)"


class ModelFileError(ValueError):
    """Bad input in the reader's file: the message says where and what was expected."""


def problem(path: Path | str, function: str | None, found: str, expected: str) -> ModelFileError:
    where = f"{path}: {function}()" if function else f"{path}:"
    return ModelFileError(f"{where} {found}; expected {expected}")


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:300] if text else type(error).__name__


def check_source(path: Path) -> None:
    """Refuse a file that cannot be the contract, from its text alone (nothing is run)."""
    if not path.is_file():
        raise ModelFileError(
            f"{path}: no such file; expected the Python file that defines {BUILD_MODEL}() and "
            f"{TRAINING_DATA}() {TEMPLATE_HINT}"
        )
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except SyntaxError as error:
        raise ModelFileError(
            f"{path}, line {error.lineno}: SyntaxError: {error.msg}; expected a Python file "
            f"that defines {BUILD_MODEL}() and {TRAINING_DATA}()"
        ) from None
    except (OSError, ValueError) as error:
        raise ModelFileError(f"{path}: cannot be read ({one_line(error)})") from None
    bound = top_level_names(tree)
    for function in (BUILD_MODEL, TRAINING_DATA):
        if function not in bound:
            raise problem(path, function, "is not defined", f"{EXPECTED[function]} {TEMPLATE_HINT}")


def top_level_names(tree: ast.Module) -> set[str]:
    """Names the module binds at its top level: definitions, assignments and imports."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def load_module(path: Path) -> ModuleType:
    """Import the reader's file as a module (never as __main__), writing no bytecode beside it."""
    check_source(path)
    sys.dont_write_bytecode = True  # nothing of the reader's is written: no __pycache__
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(1, folder)  # its own imports of files beside it work as when run
    spec = importlib.util.spec_from_file_location("tune_model_file", path)
    if spec is None or spec.loader is None:
        raise ModelFileError(f"{path}: cannot be imported; expected a Python source file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise ModelFileError(
            f"{path}: importing it raised {one_line(error)}; expected a file that imports "
            "without error (tune imports it as a module: code under "
            "`if __name__ == '__main__':` does not run)"
        ) from None
    return module


def function_of(module: ModuleType, path: Path, name: str):
    function = getattr(module, name, None)
    if not callable(function):
        found = "is not defined" if function is None else f"is a {type(function).__name__}"
        raise problem(path, name, found, EXPECTED[name])
    return function


def call(module: ModuleType, path: Path, name: str) -> Any:
    """The function's return value; whatever it raises becomes a message naming it."""
    function = function_of(module, path, name)
    try:
        return function()
    except Exception as error:
        found = f"raised {one_line(error)}"
        raise problem(path, name, found, f"it to return {what(name)}") from None


def what(name: str) -> str:
    return EXPECTED[name].split(" that returns ", 1)[1]


def keras_package(model: Any) -> str | None:
    """'keras' or 'tf_keras' when the object is a model of that package, else None."""
    for cls in type(model).__mro__:
        top = (cls.__module__ or "").split(".")[0]
        if cls.__name__ == "Model" and top in KERAS_PACKAGES:
            return top
    return None


def keras_version(package: str) -> str | None:
    module = sys.modules.get(package)
    return getattr(module, "__version__", None) if module else None


def is_compiled(model: Any) -> bool:
    """Keras 3 says `compiled`; Keras 2 (tf_keras) keeps `_is_compiled`."""
    for flag in ("compiled", "_is_compiled"):
        value = getattr(model, flag, None)
        if isinstance(value, bool):
            return value and getattr(model, "optimizer", None) is not None
    return getattr(model, "optimizer", None) is not None


def build_model(module: ModuleType, path: Path) -> tuple[Any, str]:
    """A fresh compiled model from the reader's build_model(), and its Keras package."""
    model = call(module, path, BUILD_MODEL)
    package = keras_package(model)
    if package is None:
        raise problem(path, BUILD_MODEL, f"returned {describe(model)}", what(BUILD_MODEL))
    loss = getattr(module, LOSS_NAME, None)
    if loss is not None and is_compiled(model):
        raise problem(
            path,
            BUILD_MODEL,
            f"returned a compiled model and the file defines {LOSS_NAME} too",
            f"one of the two: a compiled model, or an uncompiled one and {LOSS_NAME}",
        )
    if loss is not None:
        compile_with(module, path, model, loss, sys.modules[package])
    if not is_compiled(model):
        raise problem(
            path,
            BUILD_MODEL,
            "returned a model that is not compiled",
            "model.compile(optimizer=..., loss=...) before build_model() returns it, or "
            f"{LOSS_NAME} = ... (and optionally {OPTIMIZER_NAME}) in the file",
        )
    return model, package


def compile_with(module: ModuleType, path: Path, model: Any, loss: Any, keras: Any) -> None:
    """Compile an uncompiled model with the file's LOSS and OPTIMIZER (a fresh optimizer for
    every model: one optimizer object cannot train two models)."""
    optimizer = getattr(module, OPTIMIZER_NAME, DEFAULT_OPTIMIZER)
    if callable(optimizer) and not hasattr(optimizer, "apply_gradients"):
        optimizer = optimizer()
    elif not isinstance(optimizer, str):
        raise ModelFileError(
            f"{path}: {OPTIMIZER_NAME} is a {type(optimizer).__name__}; expected a Keras "
            "optimizer name such as 'adam', or a function that returns a new optimizer"
        )
    try:
        if isinstance(loss, str):
            keras.losses.get(loss)  # compile would accept an unknown name until the first step
        model.compile(optimizer=optimizer, loss=loss)
    except Exception as error:
        raise ModelFileError(
            f"{path}: compiling build_model()'s model with {LOSS_NAME} = {loss!r} raised "
            f"{one_line(error)}; expected a Keras loss name, object or function"
        ) from None


def describe(value: Any) -> str:
    if value is None:
        return "None (is a `return` missing?)"
    kind = type(value)
    return (
        f"a {kind.__module__}.{kind.__qualname__}"
        if kind.__module__ != "builtins"
        else (f"a {kind.__name__}")
    )


@dataclass
class TrainingData:
    """What training_data() returned: a dataset of batches, or arrays with a batch size."""

    dataset: Any = None
    x: Any = None
    y: Any = None
    batch_size: int | None = None

    @property
    def kind(self) -> str:
        return "dataset" if self.dataset is not None else "arrays"


def is_dataset(value: Any) -> bool:
    return any(
        (cls.__module__ or "").startswith("tensorflow.python.data.") and "Dataset" in cls.__name__
        for cls in type(value).__mro__
    )


def training_data(module: ModuleType, path: Path) -> TrainingData:
    data = call(module, path, TRAINING_DATA)
    if is_dataset(data):
        spec = data.element_spec
        if not isinstance(spec, tuple) or len(spec) not in (2, 3):
            raise problem(
                path,
                TRAINING_DATA,
                f"returned a dataset whose elements are {type(spec).__name__}s, not (x, y) pairs",
                "a dataset of (x, y) or (x, y, sample_weight) batches, as model.fit takes",
            )
        return TrainingData(dataset=data)
    if isinstance(data, (tuple, list)) and len(data) == 3:
        x, y, batch_size = data
        length = leading_length(x)
        if length is None or leading_length(y) != length:
            raise problem(
                path,
                TRAINING_DATA,
                f"returned x and y of {length} and {leading_length(y)} rows",
                "(x, y, batch_size) with x and y arrays of the same number of rows",
            )
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise problem(
                path, TRAINING_DATA, f"returned batch_size {batch_size!r}", "a positive integer"
            )
        if batch_size > length:
            raise problem(
                path,
                TRAINING_DATA,
                f"returned batch_size {batch_size} for {length} rows",
                "at least one whole batch of data",
            )
        return TrainingData(x=x, y=y, batch_size=batch_size)
    raise problem(path, TRAINING_DATA, f"returned {describe(data)}", what(TRAINING_DATA))


def leading_length(array: Any) -> int | None:
    shape = getattr(array, "shape", None)
    if shape is None or len(shape) == 0:
        return None
    return int(shape[0])


def steps_per_run(module: ModuleType, path: Path) -> int:
    steps = getattr(module, STEPS_NAME, DEFAULT_STEPS)
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ModelFileError(
            f"{path}: {STEPS_NAME} = {steps!r}; expected a positive integer (training steps in "
            f"one timed run; leave it out for {DEFAULT_STEPS})"
        )
    return steps
