"""When two versions of a snippet measure the same work (issue 34, item 4).

A results entry stays current after an edit that changes no measured work: a docstring, a
comment, the program's own output formatting, or an import spelled another way where both
spellings load the same Keras. The rule compares a hash of the snippet's syntax tree after
these steps, and nothing else (no list of versions by hand):

1. Docstrings are dropped (comments never reach the tree).
2. What the harness does not run is dropped: the `if __name__ == "__main__":` block (the
   program run directly, which formats its own output) and the module-level functions that
   only that block can reach. The harness imports the module (every other top-level
   statement runs), reads its constants and calls `make_workload` and `flops`
   (scripts/measuring/measure_child.py); every function those reach counts. When unsure, code
   counts: classes, decorated functions and functions whose defaults call anything are
   kept; code the harness reaches that looks functions up by name (globals(), eval...) keeps
   every function; code that names `__file__` or "__main__" may run the program itself, so
   then nothing is dropped.
3. Contiguous module-level imports are put in one order. Snippets import only TensorFlow,
   Keras, NumPy and the standard library (README), and Keras 3 and TensorFlow import NumPy
   and each other themselves, so their order changes nothing that runs later.
4. On a stack where `tf.keras` is Keras 3 (data/measured_stacks.yml: keras_package keras,
   Keras 3, legacy_keras false), `from tensorflow import keras` is read as `import keras`.
   TensorFlow's lazy loader then serves `keras._tf_keras.keras`, whose names are Keras 3's own
   objects; tests/test_workload.py checks, on each such stack, that every `keras.` name the
   snippets use is the same object both ways. Elsewhere (tf-keras with TF_USE_LEGACY_KERAS=1)
   the two spellings load different packages and stay different.

Older versions are found in git history; `python -m scripts.core.workload` writes their
workload ids to data/snippet_workloads.json, so pages render without reading git. The file on
disk is read directly. An entry whose version is in neither is compared byte for byte.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sys
from pathlib import Path

from scripts.core import json_files, measured_stacks, snippet_versions, software_stack
from scripts.core.project_files import ROOT

RULE = "workload rule 2"  # change it whenever the steps above change: every id changes too
TABLE_FILE = ROOT / "data" / "snippet_workloads.json"
TF_KERAS_IS_KERAS = "tf.keras is keras"  # step 4 applies
AS_WRITTEN = "as written"
MODES = (TF_KERAS_IS_KERAS, AS_WRITTEN)

HARNESS_CALLS = ("make_workload", "flops")  # what measure_child.py calls on the module
LOOKS_UP_BY_NAME = {"globals", "vars", "locals", "eval", "exec", "__import__", "__name__"}
RUNS_ITSELF = {"__file__", "__spec__", "__loader__"}


class WorkloadError(ValueError):
    """A workload table that does not hold its shape; the message names the file and field."""


# --- The rule: a source text to its workload id -------------------------------------------


def _drop_docstrings(tree: ast.AST) -> None:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                if isinstance(body[0].value.value, str):
                    node.body = body[1:] or [ast.Pass()]


def _is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s.id for s in sides if isinstance(s, ast.Name)]
    texts = [s.value for s in sides if isinstance(s, ast.Constant)]
    return names == ["__name__"] and texts == ["__main__"]


def _names_in(nodes: list[ast.AST]) -> set[str]:
    found: set[str] = set()
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                found.add(inner.id)
            elif isinstance(inner, (ast.Global, ast.Nonlocal)):
                found.update(inner.names)
    return found


def _mentions_main(nodes: list[ast.AST]) -> bool:
    return any(
        isinstance(inner, ast.Constant) and inner.value == "__main__"
        for node in nodes
        for inner in ast.walk(node)
    )


def _defining_runs_code(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the def statement itself runs code beyond binding the name."""
    header = [*node.args.defaults, *node.args.kw_defaults, node.returns]
    header += [a.annotation for a in (*node.args.args, *node.args.kwonlyargs)]
    calls = any(isinstance(n, ast.Call) for h in header if h is not None for n in ast.walk(h))
    return bool(node.decorator_list) or calls


def _timed_statements(module: ast.Module) -> list[ast.stmt]:
    """The module's top-level statements that the harness runs or can reach (step 2)."""
    body: list[ast.stmt] = []
    for node in module.body:
        body += node.orelse if _is_main_guard(node) else [node]
    functions = (ast.FunctionDef, ast.AsyncFunctionDef)
    kept = [n for n in body if not isinstance(n, functions) or _defining_runs_code(n)]
    reached = _names_in(kept) | set(HARNESS_CALLS)
    while True:
        more = [n for n in body if isinstance(n, functions) and n.name in reached and n not in kept]
        if not more:
            break
        kept += more
        reached |= _names_in(more)
    if reached & RUNS_ITSELF or _mentions_main(kept):
        return list(module.body)  # the timed code may run the program itself: all counts
    if reached & LOOKS_UP_BY_NAME:
        kept = [n for n in body if n in kept or isinstance(n, functions)]
    return [n for n in body if n in kept]  # in the file's order


