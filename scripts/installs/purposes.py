"""What an install command is for: a recipe's pins (data/mac_recipes.json, "cpu", "linux"), the
platforms and Pythons it is offered on, and whether a resolved environment keeps the pins."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

import tomllib
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from scripts.core import data_formats, mac_recipes, project_files
from scripts.core.compatibility import minor, same_version, version_tuple

PURPOSES = project_files.ROOT / "data" / "command_purposes.yml"
PYPROJECT = project_files.ROOT / "pyproject.toml"
MAC = ("macos-arm64",)
LINUX = ("linux-x86_64", "linux-aarch64")
# TensorFlow 2.16.2, the version the project pins on Linux, has wheels for Python 3.9 to 3.12.
LINUX_PYTHONS = ("3.9", "3.12")
TENSORFLOW_NAMES = ("tensorflow", "tensorflow-macos", "tensorflow-cpu", "tf-nightly")
# The versions a record entry holds for each resolved environment.
WATCHED = ("tensorflow", "keras", "tf-keras", "tensorflow-metal", "numpy")


class PurposeError(ValueError):
    """data/command_purposes.yml names a recipe, platform or field that does not exist."""


@dataclass(frozen=True)
class Pins:
    """What a recipe allows: TensorFlow minors (None: any), tensorflow-metal (None: none), the
    Keras family, and where it is offered."""

    recipe: str
    tensorflow: tuple[tuple[int, ...], ...] | None
    metal: str | None
    keras: str  # keras2, keras3 or any
    pythons: tuple[str, ...]
    platforms: tuple[str, ...]
    install: tuple[str, ...] = field(default=())  # the pip requirements that install it


def _pythons(low: str, high: str) -> tuple[str, ...]:
    first, last = minor(low), minor(high)
    return tuple(f"3.{n}" for n in range(first[1], last[1] + 1))


def _requirements(line: str) -> tuple[str, ...]:
    return tuple(re.findall(r'"([^"]+)"', line)) or tuple(line.split()[4:])


def linux_pins() -> tuple[str, str]:
    """(tensorflow, keras) as pyproject.toml pins them on Linux x86-64 (packaging reads each
    requirement and its marker)."""
    project = tomllib.loads(project_files.read_text(PYPROJECT))["project"]
    on_linux = {"sys_platform": "linux", "platform_machine": "x86_64"}
    found = {}
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate(on_linux):
            found.setdefault(*pinned(line))
    if not found.get("tensorflow-cpu") or not found.get("keras"):
        raise PurposeError(f"{PYPROJECT.name}: no tensorflow-cpu== or keras== pin found")
    return found["tensorflow-cpu"], found["keras"]


# A doctor fix that adds a plugin or a Keras to a TensorFlow no Mac recipe lists (tensorflow-macos
# 2.5 to 2.14) is for that TensorFlow: "kept-tensorflow-2.11" pins only its minor.
KEPT = "kept-tensorflow-"
ANY = "any"


def kept_recipe(requirements: list[str], installed: dict[str, str]) -> str | None:
    """The pseudo-recipe of a fix that names no TensorFlow and so keeps the installed one."""
    named = dict(pinned(r) for r in requirements)
    tf = tensorflow_of(installed)
    if tf is None or any(name in named for name in TENSORFLOW_NAMES):
        return None
    return KEPT + ".".join(map(str, minor(tf)))


@cache
def pins(recipe: str) -> Pins:
    """A recipe's pins by id: a Mac recipe, "cpu" (the recipe without tensorflow-metal), "linux",
    or a kept TensorFlow ("kept-tensorflow-2.11": that minor, any plugin, any Keras)."""
    data = mac_recipes.load()
    if recipe.startswith(KEPT):
        if not re.fullmatch(r"2\.\d+", recipe.removeprefix(KEPT)):
            raise PurposeError(f"no recipe {recipe!r}: a kept TensorFlow is {KEPT}2.N")
        return Pins(recipe, (minor(recipe.removeprefix(KEPT)),), ANY, ANY, _pythons("3.9", "3.11"),
                    MAC)  # fmt: skip
    if recipe == "linux":
        tf, keras = linux_pins()
        return Pins("linux", (minor(tf),), None, "keras3", _pythons(*LINUX_PYTHONS), LINUX,
                    (f"tensorflow-cpu=={tf}", f"keras=={keras}"))  # fmt: skip
    if recipe == "cpu":
        recipe = next(s["id"] for s in data["recipes"] if s["match"]["metal"] is None)
    found = next((s for s in data["recipes"] if s["id"] == recipe), None)
    if found is None:
        ids = [s["id"] for s in data["recipes"]] + ["cpu", "linux"]
        raise PurposeError(f"no recipe {recipe!r}: expected one of {ids}")
    match = found["match"]
    minors = None if "any" in match["tensorflow"] else tuple(minor(v) for v in match["tensorflow"])
    install = next((_requirements(line) for line in found["install"] if " pip " in line), ())
    return Pins(found["id"], minors, match["metal"], match["keras"], _pythons(*found["python"]),
                MAC, install)  # fmt: skip


@dataclass(frozen=True)
class Purpose:
    """One use of a printed command: the recipe it is for, what is installed already, where."""

    recipe: str
    onto: str | None
    platforms: tuple[str, ...]
    pythons: tuple[str, ...] = ()  # only when narrower than the recipe's own


@cache
def load() -> dict:
    """data/command_purposes.yml, held to data/command_purposes.schema.json (fields, one of
    for / not_resolved, known platforms); this adds that every recipe it names exists and that
    its pythons are among the recipe's."""
    try:
        data = data_formats.read(PURPOSES, "command_purposes")
    except data_formats.FormatError as error:
        raise PurposeError(str(error)) from error
    for entry in data["commands"]:
        for number, use in enumerate(entry.get("for", [])):
            where = f"{PURPOSES.name}: {entry.get('command', '?')!r} for[{number}]"
            pins(use["recipe"])
            if use.get("onto"):
                pins(use["onto"])
            outside = set(map(str, use.get("pythons", []))) - set(pins(use["recipe"]).pythons)
            if outside:
                raise PurposeError(
                    f"{where}: pythons {sorted(outside)} are not among recipe {use['recipe']}'s "
                    f'{list(pins(use["recipe"]).pythons)} (give them as strings, e.g. "3.12")'
                )
    return data


