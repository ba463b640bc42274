"""Views of results files: what the findings, the pages and the tools read of a file for one
stack (`view`), each with the between-session spread that single sessions are widened by,
pooled over every file's sessions. The files themselves are read and checked by
scripts/core/store.py.
"""

from __future__ import annotations

from pathlib import Path

from scripts.core import measured_stacks, pooling, store, workload


def stacks_in(data: dict) -> list[str]:
    """The stacks a file has sessions of: data/measured_stacks.yml's order first, then any
    other stack by name."""
    found = {session["stack"] for session in data["sessions"]}
    listed = [stack.id for stack in measured_stacks.load() if stack.id in found]
    return listed + sorted(found - set(listed))


def own_stack(data: dict) -> str:
    """The stack a file is read as when none is named: the default stack where it has sessions
    of it, else the stack of its latest session (a file measured with STACK=... only)."""
    stacks = {session["stack"] for session in data["sessions"]}
    if measured_stacks.DEFAULT in stacks or not data["sessions"]:
        return measured_stacks.DEFAULT
    return data["sessions"][-1]["stack"]


def view(data: dict, spread: object = None, stack: str | None = None) -> dict:
    """What the pages read of a file for one stack: the machine, the latest entry and output
    of every variant and snippet across that stack's sessions, those sessions, and the
    between-session spread that single sessions are widened by (pooling.Spread, or None).

    stack: a stack id; None reads the file's own stack (own_stack). Sessions of any other
    stack never enter the view, so no page mixes two stacks."""
    stack = own_stack(data) if stack is None else stack
    sessions = [session for session in data["sessions"] if session["stack"] == stack]
    entries: dict = {}
    outputs: dict = {}
    measured_in: dict[str, int] = {}  # key -> the latest session that measured it
    snippet_last: dict[str, tuple[int, str]] = {}  # snippet -> (latest session, its version)
    for number, session in enumerate(sessions):  # oldest first, so the latest wins
        entries.update(session["entries"])
        outputs.update(session["outputs"])
        for key, entry in session["entries"].items():
            measured_in[key] = number
            snippet_last[entry["snippet"]] = (number, workload.key(entry))
    # A variant that a later version of its snippet no longer has is not shown (its sessions
    # keep it): the latest session to measure a snippet decides which variants it has, and a
    # variant it failed to measure keeps its entry of the same version.
    entries = {
        key: e
        for key, e in entries.items()
        if measured_in[key] == snippet_last[e["snippet"]][0]
        or workload.key(e) == snippet_last[e["snippet"]][1]
    }
    return {
        "machine": data["machine"],
        "stack": stack,
        "entries": entries,
        "outputs": outputs,
        "sessions": sessions,
        "spread": spread,
    }


def load_all(results_dir: Path = store.RESULTS_DIR) -> list[dict]:
    """Every results file in the folder as a view of the default stack (sorted by machine
    id), each with the between-session spread estimated from every stack's sessions."""
    return unchecked_views(store.read_all(results_dir))


def unchecked_views(files) -> list[dict]:
    """Views of already-parsed version-2 files (sorted by machine id), each of the default
    stack (measured_stacks.DEFAULT: what the factor pages show) and with the between-session
    spread of every stack's sessions; load_all checks the files first."""
    default, _, spread = _views_and_spread(files)
    return [{**v, "spread": spread} for v in default]


def stack_views(files) -> list[dict]:
    """A view per (machine, stack) the files have sessions of, sorted by machine id and then
    stack (stacks_in order), each with the same spread as unchecked_views gives."""
    _, views, spread = _views_and_spread(files)
    return [{**v, "spread": spread} for v in views]


def _views_and_spread(files) -> tuple[list[dict], list[dict], pooling.Spread | None]:
    """(the default stack's view of every file, a view per stack measured, the spread).

    One between-session spread serves every view: how far sessions scatter is a property of
    the measuring, and one figure keeps the stacks' intervals comparable."""
    files = sorted(files, key=lambda d: d["machine"]["id"])
    default = [view(data, stack=measured_stacks.DEFAULT) for data in files]
    views = [view(data, stack=stack) for data in files for stack in stacks_in(data)]
    others = [v for v in views if v["stack"] != measured_stacks.DEFAULT]
    return default, views, pooling.spread_of([*default, *others])
