"""The site builds with --strict, includes every snippet, and loads nothing from other hosts."""

from __future__ import annotations

import hashlib
import re
import subprocess
from html import unescape
from pathlib import Path

from scripts.core import catalog
from tests.site_build import build_site, copy_project, keep_only_pages

INCLUDE = re.compile(r'--8<-- "(snippets/[^":]+\.py)(?::[\w-]+)?"')


REPOSITORY = {
    "REPO_URL": "https://github.com/example-owner/tf-guide",
    "SITE_URL": "https://example-owner.github.io/tf-guide/",
    "EDIT_URI": "edit/main/docs/",
}


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


def page_text(site: Path, page: str) -> str:
    return unescape(re.sub(r"<[^>]+>", "", (site / page).read_text()))


def test_a_local_build_shows_no_repository_placeholder(built_site, root):
    origin = subprocess.run(
        ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
        capture_output=True, text=True, check=False,
    ).stdout.strip()  # fmt: skip
    for page in built_site.rglob("*.html"):
        html = page.read_text()
        assert "REPOSITORY_URL" not in html, page
        assert "&lt;this repository&gt;" not in html and "<this repository>" not in html, page
    text = page_text(built_site, "index.html")
    if not origin.startswith(("https://", "git@")):
        assert "git clone" not in text and "your clone of this guide's repository" in text


def test_a_published_build_links_its_repository(tmp_path_factory, root):
    # The pages checked, built from a copy holding only them: the whole site is built once
    # (built_site), with no repository, for the other tests.
    pages = ["index.md", "setup.md", "contribute.md", "memory.md"]
    copy = copy_project(root, tmp_path_factory.mktemp("published") / "project")
    keep_only_pages(copy, pages)
    site = build_site(copy, copy / "site", strict=False, repository=REPOSITORY)
    url = REPOSITORY["REPO_URL"]
    assert f"git clone {url}.git tf-apple-silicon-guide" in page_text(site, "index.html")
    assert f"git clone {url}.git tf-apple-silicon-guide" in page_text(site, "setup/index.html")
    contribute = (site / "contribute" / "index.html").read_text()
    assert f'href="{url}/compare"' in contribute
    for page in ("index.html", "setup/index.html", "memory/index.html"):
        html = (site / page).read_text()
        assert f'href="{url}"' in html, f"{page}: no link to the repository"
        source = "index.md" if page == "index.html" else page.replace("/index.html", ".md")
        assert f'href="{url}/edit/main/docs/{source}"' in html, f"{page}: no edit link"
    assert (
        'rel="canonical" href="https://example-owner.github.io/tf-guide/'
        in (site / "setup" / "index.html").read_text()
    )


def test_the_doctor_file_is_published_with_the_checksum_the_page_gives(built_site):
    archive = built_site / "tf-doctor.pyz"
    assert archive.exists() and archive.stat().st_size > 10_000
    checksum = hashlib.sha256(archive.read_bytes()).hexdigest()
    text = page_text(built_site, "doctor/index.html")
    assert f"SHA-256 is {checksum}" in text
    assert f"({archive.stat().st_size:,} bytes)" in text
    assert "DOCTOR_ZIPAPP" not in text
