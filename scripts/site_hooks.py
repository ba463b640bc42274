"""MkDocs hooks (mkdocs.yml `hooks:`): notebooks out of search, the repository's address, and
the doctor as one downloadable file.

A notebook repeats the code its factor page shows, so indexing it would make every search
hit appear twice and would double the search index that every page downloads.

Pages write `REPOSITORY_URL` where the repository's address belongs (a `git clone` line, a
link to open a pull request). The publishing workflow sets REPO_URL (and SITE_URL,
EDIT_URI) from the repository GitHub Actions runs in; a local build without them falls
back to this clone's `origin` remote, and with no address at all it shows no placeholder:
clone lines become a `cd` into "your copy", links become plain words.

Every build also publishes the data behind the pages (scripts/rendering/published_data.py): each
results file, a CSV of all entries and the results format's JSON Schema, under data/.

Every build also builds tf-doctor.pyz (scripts/doctor/zipapp.py) and publishes it beside the
pages; the Diagnose page's DOCTOR_ZIPAPP_SHA256 and DOCTOR_ZIPAPP_BYTES become its checksum
and size, so the page always describes the file it links to.

Pages cite sources by ledger id, `[text][id]`; every build reads data/sources.yml and gives
each citation its link and a hover text with the source's words and the date they were read
(scripts/rendering/citations.py). A citation of an id the ledger lacks stops the build.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

TOKEN = "REPOSITORY_URL"
ROOT = Path(__file__).resolve().parent.parent
# Only addresses a reader can clone from; a local path (a CI clone of a clone) is not one.
PUBLIC_URL = re.compile(r"(https://|git@)[\w.@:/~+-]+")


def repository_url(config) -> str | None:
    """repo_url from mkdocs.yml (set from REPO_URL), else this clone's public origin."""
    if config.get("repo_url"):
        return str(config["repo_url"]).rstrip("/")
    try:
        origin = subprocess.run(
            ["git", "-C", str(ROOT), "config", "--get", "remote.origin.url"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    origin = origin.removesuffix(".git")
    return origin if PUBLIC_URL.fullmatch(origin) else None


def with_repository(markdown: str, url: str | None) -> str:
    """The page with every REPOSITORY_URL replaced by the address, or written without one."""
    if url:
        return markdown.replace(f"git clone {TOKEN}", f"git clone {url}.git").replace(TOKEN, url)
    markdown = re.sub(
        rf"^(\s*)\$ git clone {TOKEN} (\S+)\s*$",
        r"\1$ # use your clone of this guide's repository, in \2",
        markdown,
        flags=re.MULTILINE,
    )
    markdown = re.sub(rf"\[([^\]]+)\]\({TOKEN}[^)]*\)", r"\1", markdown)
    return markdown.replace(TOKEN, "this guide's repository")


_LEDGER: dict = {}


def on_pre_build(config):
    """Read the source ledger once per build (again on each rebuild of `mkdocs serve`)."""
    sys.path.insert(0, str(ROOT))  # the hooks run inside mkdocs, not from the project root
    from scripts.core import sources

    try:
        _LEDGER["ledger"] = sources.load()
    except sources.SourcesError as error:
        raise PluginError(str(error)) from error


def _page_file(page) -> str:
    return f"docs/{page.file.src_uri}"


def on_files(files, config):
    """Build tf-doctor.pyz for this site and add it to the files the site publishes."""
    sys.path.insert(0, str(ROOT))
    from scripts.doctor import zipapp

    out = Path(tempfile.mkdtemp(prefix="tf-doctor-")) / zipapp.NAME
    zipapp.build(out, site_url=config.get("site_url"))
    files.append(File.generated(config, zipapp.NAME, abs_src_path=str(out)))
    config["extra"]["doctor_zipapp"] = {
        "sha256": zipapp.sha256(out),
        "bytes": out.stat().st_size,
    }
    # the results files, a CSV of them and their schema
    from scripts.rendering import published_data

    for path, content in published_data.site_files().items():
        files.append(File.generated(config, path, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    zipped = config["extra"].get("doctor_zipapp")
    if zipped:
        markdown = markdown.replace("DOCTOR_ZIPAPP_SHA256", zipped["sha256"])
        markdown = markdown.replace("DOCTOR_ZIPAPP_BYTES", f"{zipped['bytes']:,}")
    markdown = with_repository(markdown, repository_url(config))
    if page.file.src_uri.endswith(".ipynb"):
        return markdown
    from scripts.rendering import citations

    try:
        return citations.definitions(markdown, _page_file(page), _LEDGER["ledger"])
    except citations.CitationError as error:
        raise PluginError(str(error)) from error


def on_page_content(html, page, config, files):
    """Runs before the search plugin indexes the page (on_page_context)."""
    if page.file.src_uri.endswith(".ipynb"):
        page.meta["search"] = {"exclude": True}
        return html
    from scripts.rendering import citations

    return citations.titled(html, _page_file(page), page.markdown or "", _LEDGER["ledger"])
