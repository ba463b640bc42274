"""The Mac install recipes (data/mac_recipes.json): loaded and checked, which one a reader's
install is, and which one to install on a Python.

One file feeds the Set up page (scripts/rendering/mac_recipes_page.py) and the doctor, so the
recommendation cannot drift between them.
Standard library only: the doctor imports this module.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from scripts.core import project_files
from scripts.core.compatibility import minor, same_version

DATA = project_files.ROOT / "data" / "mac_recipes.json"


class RecipeError(ValueError):
    """data/mac_recipes.json refers to something it does not define."""


@cache
def load(path: Path = DATA) -> dict:
    """The file as stored, checked; tests and the Set up page read the same file."""
    data = json.loads(project_files.read_text(path))
    check(data, path.name)
    return data


def check(data: dict, where: str) -> None:
    """What data/mac_recipes.schema.json cannot say (its fields, advice words and Keras
    families are the schema's, and a test holds the file to it; this module runs in
    tf-doctor.pyz, which has no jsonschema): the recommended recipe exists and is advised,
    statuses and sources are defined, every tensorflow-metal has its wheels listed, and
    other_pythons names recipes that exist."""
    sources, statuses = data["sources"], data["statuses"]
    ids = [recipe["id"] for recipe in data["recipes"]]
    if data["recommended"] not in ids:
        raise RecipeError(f"{where}: recommended must name one of the recipes {ids}")
    for number, recipe in enumerate(data["recipes"]):
        at = f"{where}: recipes[{number}] ({recipe['id']})"
        if recipe["advice"] != "recommended" and recipe["id"] == data["recommended"]:
            raise RecipeError(f"{at}.advice: the recommended recipe needs advice 'recommended'")
        for item in [*recipe["verified"].values(), *recipe["known_issues"]]:
            if "status" in item and item["status"] not in statuses:
                raise RecipeError(f"{at}: status {item['status']!r} is not in statuses")
            unknown = [name for name in item.get("sources", []) if name not in sources]
            if unknown:
                raise RecipeError(f"{at}: sources {unknown} are not defined in 'sources'")
        metal = recipe["match"]["metal"]
        if metal and metal not in data["metal_wheels"]:
            raise RecipeError(f"{at}.match.metal: metal_wheels has no entry for {metal}")
    unknown = [name for name in data["other_pythons"]["recipes"] if name not in ids]
    if unknown:
        raise RecipeError(f"{where}: other_pythons names recipes {unknown} that are not defined")


def recommended(data: dict | None = None) -> dict:
    data = data or load()
    return next(s for s in data["recipes"] if s["id"] == data["recommended"])


def _python_in(low: str, high: str, python: str | None) -> bool:
    return minor(low) <= minor(python) <= minor(high)


def python_fits(recipe: dict, python: str | None) -> bool:
    """Whether every package of the recipe has a wheel for this Python (its recorded range)."""
    return _python_in(*recipe["python"], python)


def for_python(python: str | None, data: dict | None = None) -> dict | None:
    """The recipe to install on this Python: the recommended one where its wheels exist, else
    the first of `other_pythons` whose wheels do; None when no listed recipe installs there."""
    data = data or load()
    best = recommended(data)
    if not python or python_fits(best, python):
        return best
    recipes = {recipe["id"]: recipe for recipe in data["recipes"]}
    names = data.get("other_pythons", {}).get("recipes", [])
    return next((recipes[n] for n in names if python_fits(recipes[n], python)), None)


def metal_wheels(metal: str | None, data: dict | None = None) -> tuple[str, str] | None:
    """(lowest, highest) Python with a wheel of this tensorflow-metal release; None if unknown."""
    table = (data or load()).get("metal_wheels", {})
    found = next((v for k, v in table.items() if k != "about" and same_version(k, metal)), None)
    return (found[0], found[1]) if found else None


def metal_installs(metal: str | None, python: str | None, data: dict | None = None) -> bool:
    """Whether this tensorflow-metal release has a wheel for this Python (False when unknown)."""
    span = metal_wheels(metal, data)
    if span is None or not python:
        return span is not None
    return _python_in(span[0], span[1], python)


def pinned_version(recipe: dict, package: str) -> str | None:
    """The version the recipe's install lines pin for a package ("tensorflow==2.15.0" gives
    2.15.0), or None where they leave it unpinned or do not install it."""
    found = re.search(rf'"{re.escape(package)}==([^"*]+)"', " ".join(recipe["install"]))
    return found.group(1) if found else None


def install_command(recipe: dict) -> str:
    """The recipe's install lines joined into one shell command."""
    return " && ".join(recipe["install"])


def identify(tf: str, metal: str | None, keras: str, data: dict | None = None) -> dict | None:
    """The recipe this install is: TensorFlow by minor version, metal exactly, Keras family.

    keras is 'keras2' (tf.keras is Keras 2: TensorFlow before 2.16, or tf-keras with
    TF_USE_LEGACY_KERAS) or 'keras3'.
    """
    data = data or load()
    for recipe in data["recipes"]:
        match = recipe["match"]
        minors = match["tensorflow"]
        if "any" not in minors and minor(tf) not in [minor(m) for m in minors]:
            continue
        if match["metal"] is None and metal is not None:
            continue
        if match["metal"] is not None and not same_version(match["metal"], metal):
            continue
        if match["keras"] not in ("any", keras):
            continue
        return recipe
    return None


def is_warned(recipe: dict) -> bool:
    """Whether the doctor warns about this recipe (its `advice` in the data file)."""
    return recipe["advice"] == "warn"
