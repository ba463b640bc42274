"""Which sessions share a sitting: sessions of one sitting do not count as independent.

The rule, written before looking at which verdicts it moves (issue 34, item 3): two sessions
of one results file are of one sitting when they share a recorded boot id; a session without
one (files older than the boot record) is of the sitting of its UTC start date. A new boot,
another host or another day is a new sitting. Sessions of one sitting agree more with each
other than with the next sitting (back to back, same page cache, same frequency state), so
only sittings divide the between-sitting spread.
"""

from __future__ import annotations


def sitting_of(session: dict) -> str:
    """'boot df4a193b' or 'day 2026-11-23': the sitting a session belongs to."""
    boot = session.get("boot")
    if boot:
        return f"boot {boot}"
    return f"day {str(session['id'])[:10]}"
