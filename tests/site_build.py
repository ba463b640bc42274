"""Build the site for a test: one mkdocs invocation that every site test shares."""

from __future__ import annotations

import os
import subprocess
import sys
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
