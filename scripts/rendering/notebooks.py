"""Write each factor's walkthrough notebook (docs/notebooks/<topic>.ipynb) from its snippets.

Every snippet module of a topic becomes a few code cells with its code unchanged (the page's
`# --8<--` section markers become cell breaks), followed by its own timing loop run as
`python <snippet>.py small` would run it. The notebook is then executed here, with its
outputs kept, so the site shows what the programs printed on the machine named in the
first cell. `make notebooks` (or `python -m scripts.notebooks --only <topic>`) regenerates.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import sys
import time
from collections.abc import Iterable
from pathlib import Path

import nbformat

from scripts.core import catalog, provenance
from scripts.core.catalog import ROOT, Snippet

NOTEBOOKS_DIR = ROOT / "docs" / "notebooks"
DOCS_DIR = ROOT / "docs"
SIZE = "small"  # the size the notebooks run at: seconds, not the minutes of a full measurement
MARKER = re.compile(r"^\s*# --8<-- \[(start|end):[\w-]+\]\s*$")
KEY = "tf_guide"  # notebook and cell metadata written by this script (read by the tests)
CELL_TIMEOUT_S = 900


def topics(snippets_dir: Path = catalog.SNIPPETS_DIR) -> dict[str, list[Snippet]]:
    """Every topic folder under snippets/ with its snippet modules, in name order."""
    found: dict[str, list[Snippet]] = {}
    for snippet in catalog.all_snippets(snippets_dir):
        found.setdefault(snippet.name.split("/")[0], []).append(snippet)
    return found


def notebook_path(topic: str, notebooks_dir: Path = NOTEBOOKS_DIR) -> Path:
    return notebooks_dir / f"{topic}.ipynb"


def page_for(topic: str, docs_dir: Path = DOCS_DIR) -> Path | None:
    """The factor page that shows this topic's snippets (None if no page includes them yet)."""
    include = f'--8<-- "snippets/{topic}/'
    for page in sorted(docs_dir.rglob("*.md")):
        if "_generated" not in page.parts and include in page.read_text(encoding="utf-8"):
            return page
    return None


def page_title(page: Path | None, topic: str) -> str:
    if page is not None:
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return topic.replace("_", " ").capitalize()


def _statement_starts(tree: ast.Module) -> dict[int, ast.stmt]:
    """First line (decorators included) of each top-level statement -> the statement."""
    starts = {}
    for node in tree.body:
        decorators = getattr(node, "decorator_list", [])
        starts[min([node.lineno] + [d.lineno for d in decorators])] = node
    return starts


def _is_main_guard(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
    )


def split_module(source: str) -> tuple[str, list[str]]:
    """(module docstring, code cells): the code after the docstring, cut into cells.

    Cells break at the page's top-level section markers (all markers are dropped), around
    every top-level function or class outside a marked section, and before the
    `if __name__ == "__main__"` block. Comments directly above a statement stay with it.
    No line of code is changed.
    """
    tree = ast.parse(source)
    lines = source.splitlines()
    body = tree.body
    docstring = ast.get_docstring(tree, clean=True) or ""
    first = body[0].end_lineno if docstring and body else 0  # last line of the docstring

    starts = _statement_starts(tree)
    breaks: set[int] = set()  # 1-based line numbers that begin a new cell
    depth = 0
    for number in range(first + 1, len(lines) + 1):
        if MARKER.match(lines[number - 1]):
            if not lines[number - 1][:1].isspace():  # a marker inside a function: no break
                depth += 1 if "[start:" in lines[number - 1] else -1
                breaks.add(number)
            continue
        node = starts.get(number)
        if node is None:
            continue
        separate = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        if _is_main_guard(node) or (separate and depth == 0):
            top = number
            while top - 1 > first and lines[top - 2].lstrip().startswith("#"):
                if MARKER.match(lines[top - 2]):
                    break
                top -= 1
            breaks.add(top)
            if separate and depth == 0 and node.end_lineno:
                breaks.add(node.end_lineno + 1)

    cells: list[list[str]] = [[]]
    for number in range(first + 1, len(lines) + 1):
        if number in breaks:
            cells.append([])
        if not MARKER.match(lines[number - 1]):
            cells[-1].append(lines[number - 1])
    texts = ["\n".join(cell).strip("\n") for cell in cells]
    return docstring, [text for text in texts if text.strip()]


