"""The Diagnose page's second example: the doctor's plain report for the faked Mac of
scripts/doctor/faked_facts.py. No Mac runs it; the page labels it as faked.

    python -m scripts.doctor.faked_mac_page    # part of `make doctor-page`
"""

from __future__ import annotations

import sys

from scripts.doctor import facts, faked_facts, report, rules

OUTPUT = facts.ROOT / "docs" / "_generated" / "doctor" / "faked-mac.txt"


def text() -> str:
    """What `python -m scripts.doctor --plain` prints on a machine with the faked Mac's facts."""
    return report.to_text(rules.run_all(faked_facts.mac()))


def main() -> int:
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text(text(), encoding="utf-8")
    print(f"wrote {OUTPUT}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
