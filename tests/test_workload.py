"""Which snippet edits keep earlier results current (scripts/core/workload.py, issue 34 item 4):
edits outside the timed code keep them, edits inside it make them stale, and `import keras`
and `from tensorflow import keras` are one workload only where tf.keras is Keras 3."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess

import pytest

from scripts.core import catalog, measured_stacks, snippet_versions, workload

STACKS = [s.id for s in measured_stacks.load()]
KERAS3_STACKS = ["tf216-keras3", "tf221-keras3"]  # tf.keras is Keras 3 (legacy_keras: false)
TF_KERAS_STACK = "tf216-tf-keras"  # TF_USE_LEGACY_KERAS=1: tf.keras is tf-keras

SNIPPET = '''"""A snippet made for these tests, in the shape the harness expects."""

import statistics
import sys
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras  # tf.keras

HIDDEN = 64
VARIANTS = {"small": "a small layer", "big": "a big layer"}
BASELINE = "small"


def build_model(width: int) -> keras.Model:
    """A Dense model."""
    model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(width)])
    model.compile(optimizer="sgd", loss="mse")
    return model


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run)."""
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}")
    model = build_model(HIDDEN if variant == "small" else 2 * HIDDEN)
    x = tf.constant(np.ones((16, 8), dtype=np.float32))
    return (lambda: model.train_on_batch(x, x[:, :1])), 16


def flops(variant: str, size: str = "full") -> float:
    return 2.0 * 16 * 8 * HIDDEN


def line(variant: str, seconds: float, examples: int) -> str:
    return f"{variant:8s} {seconds * 1e3:8.1f} ms/run {examples / seconds:8.0f} examples/s"


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        times = []
        for _ in range(3):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        print(line(variant, statistics.median(times), examples))
