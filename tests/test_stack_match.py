"""Which measured stack an environment is (scripts/core/stack_match.py): each of the three by
TensorFlow's major.minor and the Keras that runs, never by patch versions; another stack gets
the nearest measured one; and the JSON the doctor's archive reads says what the YAML says."""

from __future__ import annotations

import dataclasses
import json

import pytest

from scripts.core import data_formats, measured_stacks, stack_match


def test_the_json_the_archive_reads_is_written_from_the_yaml():
    written = json.loads(stack_match.DATA.read_text(encoding="utf-8"))
    expected = measured_stacks.portable(measured_stacks.load())
    assert written == expected, (
        "data/measured_stacks.json differs from data/measured_stacks.yml: "
        "run `python -m scripts.core.measured_stacks`"
    )
    assert [s.id for s in stack_match.load()] == [s.id for s in measured_stacks.load()]


def test_one_definition_of_a_stack_and_both_files_hold_its_fields():
    """measured_stacks.Stack is stack_match.MeasuredStack plus its environment: each field is
    defined once, the doctor's copy of every stack equals the YAML's, and each file's schema
    lists exactly the fields its loader builds from."""
    assert issubclass(measured_stacks.Stack, stack_match.MeasuredStack)
    portable = [f.name for f in dataclasses.fields(stack_match.MeasuredStack)]
    full = [f.name for f in dataclasses.fields(measured_stacks.Stack)]
    assert full[: len(portable)] == portable and len(set(full)) == len(full)
    for source in measured_stacks.load():
        mirrored = stack_match.MeasuredStack(**{name: getattr(source, name) for name in portable})
        assert mirrored in stack_match.load(), source.id
    for schema, names in [("measured_stacks_portable", portable), ("measured_stacks", full)]:
        found = json.loads(data_formats.schema_path(schema).read_text(encoding="utf-8"))
        items = found.get("items") or found["properties"]["stacks"]["items"]
        assert sorted(items["properties"]) == sorted(names), schema


@pytest.mark.parametrize(
    "tensorflow, package, keras, stack_id",
    [
        ("2.16.2", "keras", "3.10.0", "tf216-keras3"),
        ("2.16.1", "keras", "3.11.3", "tf216-keras3"),  # other patch and Keras minor
        ("2.16.2", "tf-keras", "2.16.0", "tf216-tf-keras"),
        ("2.16.0", "tf_keras", "2.16.0", "tf216-tf-keras"),  # tune names the module
        ("2.21.0", "keras", "3.15.1", "tf221-keras3"),
        ("2.21.1", "keras", "3.15.0", "tf221-keras3"),
    ],
)
def test_each_measured_stack_is_matched_on_major_minor_and_keras(
    tensorflow, package, keras, stack_id
):
    found = stack_match.match(tensorflow, package, keras)
    assert found.measured and found.id == stack_id and found.stack.id == stack_id
    assert found.nearest.link == f"docs/results.md#stack-{stack_id}"


@pytest.mark.parametrize(
    "tensorflow, package, keras, stack_id, nearest",
    [
        ("2.19.0", "keras", "3.10.0", "tf219-keras3", "tf221-keras3"),
        ("2.18.0", "keras", "3.8.0", "tf218-keras3", "tf216-keras3"),
        ("2.15.0", "keras", "2.15.0", "tf215-keras2", "tf216-tf-keras"),
        # Keras 2 on today's TensorFlow: the same Keras before the same TensorFlow
        ("2.21.0", "tf-keras", "2.21.0", "tf221-tf-keras", "tf216-tf-keras"),
        ("2.17.0", "tf-keras", "2.17.0", "tf217-tf-keras", "tf216-tf-keras"),
    ],
)
def test_another_stack_is_none_of_them_and_gets_the_nearest(
    tensorflow, package, keras, stack_id, nearest
):
    found = stack_match.match(tensorflow, package, keras)
    assert not found.measured and found.stack is None
    assert (found.id, found.nearest.id) == (stack_id, nearest)
    assert found.as_dict()["link"] == f"docs/results.md#stack-{nearest}"


def test_an_unknown_keras_version_is_what_tf_keras_is_for_that_tensorflow():
    assert stack_match.match("2.16.2", "keras", None).id == "tf216-keras3"
    assert stack_match.match("2.16.2", "tf-keras", None).id == "tf216-tf-keras"
    assert stack_match.match("2.15.1", "keras", None).id == "tf215-keras2"


def test_software_names_the_keras_package_that_runs():
    assert stack_match.match("2.16.2", "tf_keras", "2.16.0").software == (
        "TensorFlow 2.16.2 with tf-keras 2.16.0"
    )
    assert stack_match.match("2.21.0", "keras", "3.15.1").software == (
        "TensorFlow 2.21.0 with Keras 3.15.1"
    )


def test_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="keras_package 'jax'"):
        stack_match.match("2.16.2", "jax", "0.4")
    broken = tmp_path / "stacks.json"
    broken.write_text(json.dumps({"stacks": [{"id": "x", "title": "t"}]}), encoding="utf-8")
    with pytest.raises(stack_match.StackDataError, match="stacks.json: stack 1: expected text"):
        stack_match.load(broken)
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(stack_match.StackDataError, match="stacks.json: cannot read"):
        stack_match.load(broken)
