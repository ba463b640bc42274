"""Compare the speed-ups of two results files: how far each moved, and whether that is noise.

Usage: python -m scripts.compare A.json B.json   (make compare FILES="A.json B.json")

Every speed-up the two files share (a variant against its snippet's baseline, both measured
in each file; a file with several sessions gives each variant's latest) is printed side
by side, A's with its 95% band for a new session (widened by the guide's between-sitting
spread), the drift from A to B in percent, and a flag when the drift is beyond ±10% or B's
point falls outside A's band. Two runs on one
machine show how reproducible the numbers are; two machines show how they
differ. Claim speed-ups (data/claims/) are marked and counted on their own. The comparison
itself is scripts/findings/comparison.py; the table is scripts/rendering/drift_table.py's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.core import claims
from scripts.core import store as results
from scripts.findings import results_views
from scripts.findings.comparison import compare
from scripts.rendering.drift_table import summary, table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.compare", description=__doc__)
    parser.add_argument("a", type=Path, help="first results file")
    parser.add_argument("b", type=Path, help="second results file")
    args = parser.parse_args(argv)
    try:
        a, b = (results_views.view(results.read(path)) for path in (args.a, args.b))
    except results.ResultsError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    guide = results_views.stack_views(results.read_all())
    rows = compare(a, b, claims.load(), guide[0]["spread"] if guide else None)
    if not rows:
        print(f"error: {args.a} and {args.b} share no speed-up to compare", file=sys.stderr)
        return 2
    sys.stdout.write(table(rows, args.a.name, args.b.name))
    print("\n" + summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
