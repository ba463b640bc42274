"""Which tests pytest-xdist keeps together on one worker (tests/conftest.py's scheduler).

Every test is scheduled on its own, so that the long ones spread over the workers, except:
the browser tests, which all go to one worker (one Chromium, and every page loaded once:
tests/browser/conftest.py's visits), and each module of ONE_WORKER_MODULES, whose
module-scoped fixture costs more than its tests: spread over two workers it would be made
twice.
"""

from __future__ import annotations

# Each module's costly module-scoped fixture, in a word: a simulation, renders, a TensorFlow
# child or import, an archive and a bare environment.
ONE_WORKER_MODULES = (
    "tests/test_interval_calibration.py",  # 80 simulated worlds
    "tests/test_stack_render.py",  # two renders
    "tests/test_fix_convergence.py",  # every fix's outcomes
    "tests/test_doctor_cli.py",  # the doctor run for real
    "tests/test_doctor_zipapp.py",  # the archive and a bare virtual environment
    "tests/test_tune_zipapp.py",  # the archive
    "tests/test_forked_program.py",  # the planted scenarios in a TensorFlow child
    "tests/test_neural_engine.py",  # a Keras model and its SavedModel
    "tests/test_snippet_server.py",  # a snippet server (TensorFlow imported)
)


def scheduling_group(nodeid: str) -> str | None:
    """The group a test is scheduled with under --dist loadgroup, or None to go alone."""
    if nodeid.startswith("tests/browser/"):
        return "browser"
    module = nodeid.split("::", 1)[0]
    return module if module in ONE_WORKER_MODULES else None
