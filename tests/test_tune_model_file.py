"""tune's contract: the reader's file is refused with the file, the function and what was
expected named; Keras 3 and Keras 2 (tf_keras, a fake here) models are accepted; nothing is
written beside the reader's file."""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest

from scripts.tuning import model_file
from scripts.tuning.model_file import ModelFileError

KERAS3_MODEL = """
import keras
import numpy as np

def build_model():
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    return model
"""
ARRAYS = """
def training_data():
    return np.zeros((64, 4), "float32"), np.zeros((64, 2), "float32"), 16
"""


def write(folder: Path, text: str, name: str = "my_model.py") -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text))
    return path


def load_and_call(path: Path):
    module = model_file.load_module(path)
    model, package = model_file.build_model(module, path)
    data = model_file.training_data(module, path)
    return module, model, package, data


def test_the_template_meets_the_contract(root):
    path = root / "scripts" / "tuning" / "template.py"
    module, model, package, data = load_and_call(path)
    assert package == "keras" and model_file.is_compiled(model)
    assert data.kind == "dataset"
    assert model_file.steps_per_run(module, path) == module.STEPS_PER_RUN


def test_a_keras3_model_with_arrays_is_accepted(tmp_path):
    path = write(tmp_path, KERAS3_MODEL + ARRAYS)
    _, _, package, data = load_and_call(path)
    assert package == "keras"
    assert (data.kind, data.batch_size) == ("arrays", 16)


SOURCE_CASES = [
    (
        "missing file",
        None,
        "no such file; expected the Python file that defines build_model() and training_data()",
    ),
    ("syntax error", "def build_model(:\n", "line 1: SyntaxError"),
    (
        "no build_model",
        "def training_data():\n    pass\n",
        "build_model() is not defined; expected a function build_model() that returns a compiled Keras model",
    ),
    (
        "no training_data",
        "def build_model():\n    pass\n",
        "training_data() is not defined; expected a function training_data() that returns a tf.data.Dataset",
    ),
]


@pytest.mark.parametrize(
    ("case", "text", "message"), SOURCE_CASES, ids=[c[0] for c in SOURCE_CASES]
)
def test_a_file_that_cannot_be_the_contract_is_refused_from_its_source(
    tmp_path, case, text, message
):
    path = tmp_path / "my_model.py"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ModelFileError) as refused:
        model_file.check_source(path)
    assert str(refused.value).startswith(str(path))
    assert message in str(refused.value)


def test_names_bound_by_import_or_assignment_count_as_defined(tmp_path):
    path = write(tmp_path, "from os import getcwd as build_model\ntraining_data = print\n")
    model_file.check_source(path)


CALL_CASES = [
    (
        "import raises",
        "import no_such_module_here\n" + KERAS3_MODEL + ARRAYS,
        None,
        "importing it raised ModuleNotFoundError: No module named 'no_such_module_here'; expected a file that imports without error",
    ),
    (
        "build_model raises",
        "def build_model():\n    raise ValueError('bad layer')\n" + ARRAYS,
        "build",
        "build_model() raised ValueError: bad layer; expected it to return a compiled Keras model",
    ),
    (
        "build_model returns a list",
        "def build_model():\n    return []\n" + ARRAYS,
        "build",
        "build_model() returned a list; expected a compiled Keras model",
    ),
    (
        "build_model returns None",
        "def build_model():\n    pass\n" + ARRAYS,
        "build",
        "build_model() returned None (is a `return` missing?); expected a compiled Keras model",
    ),
    (
        "model not compiled",
        KERAS3_MODEL.replace('    model.compile(optimizer="sgd", loss="mse")\n', "") + ARRAYS,
        "build",
        "build_model() returned a model that is not compiled; expected model.compile(optimizer=..., loss=...) before build_model() returns it, or LOSS = ... (and optionally OPTIMIZER) in the file",
    ),
    (
        "training_data raises",
        KERAS3_MODEL + "def training_data():\n    return open('/no/such/data.csv')\n",
        "data",
        "training_data() raised FileNotFoundError: [Errno 2] No such file or directory: '/no/such/data.csv'; expected it to return a tf.data.Dataset of (x, y) batches, or a tuple (x, y, batch_size) of arrays",
    ),
    (
        "training_data returns arrays without a batch size",
        KERAS3_MODEL + "def training_data():\n    return np.zeros((8, 4)), np.zeros((8, 2))\n",
        "data",
        "training_data() returned a tuple; expected a tf.data.Dataset of (x, y) batches, or a tuple (x, y, batch_size) of arrays",
    ),
    (
        "rows differ",
        KERAS3_MODEL + "def training_data():\n    return np.zeros((8, 4)), np.zeros((7, 2)), 4\n",
        "data",
        "training_data() returned x and y of 8 and 7 rows; expected (x, y, batch_size) with x and y arrays of the same number of rows",
    ),
    (
        "batch size not an integer",
        KERAS3_MODEL + "def training_data():\n    return np.zeros((8, 4)), np.zeros((8, 2)), 2.5\n",
        "data",
        "training_data() returned batch_size 2.5; expected a positive integer",
    ),
    (
        "batch larger than the data",
        KERAS3_MODEL + "def training_data():\n    return np.zeros((8, 4)), np.zeros((8, 2)), 32\n",
        "data",
        "training_data() returned batch_size 32 for 8 rows; expected at least one whole batch of data",
    ),
    (
        "dataset of single tensors",
        KERAS3_MODEL
        + "import tensorflow as tf\ndef training_data():\n    return tf.data.Dataset.range(4)\n",
        "data",
        "training_data() returned a dataset whose elements are TensorSpecs, not (x, y) pairs; expected a dataset of (x, y) or (x, y, sample_weight) batches",
    ),
    (
        "steps not a positive integer",
        KERAS3_MODEL + ARRAYS + "STEPS_PER_RUN = 0\n",
        "steps",
        "STEPS_PER_RUN = 0; expected a positive integer",
    ),
]


