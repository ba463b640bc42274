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


def guarded_imports(tree: ast.AST) -> list[ast.stmt]:
    """Imports in a try whose handler catches ImportError: optional, as stats' NumPy path is."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
            isinstance(handler.type, ast.Name)
            and handler.type.id in {"ImportError", "ModuleNotFoundError"}
            for handler in node.handlers
        ):
            found += [n for n in node.body if isinstance(n, ast.Import | ast.ImportFrom)]
    return found


def project_imports(module: str, root: Path = ROOT) -> set[str]:
    """The project modules `module` imports, function-level ones too, but not the optional
    ones (guarded_imports): `from scripts.core import stats` is scripts.core.stats where that
    file exists, else a name in scripts.core."""
    own = tuple(importlinter(root)["root_packages"])
    path = root / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = root / module.replace(".", "/") / "__init__.py"
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found, optional = set(), {id(node) for node in guarded_imports(tree)}
    for node in ast.walk(tree):
        if id(node) in optional:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            for alias in node.names:
                child = f"{base}.{alias.name}"
                is_module = (root / (child.replace(".", "/") + ".py")).exists() or (
                    root / child.replace(".", "/") / "__init__.py"
                ).exists()
                found.add(child if is_module else base)
    return {name for name in found if name.split(".")[0] in own}


def test_project_imports_are_read_as_modules_or_names():
    assert "scripts.core.stats" in project_imports("scripts.tuning.analysis")
    assert "scripts.core.sittings" not in project_imports("scripts.core.typed_json")
    assert "scripts.core.bootstrap_arrays" not in project_imports("scripts.core.stats")


def test_every_project_module_a_packed_module_imports_is_packed_too():
    """The contract forbids third-party packages only; a packed module importing a project
    module the archive leaves out would fail in the reader's Python all the same."""
    packed = packed_modules()
    missing = {
        f"{module} imports {name}"
        for module in sorted(packed)
        for name in project_imports(module)
        if name not in packed
    }
    assert missing == set(), "packed modules import modules zipapp.MEMBERS does not pack"
