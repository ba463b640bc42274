"""Every version git has of a snippet file, by the SHA-256 that results entries record.

Results keep entries of older snippet versions; these functions find those versions' text
again (`git log` and `git show`), for the validator and for the workload table. Without git,
or in a shallow clone, only the versions the history holds are found.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path

from scripts.core.project_files import ROOT

GIT_TIMEOUT_S = 30
SNIPPET_PATH = re.compile(r"snippets/[^/]+/[^/_][^/]*\.py")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, timeout=GIT_TIMEOUT_S, check=False
    )


def history(relpath: str, root: Path = ROOT) -> dict[str, bytes]:
    """SHA-256 -> text of every version of the file in git history (empty without git)."""
    found: dict[str, bytes] = {}
    try:
        commits = _git(root, "log", "--format=%H", "--", relpath).stdout.decode().split()
        for commit in commits:
            blob = _git(root, "show", f"{commit}:{relpath}")
            if blob.returncode == 0:  # the commit that deleted the file has no version
                found[hashlib.sha256(blob.stdout).hexdigest()] = blob.stdout
    except (OSError, subprocess.SubprocessError):
        pass  # no git: no history is known
    return found


def known_hashes(relpath: str, root: Path = ROOT) -> set[str]:
    """SHA-256 of the file today and of every version git has of it."""
    hashes = set(history(relpath, root))
    path = root / relpath
    if path.exists():
        hashes.add(hashlib.sha256(path.read_bytes()).hexdigest())
    return hashes


def snippet_paths(root: Path = ROOT) -> list[str]:
    """Every snippets/<topic>/<name>.py that git history has held, and those on disk now."""
    try:
        listed = _git(root, "log", "--format=", "--name-only", "--", "snippets")
        names = set(listed.stdout.decode().split())
    except (OSError, subprocess.SubprocessError):
        names = set()
    names |= {p.relative_to(root).as_posix() for p in (root / "snippets").glob("*/*.py")}
    return sorted(n for n in names if SNIPPET_PATH.fullmatch(n))
