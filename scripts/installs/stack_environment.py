"""Build a measured stack's own virtual environment from its lock (data/measured_stacks.yml).

The environment is made with this Python's venv module and filled by uv from the stack's lock
with every hash required and no resolving (--no-deps: the lock already lists every package).
A stamp beside it records the lock it was built from, so a changed lock rebuilds it and an
unchanged one is left as it is. The two TensorFlow 2.16.2 stacks live in .venv: `make venv`.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from scripts.core import measured_stacks, project_files

STAMP = ".installed-lock-sha256"


def lock_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build(
    stack: measured_stacks.Stack,
    root: Path = project_files.ROOT,
    run: Callable[[list[str]], None] = lambda command: subprocess.run(command, check=True),
    say: Callable[[str], None] = print,
) -> Path:
    """The stack's environment, built or refreshed from its lock; returns its Python."""
    if stack.lock is None:
        say(f"{stack.id} lives in {stack.environment}: `make venv` builds it")
        return stack.interpreter(root)
    lock = root / stack.lock
    if not lock.exists():
        raise measured_stacks.StackError(f"{stack.id}: its lock {stack.lock} does not exist")
    home = root / stack.environment
    stamp = home / STAMP
    digest = lock_digest(lock)
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == digest:
        say(f"{stack.id}: {stack.environment} is up to date with {stack.lock}")
        return stack.interpreter(root)
    if not stack.interpreter(root).exists():
        run([sys.executable, "-m", "venv", str(home)])
    uv = Path(sys.executable).parent / "uv"
    run([str(uv), "pip", "install", "--quiet", "--python", str(stack.interpreter(root)),
         "--require-hashes", "--no-deps", "--compile-bytecode", "-r", str(lock)])  # fmt: skip
    stamp.write_text(digest + "\n", encoding="utf-8")
    say(f"{stack.id}: {stack.environment} built from {stack.lock}")
    return stack.interpreter(root)
