"""The Core ML route of the Neural Engine page, checked with the pinned TensorFlow and Keras.

coremltools is optional: without it these tests skip. Every row of the page's table of
`ct.convert` results is checked here, so the page cannot go out of date silently.
"""

from __future__ import annotations

import sys

import keras
import pytest
import tensorflow as tf

from scripts import coreml_convert

ct = pytest.importorskip("coremltools", reason="coremltools is not installed")


@pytest.fixture(scope="module")
def model():
    return coreml_convert.build_model()


@pytest.fixture(scope="module")
def saved_model(model, tmp_path_factory):
    return coreml_convert.export_saved_model(model, tmp_path_factory.mktemp("coreml") / "sm")


def test_one_signature_saved_model_converts_to_a_float16_ml_program(saved_model):
    mlmodel = coreml_convert.convert(saved_model)
    lines = coreml_convert.describe(mlmodel)
    assert "model type: mlProgram" in lines[0]
    assert "image [1, 28, 28, 1]" in lines[1]
    assert lines[2] == "compute precision: float16"
    assert lines[3] == "compute units requested: ALL"


def test_a_concrete_function_converts(model):
    spec = tf.TensorSpec(coreml_convert.INPUT_SHAPE, tf.float32)
    function = tf.function(lambda x: model(x, training=False)).get_concrete_function(spec)
    mlmodel = ct.convert([function], source="tensorflow", convert_to="mlprogram")
    assert mlmodel.get_spec().WhichOneof("Type") == "mlProgram"


def test_a_keras_3_model_is_not_recognised(model):
    with pytest.raises(ValueError, match="Unable to determine the type of the model"):
        ct.convert(model, convert_to="mlprogram")
    with pytest.raises(AttributeError, match="_get_save_spec"):
        ct.convert(model, source="tensorflow", convert_to="mlprogram")


def test_keras_export_has_more_than_one_function(model, tmp_path):
    model.export(str(tmp_path / "exported"), verbose=False)
    with pytest.raises(NotImplementedError, match="Only a single concrete function"):
        ct.convert(str(tmp_path / "exported"), source="tensorflow", convert_to="mlprogram")


def test_a_keras_3_lstm_does_not_convert():
    lstm = keras.Sequential(
        [keras.Input((10, 4)), keras.layers.LSTM(8), keras.layers.Dense(2)]
    )  # fmt: skip
    spec = tf.TensorSpec((1, 10, 4), tf.float32)
    function = tf.function(lambda x: lstm(x, training=False)).get_concrete_function(spec)
    with pytest.raises(IndexError):
        ct.convert([function], source="tensorflow", convert_to="mlprogram")


@pytest.mark.skipif(sys.platform == "darwin", reason="this checks the skip message off macOS")
def test_prediction_is_skipped_with_a_reason_off_macos(capsys):
    assert coreml_convert.main([]) == 0
    out = capsys.readouterr().out
    assert coreml_convert.MAC_ONLY in out and "compute precision: float16" in out


@pytest.mark.skipif(sys.platform != "darwin", reason="Core ML predicts only on macOS")
def test_prediction_matches_keras_on_a_mac(saved_model, model):
    for line in coreml_convert.time_compute_units(saved_model, model, repeats=3):
        difference = float(line.rsplit(" ", 1)[1])
        assert difference < 0.05, line
