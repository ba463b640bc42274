"""The measuring command's arguments, and the timing method they choose (a full run, or
--quick's small sizes and 3 rounds)."""

from __future__ import annotations

import argparse
from pathlib import Path

from scripts.core import catalog, measured_stacks


def stack_argument(text: str) -> measured_stacks.Stack:
    """The --stack value as a measured stack; an unknown id is a usage error naming the known."""
    try:
        return measured_stacks.by_id(text)
    except measured_stacks.StackError as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def parse_args(argv: list[str] | None, description: str | None = None) -> argparse.Namespace:
    """The command line; description is what --help says the command does."""
    parser = argparse.ArgumentParser(prog="python -m scripts.measure", description=description)
    parser.add_argument(
        "--only",
        action="append",
        metavar="SNIPPET",
        help="measure only this snippet or topic (repeatable), e.g. input_pipeline/feeding",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="small sizes and 3 rounds, written to build/quick-results/ (a pipeline check, "
        "not numbers to publish)",
    )
    parser.add_argument(
        "--stack",
        type=stack_argument,
        default=measured_stacks.DEFAULT,
        help="the software stack to measure on (data/measured_stacks.yml; default %(default)s); "
        "its snippets run with that stack's Python and TF_USE_LEGACY_KERAS",
    )
    parser.add_argument("--results-dir", type=Path, help="where results/<machine-id>.json goes")
    parser.add_argument("--list", action="store_true", help="list the measurable snippets")
    parser.add_argument(
        "--snippets-dir", type=Path, default=catalog.SNIPPETS_DIR, help=argparse.SUPPRESS
    )
    parser.add_argument("--timeout", type=float, default=1800, help="seconds per snippet")
    parser.add_argument(
        "--allow-dirty",
        action="store_true",
        help="write into results/ although the measured code has uncommitted changes",
    )
    parser.add_argument(
        "--no-output", action="store_true", help="do not capture the snippets' own printed output"
    )
    parser.add_argument(
        "--output", action="store_true", help="with --quick: capture the printed output too"
    )
    return parser.parse_args(argv)


def method_for(args: argparse.Namespace) -> dict:
    """How long to time: sizes, warm-ups, rounds, the budget per variant, and for snippets
    whose variants each need a fresh process, how many processes each variant gets in turn."""
    if args.quick:
        return {
            "size": "small", "warmup": 1, "min_rounds": 3, "max_rounds": 3, "budget_s": 0.0,
            "process_rounds": 1,
        }  # fmt: skip
    # Half the timed budget of the first design (8 s, up to 30 rounds): what moves a long-run
    # speed-up is the next sitting, not more rounds in this one, so a shorter sitting that can
    # be repeated on another boot or day narrows the intervals more for the same machine time
    # (stats review 2026-11-28, section 4.3). The minimum of 7 rounds stays.
    return {
        "size": "full", "warmup": 2, "min_rounds": 7, "max_rounds": 15, "budget_s": 4.0,
        "process_rounds": 3,
    }  # fmt: skip
