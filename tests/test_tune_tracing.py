"""tune's trace count (scripts/tuning/tracing.py) against TensorFlow's own count: a function
called with new Python numbers traces at every call, with tensors once; the logger is left
as it was and shows nothing it would not have shown."""

from __future__ import annotations

import logging

import tensorflow as tf

from scripts.tuning.tracing import TraceCount


def test_traces_are_counted_as_tensorflow_counts_them():
    @tf.function
    def scaled(x, step):
        return x * tf.cast(step, tf.float32)

    x = tf.ones((4,))
    logger = tf.get_logger()
    level = logger.level
    with TraceCount(logger) as python_numbers:
        for step in range(5):
            scaled(x, step)
    assert python_numbers.count == scaled.experimental_get_tracing_count() == 5
    with TraceCount(logger) as tensors:
        for step in range(5):
            scaled(x, tf.constant(step))
    assert tensors.count == 1
    assert scaled.experimental_get_tracing_count() == 6
    assert logger.level == level and not any(isinstance(f, TraceCount) for f in logger.filters)


def test_only_what_the_logger_showed_before_gets_through(caplog):
    logger = tf.get_logger()
    with caplog.at_level(logging.WARNING, logger=logger.name):
        with TraceCount(logger):
            tf.function(lambda v: v + 1)(tf.constant(1))
            logger.warning("still shown")
    messages = [r.getMessage() for r in caplog.records]
    assert "still shown" in messages
    assert not any("FuncGraph" in m for m in messages)
