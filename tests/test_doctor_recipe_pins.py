"""The doctor's mac recipe line matches TensorFlow by minor version, and says so where the
install is not the version the recipe pins: TensorFlow 2.15.1 is the 2.15 recipe's minor but a
different build from the 2.15.0 it pins (data/mac_recipes.json), so its PASS must not read as
that recipe's exact install (the mac-advice review's C6)."""

from __future__ import annotations

import pytest

from scripts.core import mac_recipes
from scripts.doctor import rules
from scripts.doctor.checks import Status
from tests.test_doctor_rules import mac_with


def keras2_mac(tf: str):
    """A Mac with Apple's Keras 2 of TensorFlow's minor and tensorflow-metal 1.1.0."""
    return mac_with(tf, "1.1.0", keras=f"{tf.rsplit('.', 1)[0]}.0")


def test_the_pin_is_read_from_the_stacks_install_line():
    recipes = {recipe["id"]: recipe for recipe in mac_recipes.load()["recipes"]}
    assert mac_recipes.pinned_version(recipes["tf215-keras2-metal110"], "tensorflow") == "2.15.0"
    assert mac_recipes.pinned_version(recipes["tf215-keras2-metal110"], "tensorflow-metal") == (
        "1.1.0"
    )
    unpinned = {"install": ["python -m pip install tensorflow"]}
    assert mac_recipes.pinned_version(unpinned, "tensorflow") is None


@pytest.mark.parametrize("tf, says", [("2.15.0", False), ("2.15.1", True)])
def test_another_patch_of_a_listed_stack_is_named_as_matched_by_minor(tf, says):
    check = rules.check_mac_recipe(keras2_mac(tf))
    assert check.status is Status.PASS, check
    assert "TensorFlow 2.15.0 +" in check.found
    assert ("by its minor version (it pins TensorFlow 2.15.0, not 2.15.1)" in check.found) is says
