"""The import-linter contract that keeps tf-doctor.pyz standard-library only (pyproject.toml)
states it for the modules the archive really packs, against every third-party package the
code imports: a module added to the archive, or a package added to the code, without the
contract fails here (lint-imports then checks the imports themselves)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import tomllib

from scripts.core.project_files import ROOT
from scripts.doctor import zipapp

CONTRACT = "tf-doctor.pyz packs standard-library modules only"


def importlinter(root: Path = ROOT) -> dict:
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)["tool"]["importlinter"]


def contract(root: Path = ROOT) -> dict:
    return next(c for c in importlinter(root)["contracts"] if c["name"] == CONTRACT)


def packed_modules(members: tuple[str, ...] = zipapp.MEMBERS) -> set[str]:
    """The archive's Python members as modules: 'scripts/core/__init__.py' is scripts.core."""
    return {
        member.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
        for member in members
        if member.endswith(".py")
    }


def third_party_imports(root: Path = ROOT) -> set[str]:
    """Top-level names of the absolute imports in the linted packages (function-level ones
    too) that are neither the standard library nor the project's own."""
    own = set(importlinter(root)["root_packages"])
    found = set()
    for package in own:
        for path in sorted((root / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found |= {alias.name.split(".")[0] for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    found.add(node.module.split(".")[0])
    return found - own - set(sys.stdlib_module_names) - {"__future__"}


def test_members_are_read_as_modules():
    members = ("scripts/__init__.py", "scripts/doctor/__main__.py", "data/a.json", "scripts/a.py")
    assert packed_modules(members) == {"scripts", "scripts.doctor.__main__", "scripts.a"}


def test_the_contract_holds_every_module_the_archive_packs_and_no_other():
    listed = set(contract()["source_modules"])
    packed = packed_modules()
    assert not contract()["as_packages"], "one module each: a package name would cover others"
    assert packed - listed == set(), "packed by zipapp.MEMBERS, missing from the contract"
    assert listed - packed == set(), "in the contract, not packed by zipapp.MEMBERS"


def test_the_contract_forbids_every_third_party_package_the_code_imports():
    imported = third_party_imports()
    assert {"numpy", "yaml", "jsonschema", "tensorflow"} <= imported  # the scan reads imports
    forbidden = set(contract()["forbidden_modules"])
    assert imported - forbidden == set(), "imported in scripts/ or benchmarks/, not forbidden"
    assert forbidden - imported == set(), "forbidden, but nothing imports it any more"
