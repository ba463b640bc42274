"""data/mac_stacks.json: well-formed, consistent with the compatibility data, and rendered."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import compatibility, mac_stacks

DATA = mac_stacks.load()
STACKS = {stack["id"]: stack for stack in DATA["stacks"]}


def test_every_gpu_stack_pins_a_tensorflow_and_a_metal_that_its_install_names():
    for stack in DATA["stacks"]:
        install = " ".join(stack["install"])
        metal = stack["match"]["metal"]
        if metal:
            assert f'"tensorflow-metal=={metal}"' in install, stack["id"]
            assert any(f'"tensorflow=={m}.' in install for m in stack["match"]["tensorflow"])
        else:
            assert "tensorflow-metal" not in install, stack["id"]


def test_keras_2_stacks_on_tensorflow_2_16_set_the_legacy_flag():
    for stack in DATA["stacks"]:
        tf = [compatibility.minor(m) for m in stack["match"]["tensorflow"] if m != "any"]
        if stack["match"]["keras"] == "keras2" and tf and min(tf) >= (2, 16):
            assert "export TF_USE_LEGACY_KERAS=1" in stack["install"], stack["id"]
            assert any("tf-keras==" in line for line in stack["install"]), stack["id"]


def test_the_recommended_stack_is_one_a_user_tested_and_apple_lists():
    """The recommendation rests on both compatibility sources, not on either alone."""
    stack = mac_stacks.recommended()
    metal = stack["match"]["metal"]
    for tf in stack["match"]["tensorflow"]:
        pair = compatibility.pairing(tf, metal)
        assert pair.official_row is not None, f"Apple's table does not pair {tf} with {metal}"
        tested = [r for r in compatibility.tested_rows(tf) if r["metal"] == metal]
        assert tested and tested[0]["result"] == "OK"
    assert stack["verified"]["imports"]["status"] == "ok"
    assert stack["verified"]["speed"]["status"] == "ok"


def test_stacks_with_reported_wrong_results_or_slowness_are_warned_about():
    for stack_id in ("tf216-keras3-metal110", "tf216-keras3-metal120", "tf219-metal120"):
        assert mac_stacks.is_warned(STACKS[stack_id]), stack_id
    assert not mac_stacks.is_warned(mac_stacks.recommended())


@pytest.mark.parametrize(
    "tf, metal, keras, expected",
    [
        ("2.16.2", "1.1.0", "keras2", "tf216-tf-keras-metal110"),
        ("2.16.1", "1.1.0", "keras3", "tf216-keras3-metal110"),
        ("2.16.2", "1.2.0", "keras3", "tf216-keras3-metal120"),
        ("2.15.1", "1.1.0", "keras2", "tf215-keras2-metal110"),
        ("2.19.0", "1.2.0", "keras3", "tf219-metal120"),
        ("2.20.0", None, "keras3", "cpu-only"),
        ("2.16.2", "1.2.0", "keras2", None),
        ("2.13.0", "1.0.0", "keras2", None),
    ],
)
def test_identify(tf, metal, keras, expected):
    stack = mac_stacks.identify(tf, metal, keras)
    assert (stack["id"] if stack else None) == expected


def test_python_ranges_agree_with_the_metal_wheels():
    """metal 1.1.0 has wheels for 3.9-3.11 and 1.2.0 for 3.9-3.12 (checked with pip)."""
    highest = {"1.1.0": "3.11", "1.2.0": "3.12"}
    for stack in DATA["stacks"]:
        metal = stack["match"]["metal"]
        if metal:
            assert stack["python"][1] == highest[metal], stack["id"]
            assert mac_stacks.metal_wheels(metal) == tuple(stack["python"]), stack["id"]
    assert not any(mac_stacks.metal_installs(m, "3.13.0") for m in DATA["metal_wheels"])


@pytest.mark.parametrize(
    "python, expected",
    [("3.9.19", "tf216-tf-keras-metal110"), ("3.11.9", "tf216-tf-keras-metal110"),
     ("3.12.4", "cpu-only"), ("3.13.0", "cpu-only"), ("3.14.0", None)],
)  # fmt: skip
def test_the_stack_for_each_python_installs_there(python, expected):
    stack = mac_stacks.for_python(python)
    assert (stack["id"] if stack else None) == expected
    if stack:
        assert mac_stacks.python_fits(stack, python)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.update(recommended="nope"), "recommended must name"),
        (lambda d: d["stacks"][1].pop("install"), "missing field 'install'"),
        (lambda d: d["stacks"][1]["match"].update(keras="keras4"), "match.keras"),
        (lambda d: d["stacks"][1]["verified"].pop("speed"), "verified must have"),
        (lambda d: d["stacks"][1]["verified"]["speed"].update(status="great"), "status 'great'"),
        (lambda d: d["stacks"][1]["known_issues"].append({"text": "x", "sources": ["nowhere"]}),
         "sources ['nowhere']"),
        (lambda d: d["stacks"][0].update(advice="alternative"), "needs advice 'recommended'"),
        (lambda d: d["metal_wheels"].pop("1.1.0"), "metal_wheels has no entry"),
        (lambda d: d["other_pythons"].update(stacks=["gone"]), "other_pythons names"),
    ],
)  # fmt: skip
def test_bad_data_is_rejected_with_the_stack_and_field_named(change, words):
    data = copy.deepcopy(DATA)
    change(data)
    with pytest.raises(mac_stacks.StacksError, match="mac_stacks.json") as raised:
        mac_stacks.check(data, "mac_stacks.json")
    assert words in str(raised.value)


def test_rendered_table_shows_every_stack_status_and_source():
    text = mac_stacks.render()
    for stack in DATA["stacks"]:
        assert stack["name"] in text
        for line in stack["install"]:
            assert f"$ {line}" in text
    assert text.count("**(recommended)**") == 1
    for url in DATA["sources"].values():
        if any(url == DATA["sources"][n] for s in DATA["stacks"] for n in _all_sources(s)):
            assert f"({url})" in text, url
    assert DATA["wheels_checked"]["date"] in text


def _all_sources(stack: dict) -> list[str]:
    items = list(stack["verified"].values()) + stack["known_issues"]
    return [name for item in items for name in item["sources"]]


def test_setup_page_includes_the_stacks_and_the_recommendation(root):
    page = (root / "docs" / "setup.md").read_text(encoding="utf-8")
    assert f'--8<-- "docs/_generated/{mac_stacks.OUTPUT}"' in page
    assert "## Which stack to install on a Mac" in page
    for line in mac_stacks.recommended()["install"]:
        assert line in page, line


def test_the_file_is_plain_json(root):
    json.loads((root / "data" / "mac_stacks.json").read_text(encoding="utf-8"))
