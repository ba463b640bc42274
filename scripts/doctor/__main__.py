"""Command line: `python -m scripts.doctor [--json | --plain] [--timeout S] [--write-page]`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.core import guide_links
from scripts.doctor import facts, report, rules

PAGE_OUTPUT = facts.ROOT / "docs" / "_generated" / "doctor" / "output.txt"


def main(argv: list[str] | None = None, prog: str = "python -m scripts.doctor") -> int:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check this machine's TensorFlow set-up. Exit status 1 if a check FAILs.",
    )
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="machine-readable output")
    form.add_argument("--plain", action="store_true", help="no colour, even on a terminal")
    parser.add_argument(
        "--timeout",
        type=float,
        default=facts.CHILD_TIMEOUT_S,
        help="seconds allowed for importing TensorFlow (default %(default)g)",
    )
    parser.add_argument(
        "--write-page",
        nargs="?",
        type=Path,
        const=PAGE_OUTPUT,
        metavar="PATH",
        help="also write the plain output for docs/doctor.md "
        f"(default {PAGE_OUTPUT.relative_to(facts.ROOT)})",
    )
    args = parser.parse_args(argv)
    if hasattr(sys.stdout, "reconfigure"):  # an odd terminal encoding must not crash the report
        sys.stdout.reconfigure(errors="replace")

    collected = facts.collect(timeout=args.timeout)
    checks = rules.run_all(collected)
    if args.json:
        sys.stdout.write(report.to_json(checks, collected))
    else:
        colour = not args.plain and report.use_colour(sys.stdout)
        site = guide_links.site_url()  # the published guide's, inside tf-doctor.pyz
        sys.stdout.write(report.to_text(checks, colour=colour, prog=prog, site=site))
    if args.write_page:
        args.write_page.parent.mkdir(parents=True, exist_ok=True)
        args.write_page.write_text(report.to_text(checks), encoding="utf-8")
        print(f"wrote {args.write_page}", file=sys.stderr)
        return 0
    return report.exit_code(checks)


if __name__ == "__main__":
    sys.exit(main())
