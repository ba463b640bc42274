"""The run lock: one measuring run at a time on this machine, since a second would load the
cores being timed."""

from __future__ import annotations

import fcntl
import os
import sys
import tempfile
from pathlib import Path


def run_lock_path() -> Path:
    """Machine-wide, so a run into a scratch --results-dir counts too ($MEASURE_LOCK moves it)."""
    default = Path(tempfile.gettempdir()) / "tf-guide-measure.lock"
    return Path(os.environ.get("MEASURE_LOCK") or default)


def hold_run_lock() -> object | None:
    """The open lock file while this run holds the machine, or None if another run does."""
    path = run_lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "a+")  # held open (and locked) for the whole run
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip() or "unknown"
        handle.close()
        print(
            f"error: another measuring run (process {holder}) is using this machine "
            f"({path}); wait for it to finish, since two runs would slow each other's "
            "timings. Nothing was measured.",
            file=sys.stderr,
        )
        return None
    handle.seek(0)
    handle.truncate()
    handle.write(str(os.getpid()))
    handle.flush()
    return handle
