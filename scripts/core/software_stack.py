"""Which software stack a results entry ran on, named from the TensorFlow and Keras it records.

A stack is a dimension of the results beside the machine: sessions of one stack pool with each
other, never with another's. Names: tf<major><minor>-<keras>, for example tf216-keras3
(TensorFlow 2.16 with Keras 3) or tf216-tf-keras (Keras 2 from the tf-keras package, which
TensorFlow 2.16 and later use when TF_USE_LEGACY_KERAS=1).
"""

from __future__ import annotations

import re

VERSION = re.compile(r"(\d+)\.(\d+)")


def name(software: dict) -> str:
    """The stack id of an entry's software block; 'unknown' parts where a version is missing."""
    tensorflow = VERSION.match(str(software.get("tensorflow") or ""))
    keras = VERSION.match(str(software.get("keras") or ""))
    tf_part = f"tf{tensorflow.group(1)}{tensorflow.group(2)}" if tensorflow else "tf-unknown"
    if keras is None:
        return f"{tf_part}-keras-unknown"
    if (
        keras.group(1) == "2"
        and tensorflow
        and (int(tensorflow.group(1)), int(tensorflow.group(2))) >= (2, 16)
    ):
        return f"{tf_part}-tf-keras"
    return f"{tf_part}-keras{keras.group(1)}"
