"""A symptom entry's readers (`onto`, scripts/core/symptom_readers.py): what is accepted and
what is refused with a message naming the entry and the field."""

from __future__ import annotations

import pytest

from scripts.core.symptom_readers import Reader, ReadersError, readers


def _entry(*onto: object) -> dict:
    return {"fix_code": "{recommended}", "onto": list(onto)}


def test_a_reader_with_nothing_installed_is_an_empty_list():
    found = readers(_entry({"python": "3.11", "packages": []}), "x#e")
    assert found == [Reader("3.11", ())]


def test_packages_are_read_sorted_with_their_versions():
    found = readers(
        _entry({"python": "3.10", "packages": ["tensorflow==2.16.2", "keras==3.10.0"]}), "x#e"
    )
    assert found[0].requirements() == ("keras==3.10.0", "tensorflow==2.16.2")


@pytest.mark.parametrize(
    "item, message",
    [
        ({"python": "3.11"}, "expected a mapping of python, packages and env"),
        ({"python": "3.11", "packages": None}, "packages must list name==version"),
        ({"python": "3.11", "packages": ["numpy"]}, "packages must list name==version"),
        ({"python": "3.11", "packages": ["NumPy==1.0"]}, "packages must list name==version"),
        ({"python": "3.8", "packages": []}, "python must be one of"),
    ],
)
def test_a_malformed_reader_is_named(item, message):
    with pytest.raises(ReadersError, match=rf"x#e: onto\[0\]: {message}"):
        readers(_entry(item), "x#e")
