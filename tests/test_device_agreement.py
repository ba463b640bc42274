"""The GPU-correctness check (snippets/correctness/device_agreement.py): its verdicts, its
tolerance, its placement check, the optimizer it trains with, its clean exit on a machine with
no GPU, and that it stays importable on Python 3.9."""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys

import numpy as np
import pytest

from scripts.core import catalog

PATH = catalog.SNIPPETS_DIR / "correctness" / "device_agreement.py"
PAGE = catalog.ROOT / "docs" / "gpu-correctness.md"
NO_GPU = "no GPU listed: nothing to compare; this check needs a Mac with tensorflow-metal"


@pytest.fixture(scope="module")
def check():
    spec = importlib.util.spec_from_file_location("snippet_correctness_device_agreement", PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gpu_listed(check) -> bool:
    return bool(check.tf.config.list_physical_devices("GPU"))


def run(
    check, losses, weights, device="/CPU:0", ran_on="/job:localhost/replica:0/task:0/device:CPU:0"
):
    return check.Run(device, ran_on, np.array(losses, dtype=np.float64), weights)


def weights(value: float = 0.5):
    return [
        ("dense/kernel", np.full((3, 2), value, dtype=np.float32)),
        ("dense/bias", np.zeros(2, dtype=np.float32)),
    ]


def test_it_is_a_check_the_measuring_harness_leaves_alone():
    assert not catalog.is_measurable(PATH)


def test_without_a_gpu_the_program_says_so_and_exits_cleanly(child_env, gpu_listed):
    done = subprocess.run(
        [sys.executable, str(PATH), "small"],
        capture_output=True, text=True, env=child_env, timeout=300, check=False,
    )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    if gpu_listed:  # on a Mac with tensorflow-metal the check runs; it still ends with a verdict
        assert lines[-1].startswith("verdict: "), done.stdout + done.stderr[-3000:]
        return
    assert done.returncode == 0, done.stderr[-3000:]
    assert lines == [f"verdict: {NO_GPU}"]


@pytest.mark.parametrize("words", [["tiny"], ["small", "full"], ["adam", "sgd"], ["adamw"]])
def test_a_command_line_it_does_not_understand_stops_with_the_usage(check, words):
    with pytest.raises(SystemExit) as stopped:
        check.options(words)
    assert str(stopped.value).startswith(check.USAGE)


def test_the_command_line_words_come_in_any_order(check):
    assert check.options([]) == (check.STEPS["full"], "sgd")
    assert check.options(["rmsprop", "small"]) == (check.STEPS["small"], "rmsprop")


@pytest.mark.parametrize("name", ["sgd", "adam", "rmsprop"])
def test_each_optimizer_is_the_installed_keras_one_and_agrees_with_itself(check, capsys, name):
    expected = type(check.tf.keras.optimizers.get(name))  # what model.compile(name) would use
    assert check.main(devices=("/CPU:0", "/CPU:0"), steps=3, optimizer=name) == 0
    printed = capsys.readouterr().out.splitlines()
    assert f"optimizer: {expected.__module__}.{expected.__name__}" in printed
    assert printed[-1] == "verdict: agree within tolerance"
    assert check.make_optimizer(name).learning_rate.numpy() == pytest.approx(
        check.LEARNING_RATES[name]
    )


def test_the_optimizer_changes_the_training_so_it_is_not_ignored(check):
    batches, initial = check.make_batches(3), check.initial_weights()
    runs = {name: check.train("/CPU:0", initial, batches, name) for name in ("sgd", "adam")}
    assert runs["sgd"].losses[0] == runs["adam"].losses[0]  # same start, same first batch
    assert check.first_difference(runs["sgd"], runs["adam"]) is not None


def test_a_function_that_makes_the_readers_optimizer_is_accepted(check):
    def reader_optimizer():
        return check.tf.keras.optimizers.SGD(learning_rate=0.0)  # no step moves a weight

    batches, initial = check.make_batches(2), check.initial_weights()
    frozen = check.train("/CPU:0", initial, batches, reader_optimizer)
    assert frozen.optimizer.endswith(".SGD")
    for (_, final), start in zip(frozen.weights, initial, strict=True):
        assert np.array_equal(final, start)


def test_an_unknown_optimizer_name_is_refused_by_name(check):
    with pytest.raises(ValueError, match="'adamw'"):
        check.make_optimizer("adamw")


def test_the_program_parses_and_imports_as_python_3_9(check):
    """5 of the 6 recipes Set up lists allow Python 3.9: no 3.10-only syntax or call forms."""
    source = PATH.read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 9))
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    assert any(alias.name == "annotations" for n in future for alias in n.names), (
        "annotations such as `str | None` fail at import on 3.9 unless postponed"
    )
    strict = [n for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg == "strict"]
    assert not strict, "zip(strict=...) is Python 3.10 and later"
    python39 = shutil.which("python3.9")
    probe = [python39, "-c", "import sys; print(sys.version_info[:2])"] if python39 else None
    if not probe or subprocess.run(probe, capture_output=True, text=True).stdout != "(3, 9)\n":
        return  # no working Python 3.9 here: the static checks above must do
    stubbed = (
        "import runpy, sys; from unittest import mock; "
        "sys.modules.update(numpy=mock.MagicMock(), tensorflow=mock.MagicMock()); "
        f"runpy.run_path({str(PATH)!r}, run_name='check')"
    )
    done = subprocess.run(
        [python39, "-c", stubbed], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_page_shows_what_the_program_prints_without_a_gpu():
    assert f"device_agreement.py small\nverdict: {NO_GPU}\n" in PAGE.read_text(encoding="utf-8")


def test_the_page_shows_the_cpu_against_itself_as_the_program_prints_it(check, capsys):
    command = (
        """$ python -c 'from device_agreement import main; main(devices=("/CPU:0", "/CPU:0"))'"""
    )
    assert check.main(devices=("/CPU:0", "/CPU:0")) == 0
    printed = capsys.readouterr().out
    assert f"{command}\n{printed}```" in PAGE.read_text(encoding="utf-8"), printed


def test_identical_runs_on_the_cpu_agree(check, capsys):
    assert check.main(devices=("/CPU:0", "/CPU:0"), steps=3) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1] == "verdict: agree within tolerance"
    assert "losses: max abs diff 0.00e+00, max rel diff 0.00e+00" in printed
    assert not [line for line in printed if line.startswith("WARNING")]