'''


def edited(source: str, *changes: tuple[str, str]) -> str:
    for old, new in changes:
        assert source.count(old) == 1, f"the test's edit {old!r} must match once"
        source = source.replace(old, new)
    return source


# The old spelling, where the import sat in the first block (as in snippets before cedb933).
KERAS_IMPORT = (
    ("from tensorflow import keras  # tf.keras\n", ""),
    ("import numpy as np\n", "import keras\nimport numpy as np\n"),
)

OUTSIDE_THE_TIMED_CODE = {
    "a docstring": [('"""A Dense model."""', '"""Dense layers, compiled for SGD."""')],
    "a comment": [("# tf.keras", "# tf.keras: Keras 3, or tf-keras")],
    "the main block's loop": [("for _ in range(3):", "for _ in range(5):")],
    "a function only the main block calls": [("{variant:8s}", "{variant:12s}")],
    "the order of one block of imports": [
        (
            "import numpy as np\nimport tensorflow as tf\n",
            "import tensorflow as tf\nimport numpy as np\n",
        )
    ],
}

INSIDE_THE_TIMED_CODE = {
    "a module constant (layer width)": [("HIDDEN = 64", "HIDDEN = 65")],
    "a layer in a function make_workload calls": [
        ("keras.layers.Dense(width)", 'keras.layers.Dense(width, activation="relu")')
    ],
    "the batch in make_workload": [("np.ones((16, 8)", "np.ones((32, 8)")],
    "the FLOP count the harness records": [("2.0 * 16 * 8", "3.0 * 16 * 8")],
    "a variant's label the results record": [('"a big layer"', '"a wider layer"')],
}


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("what", OUTSIDE_THE_TIMED_CODE)
def test_an_edit_outside_the_timed_code_keeps_the_workload(what, stack):
    after = edited(SNIPPET, *OUTSIDE_THE_TIMED_CODE[what])
    assert workload.workload_id(after, stack) == workload.workload_id(SNIPPET, stack)


@pytest.mark.parametrize("stack", STACKS)
@pytest.mark.parametrize("what", INSIDE_THE_TIMED_CODE)
def test_an_edit_inside_the_timed_code_is_another_workload(what, stack):
    after = edited(SNIPPET, *INSIDE_THE_TIMED_CODE[what])
    assert workload.workload_id(after, stack) != workload.workload_id(SNIPPET, stack)


@pytest.mark.parametrize("stack", KERAS3_STACKS)
def test_both_keras_spellings_are_one_workload_where_tf_keras_is_keras_3(stack):
    old = edited(SNIPPET, *KERAS_IMPORT)
    assert workload.workload_id(old, stack) == workload.workload_id(SNIPPET, stack)


def test_the_keras_spellings_differ_where_tf_keras_is_tf_keras():
    old = edited(SNIPPET, *KERAS_IMPORT)
    assert workload.workload_id(old, TF_KERAS_STACK) != workload.workload_id(
        SNIPPET, TF_KERAS_STACK
    )


def test_the_spellings_merge_exactly_on_the_stacks_whose_tf_keras_is_keras_3():
    merged = {s for s in STACKS if workload.mode_of(s) == workload.TF_KERAS_IS_KERAS}
    expected = {
        s.id for s in measured_stacks.load() if not s.legacy_keras and s.keras_package == "keras"
    }
    assert merged == expected == set(KERAS3_STACKS)
    assert workload.mode_of("tf299-keras3") == workload.AS_WRITTEN  # a stack not measured


def test_a_function_the_timed_code_calls_counts_even_when_the_main_block_calls_it():
    calls_line = edited(
        SNIPPET, ("    return (lambda:", "    line(variant, 1.0, 16)\n    return (lambda:")
    )
    after = edited(calls_line, ("{variant:8s}", "{variant:12s}"))
    assert workload.workload_id(after, "tf216-keras3") != workload.workload_id(
        calls_line, "tf216-keras3"
    )


def test_timed_code_that_names_its_own_file_keeps_the_main_block():
    """Code that may run the program (`python __file__`) makes the main block count."""
    runs_itself = edited(SNIPPET, ("    return (lambda:", "    _ = __file__\n    return (lambda:"))
    after = edited(runs_itself, ("for _ in range(3):", "for _ in range(5):"))
    assert workload.workload_id(after, "tf216-keras3") != workload.workload_id(
        runs_itself, "tf216-keras3"
    )


# --- Entries, versions from git history and the committed table ------------------------------


def git(repo, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout


def entry_for(source: str, stack: str) -> dict:
    keras = {"tf216-tf-keras": "2.16.0", "tf221-keras3": "3.15.1"}.get(stack, "3.10.0")
    tensorflow = "2.21.0" if stack == "tf221-keras3" else "2.16.2"
    return {
        "snippet": "demo/step",
        "snippet_path": "snippets/demo/step.py",
        "snippet_sha256": hashlib.sha256(source.encode()).hexdigest(),
        "software": {"tensorflow": tensorflow, "keras": keras},
    }


def committed_snippet(tmp_path, versions: list[str]):
    """A repository whose snippets/demo/step.py went through these versions, and its table."""
    path = tmp_path / "snippets" / "demo" / "step.py"
    path.parent.mkdir(parents=True)
    git(tmp_path, "init", "-q")
    for number, source in enumerate(versions):
        path.write_text(source, encoding="utf-8")
        git(tmp_path, "add", "-A")
        git(tmp_path, "commit", "-q", "-m", f"version {number}")
    table = {"rule": workload.RULE, "versions": workload.table_of_history(tmp_path)}
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "snippet_workloads.json").write_text(json.dumps(table))
    return tmp_path


def test_entries_of_an_import_only_edit_stay_current_on_keras_3_only(tmp_path):
    old = edited(SNIPPET, *KERAS_IMPORT)
    root = committed_snippet(tmp_path, [old, SNIPPET])
    for stack in KERAS3_STACKS:
        assert catalog.is_current(entry_for(old, stack), root), stack
        assert workload.same_workload(entry_for(old, stack), entry_for(SNIPPET, stack), root)
    assert not catalog.is_current(entry_for(old, TF_KERAS_STACK), root)


def test_entries_of_an_output_only_edit_stay_current(tmp_path):
    new = edited(SNIPPET, ("{variant:8s}", "{variant:12s}"), ("range(3)", "range(5)"))
    root = committed_snippet(tmp_path, [SNIPPET, new])
    for stack in STACKS:
        assert catalog.is_current(entry_for(SNIPPET, stack), root), stack


def test_entries_of_an_edit_in_the_timed_code_become_stale(tmp_path):
    new = edited(SNIPPET, ("keras.layers.Dense(width)", "keras.layers.Dense(width + 1)"))
    root = committed_snippet(tmp_path, [SNIPPET, new])
    for stack in STACKS:
        assert not catalog.is_current(entry_for(SNIPPET, stack), root), stack
        assert catalog.is_current(entry_for(new, stack), root), stack
        assert not workload.same_workload(entry_for(SNIPPET, stack), entry_for(new, stack), root)


def test_a_version_missing_from_the_table_is_compared_byte_for_byte(tmp_path):
    old = edited(SNIPPET, ("# tf.keras", "# comment"))
    root = committed_snippet(tmp_path, [SNIPPET])  # old was never committed
    assert not catalog.is_current(entry_for(old, "tf216-keras3"), root)


def test_the_committed_table_agrees_with_git_history(root):
    """Every id in data/snippet_workloads.json is what the rule gives the version git has."""
    data = json.loads((root / "data" / "snippet_workloads.json").read_text())
    assert data["rule"] == workload.RULE, "rewrite it: python -m scripts.core.workload"
    wrong = []
    for relpath, versions in data["versions"].items():
        history = snippet_versions.history(relpath, root)
        for sha, ids in versions.items():
            if sha not in history:
                wrong.append(f"{relpath} {sha[:12]}: no such version in git history")
            elif ids != workload.ids(history[sha].decode("utf-8")):
                wrong.append(f"{relpath} {sha[:12]}: ids {ids} are not what the rule gives")
    assert not wrong, (
        "data/snippet_workloads.json disagrees with git history (a fresh, full clone is "
        "needed):\n  " + "\n  ".join(wrong) + "\nrewrite it: python -m scripts.core.workload"
    )


def test_every_older_version_the_results_hold_is_in_the_table(committed_files, root):
    listed = workload.table(root)
    missing = set()
    for data in committed_files:
        for session in data["sessions"]:
            for entry in session["entries"].values():
                disk = workload.on_disk(entry["snippet_path"], root)
                today = disk[0] if disk else None
                sha = entry["snippet_sha256"]
                if sha != today and sha not in listed.get(entry["snippet_path"], {}):
                    missing.add(f"{entry['snippet_path']} {sha[:12]}")
    assert not missing, (
        "results hold snippet versions that data/snippet_workloads.json does not list, so "
        "they count as stale:\n  "
        + "\n  ".join(sorted(missing))
        + "\ncommit the snippet, then: python -m scripts.core.workload"
    )


# --- Step 4's premise, checked on each stack where it applies --------------------------------

RESOLVE = """
import json, sys
import keras
import tensorflow as tf

def resolve(top, dotted):
    found = top
    for part in dotted.split(".")[1:]:
        found = getattr(found, part)
    return found

names = json.loads(sys.argv[1])
print(json.dumps([n for n in names if resolve(keras, n) is not resolve(tf.keras, n)]))
"""


@pytest.mark.parametrize("stack", KERAS3_STACKS)
def test_every_keras_name_the_snippets_use_is_the_same_object_through_tf_keras(stack, root):
    """Step 4 reads `from tensorflow import keras` as `import keras`: on this stack, every
    `keras.` name that any version of any snippet reaches must be the same object both ways."""
    chosen = measured_stacks.by_id(stack)
    missing = chosen.missing(root)
    if missing:
        if os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}:
            pytest.fail(f"CI=true but {missing}")
        pytest.skip(missing)
    sources = [p.read_text(encoding="utf-8") for p in (root / "snippets").glob("*/*.py")]
    for relpath in workload.table(root):
        sources += [b.decode("utf-8") for b in snippet_versions.history(relpath, root).values()]
    names = sorted(set().union(*(workload.tf_keras_names(s) for s in sources)))
    assert "keras.layers.Dense" in names  # the snippets do use tf.keras
    done = subprocess.run(
        [str(chosen.interpreter(root)), "-c", RESOLVE, json.dumps(names)],
        env=chosen.environ(dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")),
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    differ = json.loads(done.stdout.strip().splitlines()[-1])
    assert not differ, (
        f"on {stack}, tf.keras gives other objects than keras for {differ}: reading "
        "`from tensorflow import keras` as `import keras` (workload.py, step 4) is wrong there"
    )


def test_the_tree_text_leaves_out_empty_fields_so_every_python_gives_the_same_ids():
    """ast.dump adds FunctionDef.type_params=[] on 3.12 and drops empty fields on 3.13; the
    ids must not change with the Python that renders the pages (CI and Pages use 3.12)."""
    text = workload.timed_code(SNIPPET, workload.AS_WRITTEN)
    assert "FunctionDef(name='make_workload'" in text
    assert "=[]" not in text and "=None" not in text and "type_params" not in text
