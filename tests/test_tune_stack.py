"""tune names the stack the model ran on: the TensorFlow its child imported and the Keras the
model was built with (a model built with `import keras` is Keras 3 even where tf.keras is
tf-keras), linking that stack's verdicts, or saying it is not one the guide measured. Fake
children and given facts only: nothing is timed."""

from __future__ import annotations

import json

import pytest

from scripts.tuning import report, runner, stack
from tests.test_tune_report import FACTS, a_report
from tests.test_tune_runner import model_text, reader  # noqa: F401 (a fixture)


@pytest.mark.parametrize(
    "tensorflow, package, keras, words",
    [
        ("2.16.2", "keras", "3.10.0", "tf216-keras3: TensorFlow 2.16.2 with Keras 3.10.0"),
        ("2.16.2", "tf_keras", "2.16.0", "tf216-tf-keras: TensorFlow 2.16.2 with tf-keras 2.16.0"),
        ("2.21.0", "keras", "3.15.1", "tf221-keras3: TensorFlow 2.21.0 with Keras 3.15.1"),
    ],
)
def test_each_measured_stack_is_named_with_its_verdicts(tensorflow, package, keras, words):
    facts = {**FACTS, "tensorflow_version": tensorflow, "keras_package": package,
             "keras_version": keras}  # fmt: skip
    line = stack.line(facts)
    assert line.startswith(words)
    assert f"(your model's Keras, `{package}`), one of the guide's measured stacks" in line
    stack_id = words.split(":")[0]
    assert line.endswith(f"its verdicts: docs/results.md#stack-{stack_id}")


def test_a_keras_3_model_under_the_legacy_variable_is_the_keras_3_stack():
    # TF_USE_LEGACY_KERAS=1 makes tf.keras tf-keras, but the model was built with `import
    # keras`: the child records the model's package, which is what ran.
    facts = {**FACTS, "keras_package": "keras", "keras_version": "3.10.0"}
    assert stack.summary(facts)["id"] == "tf216-keras3"
    assert "Keras 3.10.0 (your model's Keras, `keras`)" in stack.line(facts)


@pytest.mark.parametrize(
    "tensorflow, package, keras, stack_id, nearest",
    [
        ("2.19.0", "keras", "3.10.0", "tf219-keras3", "tf221-keras3"),
        ("2.15.0", "keras", "2.15.0", "tf215-keras2", "tf216-tf-keras"),
    ],
)
def test_another_stack_is_said_to_be_unmeasured_with_the_nearest(
    tensorflow, package, keras, stack_id, nearest
):
    facts = {**FACTS, "tensorflow_version": tensorflow, "keras_package": package,
             "keras_version": keras}  # fmt: skip
    assert stack.line(facts).endswith(
        f", not a stack the guide measured; the nearest measured stack, {nearest}: "
        f"docs/results.md#stack-{nearest}"
    )
    assert stack.line(facts).startswith(f"{stack_id}: ")
    # (the match itself, nearest stack included, is test_stack_match.py's)


def test_the_text_and_html_reports_carry_the_stack_line():
    found = a_report()  # FACTS: a tf_keras 2.16.0 model on TensorFlow 2.16.2
    text = report.to_text(found).splitlines()
    assert text[text.index(next(t for t in text if t.startswith("Software:"))) + 1] == (
        f"Stack:    {stack.line(FACTS)}"
    )
    assert "<dt>Stack</dt><dd>tf216-tf-keras: " in report.to_html(found)
    assert stack.line({"keras_package": None}) is None  # before the model was built


def test_the_run_keeps_the_stack_in_its_json(monkeypatch, reader):  # noqa: F811
    path = reader / "my_model.py"
    path.write_text(model_text())
    facts = {**FACTS, "tensorflow_version": "2.21.0", "keras_package": "keras",
             "keras_version": "3.15.1"}  # fmt: skip

    def fake_child(path, experiment, say, facts_=None, options=(), timeout=0):
        return {"facts": dict(facts)} if experiment == "check" else {"arms": {}}

    monkeypatch.setattr(runner, "run_child", fake_child)
    found = runner.tune(path, ["graph"], budget_s=4, say=lambda line: None)
    kept = json.loads(report.to_json(found))["stack"]
    assert (kept["id"], kept["measured"], kept["link"]) == (
        "tf221-keras3",
        True,
        "docs/results.md#stack-tf221-keras3",
    )
