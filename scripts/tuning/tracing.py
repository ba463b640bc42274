"""Counting tf.function traces while the reader's model trains (the retracing trap).

Every trace, of any tf.function (Keras's own train function, the reader's functions, nested
ones), makes TensorFlow log "Creating new FuncGraph for Python function ..." at verbosity 1
on its Python logger, tf.get_logger(). TraceCount listens there while it is open: it counts
those records and lets through only what the logger would have shown anyway, so nothing new
reaches the terminal. Standard library only; TensorFlow's logger is passed in.
"""

from __future__ import annotations

import logging

TRACE_MESSAGE = "Creating new FuncGraph for Python function"
VERBOSE = 1  # the level TensorFlow's vlog(1, ...) logs at


class TraceCount(logging.Filter):
    """`with TraceCount(tf.get_logger()) as traces:` ... `traces.count`."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__()
        self.logger = logger
        self.count = 0
        self.shown_from = logger.getEffectiveLevel()
        self.level = logger.level

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(TRACE_MESSAGE):
            self.count += 1
        return record.levelno >= self.shown_from

    def __enter__(self) -> TraceCount:
        self.logger.addFilter(self)
        self.logger.setLevel(VERBOSE)
        return self

    def __exit__(self, *exc) -> None:
        self.logger.setLevel(self.level)
        self.logger.removeFilter(self)
