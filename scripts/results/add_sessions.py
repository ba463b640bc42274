"""Add the sessions of a results file measured elsewhere (another host of the same machine
kind, a contributor's run into a scratch folder) to results/<machine-id>.json.

Usage: python -m scripts.add_sessions FILE [FILE ...] [--results-dir DIR]
Each file is read and checked first (a version-1 file is split into sessions); its sessions
join the machine's file beside the ones there, which are never changed. A session whose id is
already there is refused unless it is the same session.
"""

from __future__ import annotations

import argparse
import fcntl
import sys
from pathlib import Path

from scripts.core import plain_text, provenance
from scripts.core import store as results


def origin_words(path: Path) -> str:
    """Where a session came from, as plain text (a hostile file name becomes 'a file')."""
    name = f"added from {path.name}"
    return name if len(name) <= 200 and plain_text.problem(name) is None else "added from a file"


def add(source: Path, results_dir: Path) -> list[str]:
    """Add source's sessions to its machine's file; the ids of the sessions added."""
    incoming = results.read(source)
    machine = incoming["machine"]
    target = results_dir / f"{machine['id']}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.with_name(f".{target.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = results.load_or_new(target, machine)
        if provenance.fingerprint(data["machine"]) != provenance.fingerprint(machine):
            raise results.ResultsError(
                f"{source}: machine {machine['description']!r} is not the machine of {target}"
            )
        known = {s["id"]: s for s in data["sessions"]}
        added = []
        for session in incoming["sessions"]:
            there = known.get(session["id"])
            if there is not None:
                if there["entries"] != session["entries"]:
                    raise results.ResultsError(
                        f"{source}: session {session['id']} is already in {target} with other "
                        "entries; nothing was added"
                    )
                continue
            data["sessions"].append({**session, "origin": origin_words(source)})
            added.append(session["id"])
        data["sessions"].sort(key=lambda s: s["id"])
        results.check(data, str(target))
        results.write_json_atomic(target, data)
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.add_sessions", description=__doc__)
    parser.add_argument("files", nargs="+", type=Path, help="results files to add")
    parser.add_argument("--results-dir", type=Path, default=results.RESULTS_DIR)
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            added = add(path, args.results_dir)
        except results.ResultsError as error:
            print(f"error: {error}", file=sys.stderr)
            status = 1
            continue
        print(
            f"{path}: {len(added)} session(s) added" + (f" ({', '.join(added)})" if added else "")
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
