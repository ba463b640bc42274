"""The doctor's measured stack line: under TF_USE_LEGACY_KERAS it says which stack code that
writes `import keras` runs on (Keras 3), and its link to the stack's verdicts is shown on a
PASS, as a page of the published site from the archive, in the JSON as the page's path."""

from __future__ import annotations

import json
from dataclasses import replace

from scripts.core import stack_match
from scripts.doctor import report, rules
from scripts.doctor.rules_measured_stack import check_measured_stack
from tests.test_doctor_rules import LINUX_TF, linux, mac_with

SITE = "https://example-owner.github.io/tf-guide/"


def legacy(**changes):
    """TensorFlow 2.16 with tf-keras as tf.keras and Keras 3 installed beside it."""
    changes.setdefault(
        "packages", {"tensorflow-cpu": "2.16.2", "keras": "3.10.0", "tf-keras": "2.16.0"}
    )
    changes.setdefault(
        "tf", replace(LINUX_TF, keras_module="tf_keras.api._v2.keras", keras_version="2.16.0")
    )
    return linux(env={"TF_USE_LEGACY_KERAS": "1"}, **changes)


def test_import_keras_under_the_variable_is_named_as_the_keras_3_stack():
    check = check_measured_stack(legacy())
    assert "tf216-tf-keras" in check.found
    assert check.note == (
        "code that writes `import keras` runs on Keras 3.10.0 (Keras 3), which is the guide's "
        "stack tf216-keras3 (results page, #stack-tf216-keras3)"
    )
    newer = legacy(packages={"tensorflow-cpu": "2.16.2", "keras": "3.15.1", "tf-keras": "2.16.0"})
    assert "Keras 3.15.1 (Keras 3), which is the guide's stack tf216-keras3" in (
        check_measured_stack(newer).note
    )


def test_without_the_variable_there_is_no_import_keras_note():
    assert check_measured_stack(linux()).note is None


def test_an_unmeasured_tf_keras_stack_says_so_in_the_note_too():
    facts = legacy(
        packages={"tensorflow-cpu": "2.19.0", "keras": "3.10.0", "tf-keras": "2.19.0"},
        tf=replace(
            LINUX_TF,
            version="2.19.0",
            keras_module="tf_keras.api._v2.keras",
            keras_version="2.19.0",
        ),
    )
    check = check_measured_stack(facts)
    assert "(tf219-tf-keras): none of the guide's measured stacks" in check.found
    assert "nearest: tf216-tf-keras" in check.found
    assert check.guide == "docs/results.md#stack-tf216-tf-keras"
    assert "tf219-keras3, not one the guide measured (nearest: tf221-keras3)" in check.note


def test_the_link_to_the_stacks_verdicts_is_shown_on_a_pass():
    checks = rules.run_all(legacy())
    (check,) = [c for c in checks if c.name == "measured stack"]
    assert check.status is rules.Status.PASS
    assert check.guide == "docs/results.md#stack-tf216-tf-keras"
    lines = report.to_text(checks).splitlines()
    at = next(n for n, text in enumerate(lines) if "measured stack" in text)
    assert lines[at + 1].strip() == "see:  docs/results.md#stack-tf216-tf-keras"
    from_archive = report.to_text(checks, site=SITE)
    assert f"see:  {SITE}results/#stack-tf216-tf-keras" in from_archive
    document = json.loads(report.to_json(checks, legacy()))
    (listed,) = [c for c in document["checks"] if c["name"] == "measured stack"]
    assert listed["guide"] == "docs/results.md#stack-tf216-tf-keras"


def test_other_passing_checks_still_show_no_see_line():
    text = report.to_text(rules.run_all(linux()))
    assert text.count("see:") == 1  # the measured stack's only: linux() has no WARN or FAIL


LINUX_ONLY = "measured on Linux CPUs only (no Mac has run the snippets)"


def test_a_mac_reader_is_told_the_verdicts_come_from_linux_cpus():
    """Every session of every measured stack ran on Linux CPUs (data/measured_stacks.yml's
    mac_measured, held to results/ in tests/test_measured_stacks.py): on a Mac, the line says so
    (the mac-advice review's I7), and on Linux it has no need to."""
    on_mac = check_measured_stack(mac_with("2.16.2", "1.1.0"))
    assert "the guide's measured stack tf216-keras3" in on_mac.found
    assert on_mac.found.endswith(LINUX_ONLY), on_mac.found
    assert LINUX_ONLY not in check_measured_stack(legacy()).found


def test_a_mac_stack_a_mac_has_measured_is_not_called_linux_only(monkeypatch):
    # what the data file will say once a Mac's results are in
    measured = tuple(replace(stack, mac_measured=True) for stack in stack_match.load())
    monkeypatch.setattr(stack_match, "load", lambda *args: measured)
    assert LINUX_ONLY not in check_measured_stack(mac_with("2.16.2", "1.1.0")).found


def test_another_keras_minor_is_named_beside_the_stack_it_matched():
    """The match ignores the Keras minor: Keras 3.5 with TensorFlow 2.16 is tf216-keras3,
    which was measured with Keras 3.10, so the line names both."""
    check = check_measured_stack(
        linux(
            packages={"tensorflow-cpu": "2.16.2", "keras": "3.5.0"},
            tf=replace(LINUX_TF, keras_module="keras._tf_keras.keras", keras_version="3.5.0"),
        )
    )
    assert "tf216-keras3" in check.found
    assert "measured with Keras 3.10.0, not 3.5.0" in check.found
    same = check_measured_stack(linux(packages={"tensorflow-cpu": "2.16.2", "keras": "3.10.0"}))
    assert "measured with" not in same.found