def test_a_run_perturbed_beyond_tolerance_differs_from_the_first_step(check, capsys):
    def nudge(initial):  # every first-layer weight one hundredth larger
        return [initial[0] + np.float32(0.01), *initial[1:]]

    assert check.main(devices=("/CPU:0", "/CPU:0"), steps=3, perturb=nudge) == 1
    verdict = capsys.readouterr().out.splitlines()[-1]
    assert verdict.startswith("verdict: DIFFER: loss at step 1: "), verdict


def test_a_perturbation_within_round_off_still_agrees(check, capsys):
    def round_off(initial):  # one float32 unit in the last place on every weight
        return [np.nextafter(w, np.float32(np.inf)) for w in initial]

    assert check.main(devices=("/CPU:0", "/CPU:0"), steps=3, perturb=round_off) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: agree within tolerance"


def test_a_weight_that_differs_is_named_with_its_index(check):
    a = run(check, [1.0, 0.5], weights())
    changed = weights()
    changed[0][1][2, 1] += 0.1
    b = run(check, [1.0, 0.5], changed, device="/GPU:0")
    assert check.verdict(a, b) == (
        "DIFFER: weight dense/kernel[2, 1]: 0.5 on /CPU:0, 0.6 on /GPU:0"
    )


def test_the_first_differing_step_is_named_before_any_weight(check):
    a = run(check, [1.0, 0.5, 0.25], weights())
    b = run(check, [1.0, 0.6, 0.3], weights(0.9))
    assert check.verdict(a, b).startswith("DIFFER: loss at step 2: 0.5 on /CPU:0, 0.6 on")


@pytest.mark.parametrize(
    ("b_value", "agrees"),
    [
        (1.0, True),
        (1.0 + 0.9e-3, True),  # |a - b| = 0.9e-3 < 1e-5 + 1e-3 * 1.0009
        (1.0 + 1.1e-3, False),  # beyond 1e-5 + 1e-3 * |b|
        (0.0, False),
        (np.nan, False),  # a NaN never agrees, not even with itself
    ],
)
def test_tolerance_boundary_on_the_loss(check, b_value, agrees):
    a = run(check, [1.0], weights())
    b = run(check, [b_value], weights())
    assert (check.first_difference(a, b) is None) is agrees
    assert check.verdict(a, b).startswith("agree" if agrees else "DIFFER")


def test_tolerance_near_zero_is_the_absolute_part(check):
    zero = [("w", np.zeros(4, dtype=np.float32))]
    tiny = [("w", np.full(4, 0.9e-5, dtype=np.float32))]
    small = [("w", np.full(4, 1.1e-5, dtype=np.float32))]
    assert check.first_difference(run(check, [1.0], tiny), run(check, [1.0], zero)) is None
    assert "weight w[0]" in check.verdict(run(check, [1.0], small), run(check, [1.0], zero))


def test_tolerance_can_be_tightened(check):
    a = run(check, [1.0], weights())
    b = run(check, [1.0 + 1e-4], weights())
    assert check.first_difference(a, b) is None
    assert check.first_difference(a, b, rtol=1e-6, atol=0.0) is not None


def test_runs_of_different_shapes_are_not_compared_value_by_value(check):
    a = run(check, [1.0, 0.5], weights())
    b = run(check, [1.0], weights())
    assert check.verdict(a, b) == (
        "DIFFER: the runs have different numbers of steps or different weight shapes"
    )
    assert check.report(a, b)[-1].startswith("verdict: DIFFER")


def test_a_gpu_run_that_ran_on_the_cpu_is_reported(check, gpu_listed):
    if gpu_listed:
        pytest.skip("this machine has a GPU, so /GPU:0 does not fall back to the CPU")
    batches = check.make_batches(2)
    fell_back = check.train("/GPU:0", check.initial_weights(), batches)
    assert fell_back.ran_on.endswith("device:CPU:0")
    problem = check.placement_problem(fell_back)
    assert problem is not None and problem.startswith("asked for /GPU:0, but the loss was computed")
    reference = check.train("/CPU:0", check.initial_weights(), batches)
    assert check.placement_problem(reference) is None
    lines = check.report(reference, fell_back)
    assert f"WARNING: {problem}" in lines


def test_placement_is_read_from_the_device_string(check):
    on_gpu = run(check, [1.0], weights(), "/GPU:0", "/job:localhost/replica:0/task:0/device:GPU:0")
    on_cpu = run(check, [1.0], weights(), "/GPU:0", "/job:localhost/replica:0/task:0/device:CPU:0")
    assert check.placement_problem(on_gpu) is None
    assert "device:CPU:0" in check.placement_problem(on_cpu)
