"""Find the snippet programs and load them as modules, checking the interface the harness uses.

A measurable snippet is `snippets/<topic>/<name>.py` defining VARIANTS (name -> description),
BASELINE (one of VARIANTS) and make_workload(variant, size) -> (run, examples_per_run).

A snippet that cannot run on a measured stack (data/measured_stacks.yml) says so by name:
`SKIP_ON_STACKS = {"<stack id>": "why, in one line"}`. The harness and the tests skip it
there and print the reason; nothing is skipped silently.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from scripts.core import workload
from scripts.core.project_files import ROOT

SNIPPETS_DIR = ROOT / "snippets"


class SnippetError(Exception):
    """A snippet that cannot be found, imported or used; the message names it."""


@dataclass(frozen=True)
class Snippet:
    name: str  # "input_pipeline/feeding"
    path: Path

    @property
    def relpath(self) -> str:
        """The path as readers see it: relative to the project, or as given if elsewhere."""
        try:
            return self.path.relative_to(ROOT).as_posix()
        except ValueError:
            return self.path.as_posix()


def is_measurable(path: Path) -> bool:
    """A snippet module takes part in measuring when it defines make_workload."""
    return "def make_workload(" in path.read_text(encoding="utf-8")


def constants(path: Path) -> dict:
    """Module-level literal assignments (VARIANTS, ISOLATE_VARIANTS...), read without importing."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                try:
                    found[target.id] = ast.literal_eval(node.value)
                except ValueError:
                    continue
    return found


def skips_on_stacks(snippet: Snippet) -> dict[str, str]:
    """The snippet's SKIP_ON_STACKS (stack id -> one-line reason), read without importing it."""
    found = constants(snippet.path)
    expected = 'SKIP_ON_STACKS must be a literal dict {"<stack id>": "reason, one line"}'
    if "SKIP_ON_STACKS" not in found:
        if "SKIP_ON_STACKS" in snippet.path.read_text(encoding="utf-8"):
            raise SnippetError(f"{snippet.relpath}: {expected}")
        return {}
    declared = found["SKIP_ON_STACKS"]
    if not isinstance(declared, dict):
        raise SnippetError(f"{snippet.relpath}: {expected}")
    for stack_id, reason in declared.items():
        if not (isinstance(stack_id, str) and isinstance(reason, str) and reason.strip()):
            raise SnippetError(f"{snippet.relpath}: {expected}; got {stack_id!r}: {reason!r}")
        if "\n" in reason.strip():
            raise SnippetError(f"{snippet.relpath}: SKIP_ON_STACKS[{stack_id!r}]: one line")
    return declared


def skip_reason(snippet: Snippet, stack_id: str) -> str | None:
    """Why the snippet does not run on that stack, or None where it runs."""
    return skips_on_stacks(snippet).get(stack_id)


def all_snippets(snippets_dir: Path = SNIPPETS_DIR) -> list[Snippet]:
    paths = sorted(p for p in snippets_dir.glob("*/*.py") if not p.name.startswith("_"))
    return [Snippet(p.relative_to(snippets_dir).with_suffix("").as_posix(), p) for p in paths]


def measurable_snippets(snippets_dir: Path = SNIPPETS_DIR) -> list[Snippet]:
    return [s for s in all_snippets(snippets_dir) if is_measurable(s.path)]


def select(names: list[str] | None, snippets_dir: Path = SNIPPETS_DIR) -> list[Snippet]:
    """The snippets named (a topic such as 'input_pipeline' selects all of its snippets)."""
    known = measurable_snippets(snippets_dir)
    if not names:
        return known
    chosen: list[Snippet] = []
    for name in names:
        name = name.strip().removesuffix(".py").removeprefix("snippets/")
        matches = [s for s in known if s.name == name or s.name.split("/")[0] == name]
        if not matches:
            listing = ", ".join(s.name for s in known)
            raise SnippetError(f"unknown snippet {name!r} in --only; known snippets: {listing}")
        chosen += [m for m in matches if m not in chosen]
    return chosen


def load(snippet: Snippet) -> ModuleType:
    """Import a snippet file as a module and check that it has the harness interface."""
    module_name = "snippet_" + snippet.name.replace("/", "_")
    spec = importlib.util.spec_from_file_location(module_name, snippet.path)
    if spec is None or spec.loader is None:
        raise SnippetError(f"{snippet.relpath}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # any import failure is reported with the snippet's name
        raise SnippetError(
            f"{snippet.relpath}: import failed: {type(error).__name__}: {error}"
        ) from error
    variants = getattr(module, "VARIANTS", None)
    if not isinstance(variants, dict) or not variants:
        raise SnippetError(f"{snippet.relpath}: VARIANTS must be a non-empty dict name -> text")
    if getattr(module, "BASELINE", None) not in variants:
        raise SnippetError(f"{snippet.relpath}: BASELINE must name one of VARIANTS")
    if not callable(getattr(module, "make_workload", None)):
        raise SnippetError(f"{snippet.relpath}: make_workload(variant, size) is missing")
    return module


# The entry whose rate is each machine's compute ceiling ("share of ceiling" on the pages).
CEILING_KEY = "ceiling/matmul:float32"


def is_current(entry: dict, root: Path = ROOT) -> bool:
    """True when the entry measured the work the snippet file, as it is today, measures on the
    entry's stack (scripts/core/workload.py: edits outside the timed code keep it current)."""
    return workload.is_current(entry, root)
