"""data/mac_recipes.json: well-formed, consistent with the compatibility data, and rendered."""

from __future__ import annotations

import copy
import json

import pytest

from scripts.core import compatibility, data_formats, mac_recipes
from scripts.rendering import mac_recipes_page

DATA = mac_recipes.load()
RECIPES = {recipe["id"]: recipe for recipe in DATA["recipes"]}


def test_every_gpu_recipe_pins_a_tensorflow_and_a_metal_that_its_install_names():
    for recipe in DATA["recipes"]:
        install = " ".join(recipe["install"])
        metal = recipe["match"]["metal"]
        if metal:
            assert f'"tensorflow-metal=={metal}"' in install, recipe["id"]
            assert any(f'"tensorflow=={m}.' in install for m in recipe["match"]["tensorflow"])
        else:
            assert "tensorflow-metal" not in install, recipe["id"]


def test_keras_2_stacks_on_tensorflow_2_16_set_the_legacy_flag():
    for recipe in DATA["recipes"]:
        tf = [compatibility.minor(m) for m in recipe["match"]["tensorflow"] if m != "any"]
        if recipe["match"]["keras"] == "keras2" and tf and min(tf) >= (2, 16):
            assert "export TF_USE_LEGACY_KERAS=1" in recipe["install"], recipe["id"]
            assert any("tf-keras==" in line for line in recipe["install"]), recipe["id"]


def test_the_recommended_recipe_is_one_a_user_tested_and_apple_lists():
    """The recommendation rests on both compatibility sources, not on either alone."""
    recipe = mac_recipes.recommended()
    metal = recipe["match"]["metal"]
    for tf in recipe["match"]["tensorflow"]:
        pair = compatibility.pairing(tf, metal)
        assert pair.official_row is not None, f"Apple's table does not pair {tf} with {metal}"
        tested = [r for r in compatibility.tested_rows(tf) if r["metal"] == metal]
        assert tested and tested[0]["result"] == "OK"
    assert recipe["verified"]["imports"]["status"] == "ok"
    assert recipe["verified"]["speed"]["status"] == "ok"


def test_stacks_with_reported_wrong_results_or_slowness_are_warned_about():
    for recipe_id in ("tf216-keras3-metal110", "tf216-keras3-metal120", "tf219-metal120"):
        assert mac_recipes.is_warned(RECIPES[recipe_id]), recipe_id
    assert not mac_recipes.is_warned(mac_recipes.recommended())


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
    recipe = mac_recipes.identify(tf, metal, keras)
    assert (recipe["id"] if recipe else None) == expected


def test_python_ranges_agree_with_the_metal_wheels():
    """metal 1.1.0 has wheels for 3.9-3.11 and 1.2.0 for 3.9-3.12 (checked with pip)."""
    highest = {"1.1.0": "3.11", "1.2.0": "3.12"}
    for recipe in DATA["recipes"]:
        metal = recipe["match"]["metal"]
        if metal:
            assert recipe["python"][1] == highest[metal], recipe["id"]
            assert mac_recipes.metal_wheels(metal) == tuple(recipe["python"]), recipe["id"]
    assert not any(mac_recipes.metal_installs(m, "3.13.0") for m in DATA["metal_wheels"])


@pytest.mark.parametrize(
    "python, expected",
    [("3.9.19", "tf216-tf-keras-metal110"), ("3.11.9", "tf216-tf-keras-metal110"),
     ("3.12.4", "cpu-only"), ("3.13.0", "cpu-only"), ("3.14.0", None)],
)  # fmt: skip
def test_the_recipe_for_each_python_installs_there(python, expected):
    recipe = mac_recipes.for_python(python)
    assert (recipe["id"] if recipe else None) == expected
    if recipe:
        assert mac_recipes.python_fits(recipe, python)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d.update(recommended="nope"), "recommended must name"),
        (lambda d: d["recipes"][1]["verified"]["speed"].update(status="great"), "status 'great'"),
        (lambda d: d["recipes"][1]["known_issues"].append({"text": "x", "sources": ["nowhere"]}),
         "sources ['nowhere']"),
        (lambda d: d["recipes"][0].update(advice="alternative"), "needs advice 'recommended'"),
        (lambda d: d["metal_wheels"].pop("1.1.0"), "metal_wheels has no entry"),
        (lambda d: d["other_pythons"].update(recipes=["gone"]), "other_pythons names"),
    ],
)  # fmt: skip
def test_bad_data_is_rejected_with_the_recipe_and_field_named(change, words):
    data = copy.deepcopy(DATA)
    change(data)
    with pytest.raises(mac_recipes.RecipeError, match="mac_recipes.json") as raised:
        mac_recipes.check(data, "mac_recipes.json")
    assert words in str(raised.value)


def test_rendered_table_shows_every_recipe_status_and_source():
    text = mac_recipes_page.render()
    for recipe in DATA["recipes"]:
        assert recipe["name"] in text
        for line in recipe["install"]:
            assert f"$ {line}" in text
    assert text.count("**(recommended)**") == 1
    for url in DATA["sources"].values():
        if any(url == DATA["sources"][n] for s in DATA["recipes"] for n in _all_sources(s)):
            assert f"({url})" in text, url
    assert DATA["wheels_checked"]["date"] in text


def _all_sources(recipe: dict) -> list[str]:
    items = list(recipe["verified"].values()) + recipe["known_issues"]
    return [name for item in items for name in item["sources"]]


def test_setup_page_includes_the_stacks_and_the_recommendation(root):
    page = (root / "docs" / "setup.md").read_text(encoding="utf-8")
    assert f'--8<-- "docs/_generated/{mac_recipes_page.OUTPUT}"' in page
    assert "## Which recipe to install on a Mac" in page
    for line in mac_recipes.recommended()["install"]:
        assert line in page, line


def test_set_up_says_each_keras_caveat_and_check_once(root):
    """Set up and its recommendation (one page to the reader) explain `import keras` once and
    ask for each check before training once; the caveats link to that list."""
    page = (root / "docs" / "setup.md").read_text(
        encoding="utf-8"
    ) + mac_recipes_page.render_recommendation()
    for words in (
        "Keras 3 whatever",
        "versions.md#the-fused-dense-bug-a-check-you-can-run",
        "Compare your model's results on the GPU with the CPU",
        "Set `TF_USE_LEGACY_KERAS=1` before TensorFlow is imported",
        "import tf_keras as keras",
    ):
        assert page.count(words) == 1, words
    assert "[Before you train](#before-you-train-one-line-each)" in page
    assert "## Before you train: one line each" in page


def test_the_file_is_plain_json(root):
    json.loads((root / "data" / "mac_recipes.json").read_text(encoding="utf-8"))


def test_the_aspects_the_page_shows_are_the_schemas():
    """The Set up table's columns are the schema's verified aspects: a file the schema passes
    renders every column."""
    schema = json.loads(data_formats.schema_path("mac_recipes").read_text(encoding="utf-8"))
    verified = schema["properties"]["recipes"]["items"]["properties"]["verified"]
    assert sorted(verified["required"]) == sorted(mac_recipes_page.ASPECTS)