def purposes_of(command: str) -> list[Purpose] | str | None:
    """The purposes listed for a printed command; the reason when it is not resolved; None
    when the file does not list it."""
    entry = next((e for e in load()["commands"] if e["command"] == command), None)
    if entry is None:
        return None
    if "not_resolved" in entry:
        return entry["not_resolved"]
    return [
        Purpose(use["recipe"], use.get("onto"),
                tuple(use.get("platforms") or pins(use["recipe"]).platforms),
                tuple(map(str, use.get("pythons", []))))
        for use in entry["for"]
    ]  # fmt: skip


def tensorflow_of(versions: dict[str, str | None]) -> str | None:
    """The TensorFlow an environment imports: tensorflow, tensorflow-macos, tensorflow-cpu or
    tf-nightly."""
    return next((versions[n] for n in TENSORFLOW_NAMES if versions.get(n)), None)


def outside_pins(versions: dict[str, str | None], recipe: str) -> list[str]:
    """How a resolved environment leaves the recipe's pins (empty when it keeps them)."""
    want, problems = pins(recipe), []
    tf, metal = tensorflow_of(versions), versions.get("tensorflow-metal")
    if tf is None:
        if metal is None or want.metal:
            return []
        return [f"tensorflow-metal {metal} on the CPU recipe"]
    if want.tensorflow is not None and minor(tf) not in want.tensorflow:
        allowed = " or ".join(".".join(map(str, m)) for m in want.tensorflow)
        problems.append(f"TensorFlow {tf}, not {allowed}")
    return problems + _metal_outside(metal, want) + _keras_outside(versions, tf, want)


