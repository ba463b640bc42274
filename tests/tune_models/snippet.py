"""Load one of the guide's snippets by path, for the tune model files beside this one."""

import importlib.util
from pathlib import Path

SNIPPETS = Path(__file__).resolve().parents[2] / "snippets"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name.replace("/", "_"), SNIPPETS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
