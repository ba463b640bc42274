"""`python tf-doctor.pyz tune FILE` and `make tune FILE=...`: the archive starts tune with the
standard library only and runs the reader's model with the TensorFlow of the Python it was
started with, in child processes that import tune from the archive itself."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from scripts.doctor import zipapp
from tests.test_doctor_zipapp import bare_python, run  # noqa: F401 (a fixture)
from tests.test_tune_runner import FAST_INPUT, model_text


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return zipapp.build(tmp_path_factory.mktemp("zipapp") / zipapp.NAME)


def test_in_a_bare_environment_it_says_tensorflow_is_missing(built, bare_python, tmp_path):  # noqa: F811
    (tmp_path / "my_model.py").write_text(model_text())
    done = run(bare_python, built, "tune", "my_model.py", cwd=tmp_path)
    assert done.returncode == 2
    assert "error: TensorFlow is not installed for" in done.stdout
    assert "Traceback" not in done.stderr
    template = run(bare_python, built, "tune", "--template", cwd=tmp_path)
    assert template.returncode == 0 and "def build_model():" in template.stdout
    helped = run(bare_python, built, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "usage: python tf-doctor.pyz" in helped.stdout
    assert "python tf-doctor.pyz tune FILE" in helped.stdout


@pytest.mark.end_to_end
def test_with_tensorflow_it_measures_from_the_archive_alone(built, tmp_path):
    # run() clears PYTHONPATH: the children can import tune only from the archive.
    (tmp_path / "my_model.py").write_text(model_text())
    done = run(
        sys.executable,
        built,
        "tune",
        "my_model.py",
        "--only",
        "input",
        "--budget",
        "4",
        "--json",
        *FAST_INPUT,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert {r["arm"] for r in found["rows"]} == {"in_memory", "prefetch"}
    assert "python tf-doctor.pyz tune" not in done.stderr  # no usage error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_model.py"]


def test_make_tune_needs_a_file_and_runs_the_command(root):
    done = subprocess.run(
        ["make", "-s", "-o", ".venv/.installed-stamp", "tune"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode != 0
    assert "make tune needs FILE=your_model.py" in done.stdout
    dry = subprocess.run(
        [
            "make",
            "-n",
            "-o",
            ".venv/.installed-stamp",
            "tune",
            "FILE=my model.py",
            "ARGS=--only input",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert '-m scripts.tune "my model.py" --only input' in dry.stdout


@pytest.mark.end_to_end
def test_the_archive_reads_a_new_users_pipeline(built, root, tmp_path):
    # A file of the kind readers bring (not a snippet), run from the archive alone: the
    # pipeline's two sequential maps are found and the parallel variant measured.
    source = root / "tests" / "tune_models" / "new_user_cnn.py"
    (tmp_path / "my_model.py").write_text(source.read_text())
    done = run(
        sys.executable, built, "tune", "my_model.py", "--only", "input", "--budget", "4",
        "--json", *FAST_INPUT, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    pipeline = found["facts"]["pipeline"]
    assert (pipeline["sequential_maps"], pipeline["parallel_maps"]) == (2, 0)
    assert not pipeline["prefetched"] and not pipeline["cached"]
    assert [s["stage"] for s in pipeline["stages"] if s["python"]] == ["map"]  # numpy_function
    parallel = next(r for r in found["rows"] if r["arm"] == "parallel_map")
    assert parallel["point"] is not None, parallel
