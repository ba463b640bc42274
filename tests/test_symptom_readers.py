"""A symptom entry's readers (`onto`, scripts/core/symptom_readers.py): what is read, and what
data/symptoms.schema.json refuses with a message naming the file, the entry and the field."""

from __future__ import annotations

import copy

import pytest

from scripts.core.symptom_readers import Reader, readers
from scripts.rendering import symptoms


def _entry(*onto: object) -> dict:
    return {"fix_code": "{recommended}", "onto": list(onto)}


def test_a_reader_with_nothing_installed_is_an_empty_list():
    found = readers(_entry({"python": "3.11", "packages": []}))
    assert found == [Reader("3.11", ())]


def test_packages_are_read_sorted_with_their_versions():
    found = readers(_entry({"python": "3.10", "packages": ["tensorflow==2.16.2", "keras==3.10.0"]}))
    assert found[0].requirements() == ("keras==3.10.0", "tensorflow==2.16.2")


@pytest.mark.parametrize(
    "onto, message",
    [
        ([{"python": "3.11"}], r"onto\[0\]: missing field\(s\) packages"),
        ([{"python": "3.11", "packages": None}], r"onto\[0\].packages: expected a list"),
        ([{"python": "3.11", "packages": ["numpy"]}], r"packages\[0\]: 'numpy' does not match"),
        ([{"python": "3.11", "packages": ["NumPy==1.0"]}], "name==version, lower case"),
        ([{"python": "3.8", "packages": []}], r"onto\[0\].python: expected one of '3.9'"),
        ([{"python": 3.11, "packages": []}], r"onto\[0\].python: expected one of"),
        ([{"python": "3.11", "packages": [], "env": {"x": "1"}}], "a variable name"),
        ([{"python": "3.11", "packages": [], "pip": "23"}], r"unknown field\(s\) 'pip'"),
        ([], r"onto: expected at least 1 item"),
    ],
)
def test_a_malformed_reader_is_named(onto, message):
    data = copy.deepcopy(symptoms.load())
    number, entry = next((n, e) for n, e in enumerate(data["symptoms"]) if e.get("fix_code"))
    entry["onto"] = onto
    with pytest.raises(symptoms.SymptomsError, match=rf"symptoms.yml: symptoms\[{number}\]"):
        symptoms.check(data, "symptoms.yml")
    with pytest.raises(symptoms.SymptomsError, match=message):
        symptoms.check(data, "symptoms.yml")


def test_readers_without_fix_code_are_refused():
    data = copy.deepcopy(symptoms.load())
    number, entry = next((n, e) for n, e in enumerate(data["symptoms"]) if e.get("onto"))
    del entry["fix_code"]
    with pytest.raises(symptoms.SymptomsError, match=rf"symptoms\[{number}\]: .*fix_code"):
        symptoms.check(data, "symptoms.yml")
