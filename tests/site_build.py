"""Build the site for a test: one full mkdocs build that every site test shares, and small
builds of a copy of the project holding only the pages a test looks at (a published build, a
build from a hostile results file), so the whole site is built once per test run."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

# What the publishing workflow sets; a local build (the default here) has none of them.
REPOSITORY_VARIABLES = ("REPO_URL", "SITE_URL", "EDIT_URI")


def build_site(
    project: Path, site: Path, strict: bool = True, repository: dict[str, str] | None = None
) -> Path:
    """mkdocs build of project into site; fails the test with mkdocs' own output if it fails."""
    env = {k: v for k, v in os.environ.items() if k not in REPOSITORY_VARIABLES}
    env.update(repository or {}, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict" if strict else "--no-strict",
         "--site-dir", str(site)],
        cwd=project, capture_output=True, text=True, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return site


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on path, held across processes (pytest-xdist workers) until exit."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def made_once(shared: Path, name: str, make: Callable[[Path], object]) -> Path:
    """shared/name, made by make(path) once for every process of this test run that asks for
    it: the first one makes it under a file lock, the others wait for it and reuse it. A
    make that failed leaves no mark, so the next asker makes it again."""
    path, done = shared / name, shared / f"{name}.made"
    with file_lock(shared / f"{name}.lock"):
        if not done.exists():
            if path.is_dir():
                shutil.rmtree(path)  # left by a make that failed
            make(path)
            done.touch()
    return path


def build_site_once(project: Path, shared: Path, name: str = "site") -> Path:
    """The site built once for every process of this test run that asks for it."""
    return made_once(shared, name, lambda site: build_site(project, site))


def copy_project(project: Path, copy: Path) -> Path:
    """The project's files (no environments, git history or build output) copied to copy."""
    ignore = shutil.ignore_patterns(".venv*", ".git", "site", "test-output", "build", "*.pyc")
    shutil.copytree(project, copy, ignore=ignore)
    return copy


def keep_only_pages(copy: Path, pages: Iterable[str]) -> Path:
    """Leave whole in copy's docs/ only the named pages (e.g. "setup.md") and what they include
    or load (docs/_generated, stylesheets); every other page becomes a one-line stub (files the
    source ledger names must exist) and the notebooks go. Its build is small and not strict:
    the full build's strictness is tested on the full site."""
    keep = set(pages)
    missing = keep - {page.name for page in (copy / "docs").glob("*.md")}
    assert not missing, f"no such page in docs/: {sorted(missing)}"
    for page in (copy / "docs").glob("*.md"):
        if page.name not in keep:
            page.write_text("# Left out of this test's build\n", encoding="utf-8")
    shutil.rmtree(copy / "docs" / "notebooks", ignore_errors=True)
    return copy
