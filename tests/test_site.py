"""The site builds with --strict, includes every snippet, and loads nothing from other hosts."""

from __future__ import annotations

import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

from scripts import catalog

INCLUDE = re.compile(r'--8<-- "(snippets/[^":]+\.py)(?::[\w-]+)?"')


@pytest.fixture(scope="module")
def built_site(tmp_path_factory, root) -> Path:
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return site


def test_every_snippet_is_included_by_a_page(root):
    included = {
        m for page in (root / "docs").rglob("*.md") for m in INCLUDE.findall(page.read_text())
    }
    missing = [s.relpath for s in catalog.all_snippets() if s.relpath not in included]
    assert not missing, f"snippets no page shows: {missing}"


def test_pages_and_charts_are_built(built_site):
    for page in ["index.html", "setup/index.html", "how-we-measure/index.html",
                 "input-pipeline/index.html", "doctor/index.html"]:  # fmt: skip
        assert (built_site / page).exists(), page
    html = (built_site / "input-pipeline" / "index.html").read_text()
    assert "_generated/input_pipeline/feeding.svg" in html
    assert (built_site / "_generated" / "input_pipeline" / "feeding.svg").exists()
    # The snippet's code, included from the file (highlighting splits it into spans).
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert "def train_from_generator(" in text


def test_nothing_is_fetched_from_another_host(built_site):
    remote = re.compile(r'<(?:script|link|img)[^>]+(?:src|href)="(https?:)?//', re.IGNORECASE)
    for page in built_site.rglob("*.html"):
        found = remote.findall(page.read_text())
        assert not found, f"{page.relative_to(built_site)} loads from another host"
    assert not list(built_site.rglob("*.css")) or all(
        "fonts.googleapis" not in css.read_text() for css in built_site.rglob("*.css")
    )