def _import_order(node: ast.stmt) -> str:
    return _canonical(node)


def _sort_import_runs(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Step 3: each run of adjacent import statements in one order."""
    ordered: list[ast.stmt] = []
    run: list[ast.stmt] = []
    for node in [*statements, None]:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            run.append(node)
            continue
        ordered += sorted(run, key=_import_order)
        run = []
        if node is not None:
            ordered.append(node)
    return ordered


def _read_tf_keras_as_keras(statements: list[ast.stmt]) -> list[ast.stmt]:
    """Step 4: `from tensorflow import keras [as k]` becomes `import keras [as k]`."""
    rewritten: list[ast.stmt] = []
    for node in statements:
        if isinstance(node, ast.ImportFrom) and node.module == "tensorflow" and not node.level:
            keras = [a for a in node.names if a.name == "keras"]
            rest = [a for a in node.names if a.name != "keras"]
            if keras:
                if rest:
                    rewritten.append(ast.ImportFrom(module="tensorflow", names=rest, level=0))
                rewritten += [ast.Import(names=[ast.alias(a.name, a.asname)]) for a in keras]
                continue
        rewritten.append(node)
    return rewritten


def tf_keras_names(source: str) -> set[str]:
    """The names step 4 relies on: every `keras.a.b` that the harness-run code of the source
    reaches through `from tensorflow import keras [as k]`, in full ('keras' alone when the
    module itself is used)."""
    module = ast.parse(source)
    statements = _timed_statements(module)
    bound = {
        alias.asname or alias.name
        for node in statements
        if isinstance(node, ast.ImportFrom) and node.module == "tensorflow" and not node.level
        for alias in node.names
        if alias.name == "keras"
    }
    parents = {
        child: node
        for s in statements
        for node in ast.walk(s)
        for child in ast.iter_child_nodes(node)
    }
    found = set()
    for statement in statements:
        for node in ast.walk(statement):
            if not (isinstance(node, ast.Name) and node.id in bound):
                continue
            chain, top = ["keras"], node
            while isinstance(parents.get(top), ast.Attribute) and parents[top].value is top:
                top = parents[top]
                chain.append(top.attr)
            found.add(".".join(chain))
    return found


def _canonical(node: object) -> str:
    """The tree as text, the same on every Python the project supports: ast.dump's form
    changes between versions (3.12 added FunctionDef.type_params; 3.13 leaves out empty
    fields), so empty fields and None are always left out here."""
    if isinstance(node, ast.AST):
        fields = [(name, getattr(node, name, None)) for name in node._fields]
        shown = [f"{name}={_canonical(value)}" for name, value in fields if value not in (None, [])]
        return f"{type(node).__name__}({', '.join(shown)})"
    if isinstance(node, list):
        return "[" + ", ".join(_canonical(item) for item in node) + "]"
    return repr(node)


def timed_code(source: str, mode: str) -> str:
    """The normalised tree of what the harness runs, as text (steps 1-4); SyntaxError when
    the source is not Python."""
    if mode not in MODES:
        raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
    module = ast.parse(source)
    _drop_docstrings(module)
    statements = _timed_statements(module)
    if mode == TF_KERAS_IS_KERAS:
        statements = _read_tf_keras_as_keras(statements)
    statements = _sort_import_runs(statements)
    return _canonical(statements)


def mode_id(source: str, mode: str) -> str:
    text = f"{RULE}\n{mode}\n{timed_code(source, mode)}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def ids(source: str) -> dict[str, str]:
    """The source's workload id in each mode."""
    return {mode: mode_id(source, mode) for mode in MODES}


@functools.cache
def _tf_keras_is_keras_on(stacks_file: Path) -> frozenset[str]:
    return frozenset(
        s.id
        for s in measured_stacks.load(stacks_file)
        if s.keras_package == "keras" and not s.legacy_keras and s.keras.split(".")[0] == "3"
    )


def mode_of(stack_id: str, stacks_file: Path = measured_stacks.STACKS_FILE) -> str:
    """Step 4 applies on the measured stacks where tf.keras is Keras 3; on any other stack
    name (not in data/measured_stacks.yml) it does not."""
    return TF_KERAS_IS_KERAS if stack_id in _tf_keras_is_keras_on(stacks_file) else AS_WRITTEN


def workload_id(source: str, stack_id: str) -> str:
    """What the harness measures of this source on that stack, as a short hash."""
    return mode_id(source, mode_of(stack_id))


# --- Versions: the table of older ones, and the file on disk ------------------------------


def table_of_history(root: Path = ROOT) -> dict[str, dict[str, dict[str, str]]]:
    """Path -> SHA-256 -> mode -> workload id, for every snippet version in git history that
    parses (a version that does not is left out and compared byte for byte)."""
    table: dict[str, dict[str, dict[str, str]]] = {}
    for relpath in snippet_versions.snippet_paths(root):
        versions = {}
        for sha, blob in snippet_versions.history(relpath, root).items():
            try:
                versions[sha] = ids(blob.decode("utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
        if versions:
            table[relpath] = dict(sorted(versions.items()))
    return table


def _checked_table(data: object, name: str) -> dict[str, dict[str, dict[str, str]]]:
    if not isinstance(data, dict) or data.get("rule") != RULE:
        found = data.get("rule") if isinstance(data, dict) else data
        raise WorkloadError(
            f"{name}: rule: expected {RULE!r}, got {found!r}; "
            "rewrite it with python -m scripts.core.workload"
        )
    versions = data.get("versions")
    if not isinstance(versions, dict):
        raise WorkloadError(f"{name}: versions: expected an object path -> SHA-256 -> ids")
    for relpath, by_sha in versions.items():
        for sha, found in (by_sha if isinstance(by_sha, dict) else {None: None}).items():
            if not isinstance(found, dict) or set(found) != set(MODES):
                raise WorkloadError(
                    f"{name}: versions[{relpath!r}][{sha!r}]: expected ids for {list(MODES)}"
                )
    return versions


@functools.lru_cache(maxsize=8)
def _table_at(path: str, mtime_ns: int) -> dict[str, dict[str, dict[str, str]]]:
    return _checked_table(json.loads(Path(path).read_text(encoding="utf-8")), path)


def table(root: Path = ROOT) -> dict[str, dict[str, dict[str, str]]]:
    """The committed table (data/snippet_workloads.json); empty where there is none."""
    path = root / "data" / "snippet_workloads.json"
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return {}
    return _table_at(str(path), mtime)


@functools.lru_cache(maxsize=256)
def _file_version(path: str, mtime_ns: int, size: int) -> tuple[str, dict[str, str] | None]:
    data = Path(path).read_bytes()
    try:
        found = ids(data.decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        found = None
    return hashlib.sha256(data).hexdigest(), found


def on_disk(relpath: str, root: Path = ROOT) -> tuple[str, dict[str, str] | None] | None:
    """(SHA-256, ids) of the snippet file as it is now, or None when there is none."""
    path = root / relpath
    try:
        stat = path.stat()
    except OSError:
        return None
    return _file_version(str(path), stat.st_mtime_ns, stat.st_size)


# --- Entries -------------------------------------------------------------------------------


# A version's ids follow from its bytes alone, so once found they are kept for the process.
_found_ids: dict[tuple[str, str, str], dict[str, str]] = {}


def _version_ids(relpath: str, sha: str, root: Path) -> dict[str, str] | None:
    """The ids of that version of the file: from the table, else from the file on disk when
    it is that version; None when neither has it."""
    remembered = _found_ids.get((str(root), relpath, sha))
    if remembered is not None:
        return remembered
    found = table(root).get(relpath, {}).get(sha)
    if found is None:
        disk = on_disk(relpath, root)
        found = disk[1] if disk is not None and disk[0] == sha else None
    if found is not None:
        _found_ids[(str(root), relpath, sha)] = found
    return found


def key(entry: dict, root: Path = ROOT) -> str:
    """The entry's workload on its own stack, or its file's SHA-256 where the version is in
    neither the table nor on disk (then only the same bytes match)."""
    sha = entry["snippet_sha256"]
    found = _version_ids(entry["snippet_path"], sha, root)
    if found is None:
        return f"sha256:{sha}"
    return f"workload:{found[mode_of(software_stack.name(entry['software']))]}"


def same_workload(a: dict, b: dict, root: Path = ROOT) -> bool:
    """Whether two entries of one snippet measured the same work (on their own stacks)."""
    return a["snippet_path"] == b["snippet_path"] and key(a, root) == key(b, root)


def is_current(entry: dict, root: Path = ROOT) -> bool:
    """Whether the entry measured the work that the snippet file, as it is now, measures on
    the entry's stack."""
    disk = on_disk(entry["snippet_path"], root)
    if disk is None:
        return False
    sha, found = disk
    if sha == entry["snippet_sha256"]:
        return True
    if found is None:
        return False
    today = f"workload:{found[mode_of(software_stack.name(entry['software']))]}"
    return key(entry, root) == today


def main() -> int:
    """Write data/snippet_workloads.json from git history."""
    versions = table_of_history()
    if not versions:
        print("error: no snippet versions found in git history", file=sys.stderr)
        return 1
    about = (
        "Workload ids of every snippet version in git history, by path and SHA-256 "
        "(scripts/core/workload.py has the rule). Written by python -m scripts.core.workload"
    )
    json_files.write_json_atomic(
        TABLE_FILE, {"about": about, "rule": RULE, "modes": list(MODES), "versions": versions}
    )
    count = sum(len(v) for v in versions.values())
    print(f"wrote {TABLE_FILE.relative_to(ROOT)}: {count} versions of {len(versions)} snippets")
    return 0


if __name__ == "__main__":
    sys.exit(main())
