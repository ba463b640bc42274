"""Run the guide's experiments on your own model and say which change helps (issue 19).

`python -m scripts.tune my_model.py`, `make tune FILE=my_model.py` or
`python tf-doctor.pyz tune my_model.py`; the file's contract is in scripts/tuning/model_file.py
and `--template` prints a file to start from.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.core import guide_links, json_files, project_files
from scripts.tuning import experiments, report, runner

TEMPLATE = project_files.ROOT / "scripts" / "tuning" / "template.py"
# The worked example on the Tune your own model page: the report of a committed run, written
# by --write-page on the machine that ran it (never typed), as the doctor's page output is.
PAGE_DIR = project_files.ROOT / "docs" / "_generated" / "tune"


def parse_args(argv: list[str] | None, prog: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure which of the guide's changes speed up your model, each an A/B "
        "with a 95% interval, on this machine.",
    )
    parser.add_argument("file", type=Path, nargs="?", help="your model file (see --template)")
    parser.add_argument("--template", action="store_true", help="print a model file to copy")
    parser.add_argument(
        "--only",
        action="append",
        choices=experiments.ORDER,
        metavar="EXPERIMENT",
        help=f"run only this experiment (repeatable): {', '.join(experiments.ORDER)}",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=runner.DEFAULT_BUDGET_S,
        metavar="SECONDS",
        help="a target for the whole run, shared among the experiments; more rounds, narrower "
        "intervals. Every variant still gets its minimum rounds (five), so a short budget runs "
        "over; a fast model stops at the maximum rounds, before it (default %(default)g)",
    )
    parser.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    parser.add_argument(
        "--html", type=Path, metavar="FILE", help="also write the report as one HTML page"
    )
    parser.add_argument(
        "--write-page",
        metavar="NAME",
        help=f"also write the text report to {PAGE_DIR.relative_to(project_files.ROOT)}/NAME.txt "
        "and the JSON beside it (the Tune your own model page's example)",
    )
    # How the input experiment's variants are timed (runner.DESIGNS; the default is the one
    # benchmarks/tune/ground_truth.py chose): for that benchmark, and for tests that run the
    # input experiment live without starting a process per variant.
    parser.add_argument(
        "--design", choices=runner.DESIGNS, default=runner.DESIGNS[0], help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if not args.template and args.file is None:
        parser.error("give your model file, or --template to print one")
    return args


def main(argv: list[str] | None = None, prog: str = "python -m scripts.tune") -> int:
    args = parse_args(argv, prog)
    if args.template:
        sys.stdout.write(project_files.read_text(TEMPLATE))
        return 0
    # Progress goes to stderr when stdout carries JSON.
    stream = sys.stderr if args.json else sys.stdout

    def say(line: str) -> None:
        print(line, file=stream, flush=True)

    found = runner.tune(args.file, args.only, args.budget, say, design=args.design)
    say("")
    # The guide's sections as pages of the site that tf-doctor.pyz came from, as the doctor
    # names them; from a checkout (no site address) as repository paths.
    site = guide_links.site_url()
    sys.stdout.write(report.to_json(found) if args.json else report.to_text(found, site))
    if args.write_page and not (found["error"] or found["interrupted"]):
        # the page's example keeps repository paths, as the doctor's page output does
        PAGE_DIR.mkdir(parents=True, exist_ok=True)
        (PAGE_DIR / f"{args.write_page}.txt").write_text(report.to_text(found), encoding="utf-8")
        json_files.write_json_atomic(PAGE_DIR / f"{args.write_page}.json", found)
        say(f"wrote {PAGE_DIR / args.write_page}.txt and .json")
    if args.html:
        args.html.write_text(report.to_html(found, site), encoding="utf-8")
        say(f"wrote {args.html}")
    if found["error"]:
        return 2
    return 130 if found["interrupted"] else 0


if __name__ == "__main__":
    sys.exit(main())