def imports_sys(source: str) -> bool:
    tree = ast.parse(source)
    return any(
        isinstance(node, ast.Import) and any(alias.name == "sys" for alias in node.names)
        for node in tree.body
    )


def restarts_itself(source: str) -> bool:
    """A program that runs itself again in fresh processes (it passes __file__ to them)."""
    return "__file__" in source


def run_cell(snippet: Snippet, source: str) -> str:
    """The lines that make the program's own `__main__` block run at the small size."""
    name = snippet.path.name
    restarts = restarts_itself(source)
    lines = [] if imports_sys(source) else ["import sys"]
    lines += ["from pathlib import Path"] if restarts else []
    lines += [""] if lines else []
    if restarts:
        lines += [
            "# The program starts itself again in fresh processes, which need its file:",
            "# the copy in the clone of the repository this notebook runs in.",
            "here = Path.cwd()",
            'project = next(p for p in [here, *here.parents] if (p / "snippets").is_dir())',
            f'__file__ = str(project / "{snippet.relpath}")',
        ]
    lines.append(f'sys.argv = ["{name}", "{SIZE}"]  # as if run as: python {name} {SIZE}')
    return "\n".join(lines)


def run_note(snippet: Snippet, source: str) -> str:
    name = snippet.path.name
    loop = "timing loop" if catalog.is_measurable(snippet.path) else "check"
    note = f"Run the program's own {loop} at the {SIZE} size, as `python {name} {SIZE}` would"
    if not restarts_itself(source):
        return note + ":"
    return (
        f"{note}. It runs each variant in a fresh process by starting its own file again "
        "(some settings only take effect before TensorFlow starts), so this cell needs the "
        f"file: run the notebook inside a clone of the repository, or save the code above as "
        f"`{name}` and run `python {name} {SIZE}`."
    )


def intro(
    topic: str, page: Path | None, machine: str, software: dict, date: str, measured: bool = True
) -> str:
    title = page_title(page, topic)
    versions = ", ".join(
        f"{label} {software[key]}"
        for key, label in [
            ("tensorflow", "TensorFlow"),
            ("tensorflow_metal", "tensorflow-metal"),
            ("keras", "Keras"),
            ("numpy", "NumPy"),
            ("python", "Python"),
        ]
        if software.get(key)
    )
    ran = (
        f"The outputs below were produced by executing this notebook on **{machine}** "
        f"({versions}) on {date}."
    )
    if measured:
        ending = "its own timing loop"
        about = (
            f"{ran} They show that the programs run, not how fast: a small run is a few "
            "batches, where start-up costs weigh more and the variants can rank differently "
            "than at full size. The factor page's tables, measured at full size with warm-ups "
            "and repeats, are the measurements."
        )
    else:  # a check, not a measurement: nothing here is timed
        ending = "its own check"
        about = f"{ran} They show what the check prints on that machine; nothing is timed."
    return "\n".join(
        [
            f"# {title} (notebook)",
            "",
            f"The snippet programs of this factor (`snippets/{topic}/`), cell by cell, with "
            f"their code unchanged. Each program ends with {ending}, run here at "
            f"the snippet's **{SIZE}** size, so that the notebook runs quickly.",
            "",
            about,
            "",
            "Nothing is downloaded: the data are random arrays of the real shapes, made locally.",
            "",
            f"[Download this notebook]({topic}.ipynb) · generated by `scripts/notebooks.py` "
            "(`make notebooks` regenerates it from the snippet files).",
        ]
    )


