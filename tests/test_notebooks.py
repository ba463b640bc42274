"""The factor notebooks: one per snippet topic, code identical to the snippets, executed, linked.

When a test here fails after a snippet changed, `make notebooks ARGS="--only <topic>"`
regenerates and re-executes that topic's notebook.
"""

from __future__ import annotations

import ast
import re
import textwrap

import nbformat
import pytest
import yaml

from scripts.core import catalog
from scripts.rendering import notebooks

TOPICS = sorted(notebooks.topics())


def fix(topic: str) -> str:
    return f'run `make notebooks ARGS="--only {topic}"`'


def code_lines(text: str) -> list[str]:
    """The lines that carry code: blank lines and the page's section markers left out."""
    return [line for line in text.splitlines() if line.strip() and not notebooks.MARKER.match(line)]


def snippet_code(source: str) -> list[str]:
    """A snippet file's code lines after its module docstring (which the notebook shows as text)."""
    tree = ast.parse(source)
    docstring_end = tree.body[0].end_lineno if ast.get_docstring(tree) else 0
    return code_lines("\n".join(source.splitlines()[docstring_end:]))


def cells_of(notebook, relpath: str, role: str) -> list:
    return [
        cell
        for cell in notebook.cells
        if cell.cell_type == "code"
        and cell.metadata.get(notebooks.KEY, {}).get("snippet") == relpath
        and cell.metadata[notebooks.KEY].get("role") == role
    ]


def load(topic: str):
    path = notebooks.notebook_path(topic)
    if not path.exists():
        pytest.fail(f"{path.relative_to(notebooks.ROOT)} is missing: {fix(topic)}")
    return nbformat.read(path, as_version=4)


def test_there_is_a_notebook_for_every_topic_and_no_other():
    assert TOPICS, "no snippet topic found under snippets/"
    written = sorted(p.stem for p in notebooks.NOTEBOOKS_DIR.glob("*.ipynb"))
    missing = sorted(set(TOPICS) - set(written))
    assert not missing, f"topics without a notebook: {missing}: run `make notebooks`"
    extra = sorted(set(written) - set(TOPICS))
    assert not extra, f"notebooks without a snippet topic (delete them): {extra}"


@pytest.mark.parametrize("topic", TOPICS)
def test_notebook_code_is_the_snippet_code(topic):
    notebook = load(topic)
    snippets = notebooks.topics()[topic]
    shown = list(notebook.metadata.get(notebooks.KEY, {}).get("snippets", {}))
    assert shown == [s.relpath for s in snippets], f"{topic}: snippets differ; {fix(topic)}"
    for snippet in snippets:
        cells = cells_of(notebook, snippet.relpath, "code")
        in_notebook = code_lines("\n".join(cell.source for cell in cells))
        in_file = snippet_code(snippet.path.read_text(encoding="utf-8"))
        if in_notebook != in_file:
            at = next(
                (
                    i
                    for i, pair in enumerate(zip(in_notebook, in_file, strict=False))
                    if pair[0] != pair[1]
                ),
                min(len(in_notebook), len(in_file)),
            )
            pytest.fail(
                f"the notebook's code differs from {snippet.relpath} at code line {at + 1}:\n"
                f"  notebook: {in_notebook[at] if at < len(in_notebook) else '(ends)'}\n"
                f"  file:     {in_file[at] if at < len(in_file) else '(ends)'}\n"
                f"{fix(topic)}",
                pytrace=False,
            )


@pytest.mark.parametrize("topic", TOPICS)
def test_notebook_ran_every_snippet_at_the_small_size(topic):
    notebook = load(topic)
    meta = notebook.metadata[notebooks.KEY]
    assert meta["size"] == "small"
    intro = notebook.cells[0]
    assert intro.cell_type == "markdown" and "**small** size" in intro.source
    assert meta["machine"] in intro.source and meta["date"] in intro.source
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count is not None, f"{topic}: a cell was not executed; {fix(topic)}"
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{topic}: a cell raised {errors[0].get('ename')}; {fix(topic)}"
    for snippet in notebooks.topics()[topic]:
        runs = cells_of(notebook, snippet.relpath, "run")
        assert len(runs) == 1 and f'"{notebooks.SIZE}"]' in runs[0].source, snippet.relpath
        if not catalog.is_measurable(snippet.path):
            continue
        main = cells_of(notebook, snippet.relpath, "code")[-1]
        printed = "".join(o.get("text", "") for o in main.outputs if o.output_type == "stream")
        variants = catalog.constants(snippet.path).get("VARIANTS", {})
        missing = [v for v in variants if not re.search(rf"^{re.escape(v)}\s", printed, re.M)]
        assert not missing, f"{snippet.relpath}: no output line for {missing}; {fix(topic)}"


@pytest.mark.parametrize("topic", TOPICS)
def test_the_factor_page_links_to_its_notebook(topic):
    page = notebooks.page_for(topic)
    if page is None:
        pytest.skip(f"no page includes snippets/{topic}/ yet")
    text = page.read_text(encoding="utf-8")
    depth = len(page.relative_to(notebooks.DOCS_DIR).parts)  # the page's URL is <name>/
    rendered = f"{'../' * (depth - 1)}notebooks/{topic}.ipynb"  # a Markdown link: to the file
    download = f'href="{"../" * depth}notebooks/{topic}/{topic}.ipynb" download'  # raw HTML
    assert f"]({rendered})" in text and download in text, (
        f"{page.name} needs the notebook line: **Notebook:** the programs of this page, run at "
        f"their small size: [read it with its outputs]({rendered}) or "
        f"<a {download}>download {topic}.ipynb</a>."
    )


def test_cells_keep_every_line_and_break_at_sections(tmp_path):
    source = textwrap.dedent(
        '''\
        """What it is.

        More words.
        """

        import sys

        SIZES = {"small": 1}


        # --8<-- [start:shown]
        # Why the helper exists.
        def helper(x):
            return x


        @staticmethod
        def decorated():
            return 2


        # --8<-- [end:shown]


        # A comment above a function stays with it.
        def make_workload(variant, size="full"):
            # --8<-- [start:inside]
            if variant == "x":
                return helper, 2
            # --8<-- [end:inside]
            return helper, 1


        if __name__ == "__main__":
            print(sys.argv)
        '''
    )
    docstring, cells = notebooks.split_module(source)
    assert docstring == "What it is.\n\nMore words."
    assert cells[0] == 'import sys\n\nSIZES = {"small": 1}'
    assert cells[1].startswith("# Why the helper exists.") and "def decorated" in cells[1]
    assert cells[2].startswith("# A comment above") and cells[2].endswith("return helper, 1")
    assert 'if variant == "x":' in cells[2], "a marker inside a function must not split it"
    assert not any("--8<--" in cell for cell in cells)
    assert cells[3].startswith('if __name__ == "__main__":')
    assert code_lines("\n".join(cells)) == snippet_code(source)


class IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml may use !!python/name tags; their values do not matter here."""


IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)
IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def test_mkdocs_renders_the_notebooks_without_running_them(root):
    config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=IgnoreTags)
    plugins = [p for p in config["plugins"] if isinstance(p, dict) and "mkdocs-jupyter" in p]
    assert plugins, "mkdocs.yml does not configure the mkdocs-jupyter plugin"
    options = plugins[0]["mkdocs-jupyter"]
    assert options["execute"] is False and options["allow_errors"] is False
    assert options["include"] == ["*.ipynb"], "only notebooks: snippets/*.py must not become pages"
    assert options.get("include_source") is True, "the download links need the copied .ipynb"