def _metal_outside(metal: str | None, want: Pins) -> list[str]:
    if want.metal is None and metal:
        return [f"tensorflow-metal {metal} on a recipe without it"]
    if want.metal and want.metal != ANY and not same_version(metal, want.metal):
        return [f"tensorflow-metal {metal or 'none'}, not {want.metal}"]
    return []


def _keras_outside(versions: dict[str, str | None], tf: str, want: Pins) -> list[str]:
    keras, tf_keras = versions.get("keras"), versions.get("tf-keras")
    if want.keras == "keras3" and (not keras or version_tuple(keras) < (3,)):
        return [f"Keras {keras or 'none'}, not Keras 3"]
    if want.keras != "keras2":
        return []
    if version_tuple(tf) >= (2, 16):
        if not tf_keras or minor(tf_keras) != minor(tf):
            return [f"tf-keras {tf_keras or 'none'} with TensorFlow {tf}"]
    elif not keras or minor(keras) != minor(tf):
        return [f"Keras {keras or 'none'} with TensorFlow {tf}"]
    return []


def two_tensorflows(versions: dict[str, str | None]) -> str | None:
    """The TensorFlow distributions a resolved environment ends with, when it holds two that
    each write site-packages/tensorflow/ (None when it holds one).

    tensorflow and tensorflow-macos at the same version are one TensorFlow: one of the two
    macOS wheels is thin, holding no files (tensorflow 2.13 to 2.15.0, tensorflow-macos 2.15.1
    and 2.16.2; docs/versions.md). At different versions, or any other pair, both write there.
    """
    found = {name: versions[name] for name in TENSORFLOW_NAMES if versions.get(name)}
    if len(found) < 2:
        return None
    if set(found) == {"tensorflow", "tensorflow-macos"} and len(set(found.values())) == 1:
        return None
    return " and ".join(f"{name} {version}" for name, version in found.items())


def pinned(requirement: str) -> tuple[str, str | None]:
    """(name, version) of a requirement, read by packaging: 'tf-keras~=2.16.0' -> ('tf-keras',
    '2.16.0'); the version is None unless the requirement pins one with == or ~=
    ('==2.19.*' -> '2.19'). Text that is no requirement comes back as (text, None)."""
    try:
        parsed = Requirement(requirement.strip())
    except InvalidRequirement:
        return requirement, None
    pins = sorted(s.version for s in parsed.specifier if s.operator in ("==", "~="))
    return canonicalize_name(parsed.name), (pins[0].removesuffix(".*") if pins else None)


def intended_recipe(
    requirements: list[str], removed: list[str], installed: dict[str, str], legacy: bool
) -> str | None:
    """The Mac recipe a doctor fix moves an environment to: the TensorFlow, tensorflow-metal and
    Keras the fix names, else those installed (less what it uninstalls); None when unlisted.

    legacy: TF_USE_LEGACY_KERAS is set, so tf.keras is tf-keras from TensorFlow 2.16.
    """
    named = dict(pinned(r) for r in requirements)
    have = {k: v for k, v in installed.items() if k not in removed}
    tf = named.get("tensorflow") or tensorflow_of(have)
    if "tensorflow" in named and named["tensorflow"] is None:
        tf = None  # unpinned: the newest, any minor
    metal = (
        named.get("tensorflow-metal")
        if "tensorflow-metal" in named
        else have.get("tensorflow-metal")
    )
    keras = named.get("keras") or have.get("keras")
    if "tf-keras" in named or (legacy and tf and version_tuple(tf) >= (2, 16)):
        family = "keras2"
    elif tf and version_tuple(tf) < (2, 16):
        family = "keras3" if keras and version_tuple(keras) >= (3,) else "keras2"
    else:
        family = "keras3"
    recipe = mac_recipes.identify(tf or "any", metal, family)
    return recipe["id"] if recipe else None