def build_notebook(
    topic: str,
    snippets: list[Snippet],
    machine: str,
    software: dict,
    date: str,
    docs_dir: Path = DOCS_DIR,
) -> nbformat.NotebookNode:
    """The unexecuted notebook for one topic."""
    v4 = nbformat.v4
    page = page_for(topic, docs_dir)
    measured = any(catalog.is_measurable(s.path) for s in snippets)
    cells = [v4.new_markdown_cell(intro(topic, page, machine, software, date, measured))]
    for snippet in snippets:
        source = snippet.path.read_text(encoding="utf-8")
        docstring, code = split_module(source)
        heading = f"## {snippet.relpath}"
        cells.append(v4.new_markdown_cell(f"{heading}\n\n{docstring}".strip()))
        for text in code:
            if text.startswith("if __name__"):
                cells.append(v4.new_markdown_cell(run_note(snippet, source)))
                run = v4.new_code_cell(run_cell(snippet, source))
                run.metadata[KEY] = {"snippet": snippet.relpath, "role": "run"}
                cells.append(run)
            cell = v4.new_code_cell(text)
            cell.metadata[KEY] = {"snippet": snippet.relpath, "role": "code"}
            cells.append(cell)
    notebook = v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    notebook.metadata[KEY] = {
        "topic": topic,
        "size": SIZE,
        "machine": machine,
        "software": software,
        "date": date,
        "snippets": {s.relpath: provenance.file_sha256(s.path) for s in snippets},
    }
    return notebook


def execute(notebook: nbformat.NotebookNode) -> None:
    """Run every cell in a fresh kernel started in the project folder; raise on an error."""
    from nbclient import NotebookClient  # imported here: generating alone does not need it

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # the kernel inherits it: no C++ log noise
    client = NotebookClient(
        notebook,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        allow_errors=False,
        record_timing=False,
        coalesce_streams=True,  # one output block per cell, not one per printed line
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()


def write(notebook: nbformat.NotebookNode, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".ipynb.tmp")
    temporary.write_text(nbformat.writes(notebook) + "\n", encoding="utf-8")
    temporary.replace(path)


def parse_args(argv: Iterable[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m scripts.notebooks", description=__doc__)
    parser.add_argument(
        "--only", action="append", metavar="TOPIC", help="only this topic (repeatable)"
    )
    parser.add_argument(
        "--no-execute",
        action="store_true",
        help="write the notebooks without outputs (a quick look; the site needs executed ones)",
    )
    return parser.parse_args(list(argv) if argv is not None else None)


def main(argv: Iterable[str] | None = None) -> int:
    args = parse_args(argv)
    known = topics()
    chosen = args.only or sorted(known)
    unknown = [t for t in chosen if t not in known]
    if unknown:
        print(f"unknown topic(s) {unknown}; known: {sorted(known)}", file=sys.stderr)
        return 2
    machine = provenance.collect_machine()["description"]
    software = provenance.collect_software()
    date = provenance.utc_now()[:10]
    failed = []
    for topic in chosen:
        notebook = build_notebook(topic, known[topic], machine, software, date)
        path = notebook_path(topic)
        if not args.no_execute:
            started = time.perf_counter()
            try:
                execute(notebook)
            except Exception as error:  # report the topic, keep going with the others
                print(f"FAIL {topic}: {type(error).__name__}: {error}"[:3000], file=sys.stderr)
                failed.append(topic)
                continue
            print(f"executed {topic} in {time.perf_counter() - started:.0f} s")
        write(notebook, path)
        print(f"wrote {path.relative_to(ROOT)}")
    if not args.only:  # a topic that no longer exists loses its notebook
        for path in sorted(NOTEBOOKS_DIR.glob("*.ipynb")):
            if path.stem not in known:
                path.unlink()
                print(f"removed {path.relative_to(ROOT)} (no snippets/{path.stem}/ any more)")
    if failed:
        print(f"not written (execution failed): {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
