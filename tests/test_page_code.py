"""The code blocks a Mac reader runs in their own environment run on the stacks they are written
for, not only on the first measured stack, where pytest-codeblocks runs every page's blocks.

Set up's checks, Versions' and "Are the GPU's results right?"'s blocks run on tf216-tf-keras
(TF_USE_LEGACY_KERAS=1, the Keras of the recipe Set up recommends), and Set up's also on
tf221-keras3 (what `pip install tensorflow` gives). Each block runs as a program in the
stack's environment. What needs a Mac is faked at one point: a block marked for a Mac (its
`skipif(sys.platform != "darwin")`) sees `tf.config.list_physical_devices` list a GPU. Its
operations still run on the CPU (eager placement falls back where no GPU exists), so this
checks that the code runs on the stack, not what the GPU computes.
"""

from __future__ import annotations

import os
import subprocess

import pytest
from pytest_codeblocks import extract_from_file

from scripts.core import measured_stacks, project_files
from tests.test_snippets import stack_for_test, stack_marks

DOCS_PAGES = {"setup.md": ("tf216-tf-keras", "tf221-keras3"),
              "versions.md": ("tf216-tf-keras",),
              "gpu-correctness.md": ("tf216-tf-keras",)}  # fmt: skip
NEEDS_A_MAC = 'sys.platform != "darwin"'
# The narrowest fake of an Apple-silicon Mac with tensorflow-metal: the device list.
FAKE_GPU = """\
import tensorflow as _tf
_listed = _tf.config.list_physical_devices
def _with_a_gpu(device_type=None):
    found = _listed(device_type)
    if device_type in (None, "GPU") and not _listed("GPU"):
        found = [*found, _tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")]
    return found
_tf.config.list_physical_devices = _with_a_gpu
"""
TIMEOUT_S = 600


def _has_tf_keras(stack_id: str) -> bool:
    return measured_stacks.by_id(stack_id).keras_package == "tf-keras"


def _cases() -> list:
    """(page, block, stack) for each Python block of each page, on each of the page's stacks."""
    cases = []
    for page, stacks in DOCS_PAGES.items():
        found = extract_from_file(project_files.ROOT / "docs" / page)
        blocks = [b for b in found if b.syntax in ("python", "py")]
        for block in blocks:
            for stack in stacks:
                if "import tf_keras" in block.code and not _has_tf_keras(stack):
                    continue  # written for the tf-keras stack only
                # As the snippet runs: a stack other than the default is the stack matrix's
                # (make test, make test-stack), so the gate needs no other stack's environment.
                cases.append(
                    pytest.param(
                        page,
                        block,
                        stack,
                        id=f"{page}:{block.lineno}-{stack}",
                        marks=stack_marks(stack),
                    )
                )
    return cases


@pytest.mark.parametrize(("page", "block", "stack_id"), _cases())
def test_page_block_runs_on_its_stack(page, block, stack_id, root, tmp_path):
    stack = stack_for_test(measured_stacks.by_id(stack_id), root)
    if block.importorskip:
        pytest.importorskip(block.importorskip)
    mac = any(NEEDS_A_MAC in mark for mark in block.marks)
    program = (FAKE_GPU if mac else "") + block.code
    env = stack.environ(dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONDONTWRITEBYTECODE="1"))
    done = subprocess.run(
        [str(stack.interpreter(root)), "-c", program],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=TIMEOUT_S, check=False,
    )  # fmt: skip
    tail = "\n".join(done.stderr.strip().splitlines()[-8:])
    assert done.returncode == 0, f"docs/{page}:{block.lineno} on {stack_id}:\n{tail}"
    if block.expected_output is not None:
        assert done.stdout.strip() == block.expected_output.strip()
