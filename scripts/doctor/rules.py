"""The doctor's checks: each rule is a pure function from collected `Facts` to one `Check`.

Rules never probe the machine, so tests can hand them any machine (a Mac under Rosetta, a
broken plugin) on Linux. They live by subject: rules_install.py (Python, architecture, macOS,
the TensorFlow packages, the tensorflow-metal plugin), rules_keras.py (Keras, the Mac recipe,
the optimizer, float64), rules_measured_stack.py (which of the guide's measured stacks this
is) and rules_runtime.py (import, GPU and devices, XLA, memory, disk, CPU, oneDNN); checks.py
holds what they share. This module is the one ordered list of them, the report's order, and
runs it.
"""

from __future__ import annotations

from collections.abc import Callable

from scripts.doctor.checks import Check, Status
from scripts.doctor.facts import Facts
from scripts.doctor.rules_install import (
    check_architecture,
    check_macos,
    check_metal,
    check_python,
    check_tensorflow,
)
from scripts.doctor.rules_keras import (
    check_float64,
    check_keras,
    check_mac_recipe,
    check_optimizer,
    check_retracing,
)
from scripts.doctor.rules_measured_stack import check_measured_stack
from scripts.doctor.rules_runtime import (
    check_cpu,
    check_devices,
    check_disk,
    check_gpu,
    check_import,
    check_memory,
    check_onednn,
    check_xla,
)

RULES: tuple[Callable[[Facts], Check], ...] = (
    check_python,
    check_architecture,
    check_macos,
    check_tensorflow,
    check_import,
    check_metal,
    check_gpu,
    check_devices,
    check_keras,
    check_retracing,
    check_mac_recipe,
    check_measured_stack,
    check_optimizer,
    check_float64,
    check_xla,
    check_memory,
    check_disk,
    check_cpu,
    check_onednn,
)


def run_all(facts: Facts) -> list[Check]:
    """Every rule's check, in report order; a rule that raises becomes a WARN, not a crash."""
    checks = []
    for rule in RULES:
        try:
            checks.append(rule(facts))
        except Exception as error:
            name = rule.__name__.removeprefix("check_")
            checks.append(
                Check(name, Status.WARN, f"the doctor could not check this: {error!r}",
                      fix="report it with the output of `python -m scripts.doctor --json`")
            )  # fmt: skip
    return checks