@pytest.mark.parametrize(
    ("case", "text", "stage", "message"), CALL_CASES, ids=[c[0] for c in CALL_CASES]
)
def test_bad_input_names_the_file_the_function_and_what_was_expected(
    tmp_path, case, text, stage, message
):
    path = write(tmp_path, text)
    with pytest.raises(ModelFileError) as refused:
        module = model_file.load_module(path)
        if stage == "build":
            model_file.build_model(module, path)
        elif stage == "data":
            model_file.training_data(module, path)
        elif stage == "steps":
            model_file.steps_per_run(module, path)
    assert str(refused.value).startswith(f"{path}: ")
    assert message in str(refused.value)


# A stand-in for Keras 2's tf_keras package (not installed here): its Model lives in
# tf_keras.src.engine.training and says it is compiled with `_is_compiled`, as tf_keras does.
FAKE_TF_KERAS = """
import types

__version__ = "2.16.0"


class Model:
    def __init__(self):
        self._is_compiled = False
        self.optimizer = None

    def compile(self, optimizer, loss):
        self._is_compiled, self.optimizer, self.loss = True, optimizer, loss


Model.__module__ = "tf_keras.src.engine.training"
"""
KERAS2_MODEL = """
import numpy as np
import tf_keras as keras

def build_model():
    model = keras.Model()
    {compile}
    return model
"""


@pytest.fixture()
def fake_tf_keras(tmp_path):
    (tmp_path / "tf_keras").mkdir()
    (tmp_path / "tf_keras" / "__init__.py").write_text(FAKE_TF_KERAS)
    yield tmp_path
    sys.modules.pop("tf_keras", None)
    sys.path[:] = [p for p in sys.path if p != str(tmp_path)]


def test_a_keras2_tf_keras_model_is_accepted(fake_tf_keras):
    text = KERAS2_MODEL.format(compile='model.compile(optimizer="adam", loss="mse")') + ARRAYS
    path = write(fake_tf_keras, text)
    _, model, package, _ = load_and_call(path)
    assert package == "tf_keras"
    assert model_file.keras_version(package) == "2.16.0"


def test_an_uncompiled_keras2_model_is_refused(fake_tf_keras):
    path = write(fake_tf_keras, KERAS2_MODEL.format(compile="pass") + ARRAYS)
    with pytest.raises(ModelFileError, match="returned a model that is not compiled"):
        load_and_call(path)


def test_loading_writes_nothing_beside_the_readers_file(tmp_path):
    write(tmp_path, "X = 1\n", name="helpers.py")
    path = write(tmp_path, "from helpers import X\n" + KERAS3_MODEL + ARRAYS)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    load_and_call(path)
    after = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    assert after == before  # no __pycache__, nothing touched


UNCOMPILED = KERAS3_MODEL.replace('    model.compile(optimizer="sgd", loss="mse")\n', "")


def test_an_uncompiled_model_with_the_files_loss_is_compiled_with_it(tmp_path):
    path = write(tmp_path, UNCOMPILED + ARRAYS + "LOSS = 'mae'\n")
    _, model, _, _ = load_and_call(path)
    assert model_file.is_compiled(model) and model.loss == "mae"
    assert type(model.optimizer).__name__ == "RMSprop"  # model.compile's own default
    text = (
        UNCOMPILED
        + ARRAYS
        + "LOSS = 'mae'\ndef OPTIMIZER():\n    return keras.optimizers.SGD(0.1)\n"
    )
    path = write(tmp_path, text)
    module = model_file.load_module(path)
    first, _ = model_file.build_model(module, path)
    second, _ = model_file.build_model(module, path)
    assert type(first.optimizer).__name__ == "SGD" and first.optimizer is not second.optimizer


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            KERAS3_MODEL + ARRAYS + "LOSS = 'mae'\n",
            "returned a compiled model and the file defines LOSS too",
        ),
        (
            UNCOMPILED + ARRAYS + "LOSS = 'no_such_loss'\n",
            "compiling build_model()'s model with LOSS = 'no_such_loss' raised",
        ),
        (
            UNCOMPILED + ARRAYS + "LOSS = 'mae'\nOPTIMIZER = 3\n",
            "OPTIMIZER is a int; expected a Keras optimizer name",
        ),
    ],
)
def test_a_loss_that_cannot_be_used_is_named(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(ModelFileError, match=re.escape(message)):
        load_and_call(path)
