"""Run by the doctor in a child process: import TensorFlow and print what it sees as one JSON line.

Whatever goes wrong here, an exception or a crash such as an illegal instruction, ends only
this process; the doctor reads the exit status and the output. Standard library only until
TensorFlow itself.
"""

from __future__ import annotations

import json
import sys
import time

MARK = "DOCTOR-JSON "


def one_line(error: BaseException) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}"[:400]


def inspect() -> dict:
    """Import TensorFlow and Keras the way a reader's program would, recording each step."""
    report: dict = {"error": None, "keras_error": None}
    start = time.perf_counter()
    try:
        import tensorflow as tf
    except Exception as error:  # a broken install raises all kinds of errors
        report["error"] = one_line(error)
        return report
    report["seconds"] = round(time.perf_counter() - start, 1)
    report["version"] = tf.__version__
    report["location"] = getattr(tf, "__file__", None)
    report["devices"] = [
        f"{device.device_type}:{device.name.rsplit(':', 1)[-1]}"
        for device in tf.config.list_physical_devices()
    ]
    try:
        report["cuda_build"] = bool(tf.sysconfig.get_build_info().get("is_cuda_build"))
    except Exception:
        report["cuda_build"] = None
    try:  # private, so guarded: True when oneDNN custom operations are on
        from tensorflow.python.util import _pywrap_util_port

        report["onednn"] = bool(_pywrap_util_port.IsMklEnabled())
    except Exception:
        report["onednn"] = None
    try:
        keras = tf.keras
        report["keras_module"] = keras.__name__
        report["keras_version"] = getattr(keras, "__version__", None)
        report["floatx"] = keras.backend.floatx()
    except Exception as error:
        report["keras_error"] = one_line(error)
    return report


def main() -> int:
    report = inspect()
    print(MARK + json.dumps(report), flush=True)
    return 1 if report["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
