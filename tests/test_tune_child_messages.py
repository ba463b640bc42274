"""What tune's parent and children tell each other (scripts/tuning/child_messages.py), held to its
TypedDicts when read: the committed run's reports hold them, a hostile report is refused naming
the file, the field and what was expected, and such a report fails its experiment alone.
No TensorFlow: the children here are a few lines of Python."""

from __future__ import annotations

import argparse
import ast
import copy
import json

import pytest

from scripts.core import typed_json
from scripts.tuning import child, child_messages, runner

COMMITTED = "docs/_generated/tune/conversion_numpy_each_step.json"  # the page's example run


@pytest.fixture(scope="module")
def committed(root) -> dict:
    return json.loads((root / COMMITTED).read_text(encoding="utf-8"))


def test_the_committed_runs_reports_hold_the_message_formats(committed):
    """Every experiment of a real run (interleaved, isolated, drift's memory, precision's loss
    agreement) as tune kept it, and the check's facts."""
    assert {"drift", "precision", "threads"} <= set(committed["experiments"])
    for name, report in committed["experiments"].items():
        typed_json.check(report, child_messages.ChildReport, name)
    typed_json.check(committed["facts"], child_messages.Facts, "facts")
    check = {"experiment": "check", "arms": {}, "error": None, "facts": committed["facts"]}
    typed_json.check(check, child_messages.ChildReport, "the check's report")


def precision_report(committed: dict) -> dict:
    return copy.deepcopy(committed["experiments"]["precision"])


def arm(report: dict, name: str = "as_given") -> dict:
    return report["arms"][name]


# (what a hostile copy of the precision experiment's report changes, what the refusal says)
HOSTILE = {
    "no arms": (lambda r: r.pop("arms"), "the top level: missing field(s) arms"),
    "a time as text": (
        lambda r: arm(r)["times_s"].__setitem__(1, "fast"),
        "arms.as_given.times_s[1]: expected a finite number, got 'fast'",
    ),
    "samples as true": (
        lambda r: arm(r).update(samples_per_run=True),
        "arms.as_given.samples_per_run: expected a whole number, got True",
    ),
    "a misspelt field": (
        lambda r: arm(r).update(time_s=arm(r).pop("times_s")),
        "arms.as_given: unknown field(s) 'time_s'; expected only label,",
    ),
    "an error that is a list": (
        lambda r: r.update(error=["it failed"]),
        "error: expected text or null, got list",
    ),
    "a loss agreement half written": (
        lambda r: arm(r, "mixed_float16")["agreement"].pop("loss_variant"),
        "arms.mixed_float16.agreement: missing field(s) loss_variant; or "
        "arms.mixed_float16.agreement: missing field(s) error",
    ),
    "a check's facts without its devices": (
        lambda r: r.update(facts={**FACTS, "devices": None}),
        "facts.devices: expected a list of text, got None",
    ),
}
FACTS = {
    "batch_size": 32, "data_kind": "dataset", "devices": ["CPU:0"], "gpu": False,
    "intra_op_threads": 0, "jit_compile": False, "keras_package": "keras",
    "keras_version": "3.10.0", "logical_cores": 2, "parameters": 40, "policy": "float32",
    "pipeline": {"sequential_maps": 1, "parallel_maps": 0, "prefetched": False, "cached": False,
                 "stages": [{"stage": "from_generator", "python": True}]},
    "prefetched": False, "run_eagerly": False, "steps_per_run": 2,
    "tensorflow_version": "2.16.2", "traces": [3, 0, 0],
}  # fmt: skip


def test_a_dataset_checks_facts_hold_the_format():
    typed_json.check(FACTS, child_messages.CheckedFacts, "facts")
    unread = {**FACTS, "pipeline": {"error": "NotFoundError: cannot serialise"}}
    typed_json.check(unread, child_messages.CheckedFacts, "facts")


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_report_is_refused_naming_the_file_and_the_field(case, committed, tmp_path):
    change, expected = HOSTILE[case]
    report = precision_report(committed)
    change(report)
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    with pytest.raises(typed_json.MessageError) as refused:
        child_messages.read_report(path, "precision")
    said = str(refused.value)
    assert said.startswith(f"tune's precision child's report, {path}: "), said
    assert expected in said, said


def test_the_unchanged_report_is_read_as_written(committed, tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(precision_report(committed)), encoding="utf-8")
    assert child_messages.read_report(path, "precision") == precision_report(committed)


def test_a_report_that_is_no_json_is_named_and_a_missing_one_is_empty(tmp_path):
    path = tmp_path / "report.json"
    path.write_text('{"arms": {', encoding="utf-8")
    with pytest.raises(typed_json.MessageError, match="report.json: cannot read it as JSON"):
        child_messages.read_report(path, "input")
    gone = tmp_path / "never-written.json"
    assert child_messages.read_report(gone, "input") == {
        "experiment": "input",
        "arms": {},
        "error": None,
    }


# A child that writes a report with a time as text, as a broken child would.
BAD_CHILD = (
    "import json, sys; out = sys.argv[sys.argv.index('--out') + 1]; "
    "json.dump(dict(experiment='input', arms=dict(as_given=dict(times_s=['fast'])), error=None), "
    "open(out, 'w'))"
)


def test_a_bad_report_fails_its_experiment_naming_the_field(monkeypatch, tmp_path):
    monkeypatch.setattr(runner, "BOOT", BAD_CHILD)
    said: list[str] = []
    report = runner.run_child(tmp_path / "my_model.py", "input", said.append, timeout=60)
    assert report["arms"] == {}
    assert report["error"].startswith("tune's input child's report, ")
    assert report["error"].endswith(
        "arms.as_given.times_s[0]: expected a finite number, got 'fast'"
    )


def test_the_child_refuses_facts_that_do_not_hold_the_format():
    assert child.facts_argument("{}") == {}
    assert child.facts_argument(json.dumps(FACTS)) == FACTS
    assert child.facts_argument(json.dumps({**FACTS, "metal_gpu": True}))["metal_gpu"] is True
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--facts: gpu: expected true or false"):
        child.facts_argument(json.dumps({**FACTS, "gpu": "no"}))
    with pytest.raises(argparse.ArgumentTypeError, match=r"^--facts: the top level: missing field"):
        child.facts_argument(json.dumps({"gpu": False}))


def test_the_messages_read_on_python_3_9_write_no_x_or_y_annotations(root):
    """tf-doctor.pyz runs tune on the reader's Python, 3.9 included, where the annotations
    typed_json evaluates cannot be written X | Y."""
    tree = ast.parse(
        (root / "scripts" / "tuning" / "child_messages.py").read_text(encoding="utf-8")
    )
    annotations = [node.annotation for node in ast.walk(tree) if isinstance(node, ast.AnnAssign)]
    assert annotations
    unions = [ast.unparse(a) for a in annotations for n in ast.walk(a) if isinstance(n, ast.BinOp)]
    assert not unions, f"write Optional[X] or Union[X, Y] instead: {unions}"
