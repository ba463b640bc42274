"""The site's navigation, read from mkdocs.yml: its pages in order, each with its nav title."""

from __future__ import annotations

import re
from pathlib import Path

from scripts.core import yaml_files
from scripts.core.project_files import ROOT

MKDOCS = ROOT / "mkdocs.yml"


def entries(mkdocs: Path = MKDOCS) -> list[tuple[str, str]]:
    """(title, page) for every page in the nav, in order: ('Home', 'index.md'), ...; a page
    listed without a title has its file name as title."""
    # mkdocs.yml carries !!python/name tags for Material's emoji; read only the nav.
    text = mkdocs.read_text(encoding="utf-8")
    nav = text[text.index("\nnav:") :]
    end = re.search(r"\n[a-z_]+:", nav[5:])
    found: list[tuple[str, str]] = []

    def walk(node, title: str | None = None) -> None:
        if isinstance(node, str):
            if node.endswith(".md"):
                found.append((title or node, node))
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, str(key))

    walk(yaml_files.safe_load(nav[: end.start() + 5] if end else nav)["nav"])
    return found
