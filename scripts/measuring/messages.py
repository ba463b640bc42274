"""What the harness (measure.py) and its child (measure_child.py) tell each other.

The parent asks with a ChildRequest, given to the child as its command line; the child
answers with a ChildReport, written as JSON to the file named by --out (after every round, so a
crash leaves what was measured). A report of isolated variants (alternating processes) is
the same shape, merged by the parent from one child per variant per process round.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict


@dataclass(frozen=True)
class ChildRequest:
    """One child's work: a snippet's variants (all when none is named), timed as the method
    says; `argv` is the command line measure_child reads it from."""

    snippet: str
    size: str
    warmup: int
    min_rounds: int
    max_rounds: int
    budget_s: float
    seed: int
    variants: tuple[str, ...] = ()

    @classmethod
    def of(cls, snippet: str, method: dict, variants: list[str] | None = None) -> ChildRequest:
        return cls(snippet, method["size"], method["warmup"], method["min_rounds"],
                   method["max_rounds"], method["budget_s"], method.get("order_seed", 0),
                   tuple(variants or ()))  # fmt: skip

    def argv(self, out: Path, snippets_dir: Path) -> list[str]:
        command = [
            "--snippet", self.snippet, "--size", self.size, "--warmup", str(self.warmup),
            "--min-rounds", str(self.min_rounds), "--max-rounds", str(self.max_rounds),
            "--budget", str(self.budget_s), "--seed", str(self.seed), "--out", str(out),
            "--snippets-dir", str(snippets_dir),
        ]  # fmt: skip
        for variant in self.variants:
            command += ["--variant", variant]
        return command


class Schedule(TypedDict, total=False):
    """How a report's variants were interleaved: rounds in one child, or processes."""

    kind: str  # "interleaved rounds" or "alternating processes"
    order_seed: int
    run_started: str
    process_rounds: int
    runs_per_process: int


class VariantOutcome(TypedDict, total=False):
    """One variant: its statistics, or the error that stopped it. A variant measured again
    after its child crashed carries the schedule it was measured with and isolated=True."""

    stats: dict
    error: str
    traceback: str
    schedule: Schedule
    isolated: bool


class ChildReport(TypedDict, total=False):
    """A child's answer (or the parent's merge of several): what the snippet defines, each
    variant's outcome, and an error when the child could not finish."""

    snippet: str
    variants: dict[str, VariantOutcome]
    devices: list[str] | None
    error: str | None
    variant_labels: dict[str, str]
    variant_order: list[str]
    baseline: str
    references: list[str]
    schedule: Schedule
    isolated: bool


class Output(TypedDict, total=False):
    """A snippet's own printed output, run as a reader runs it, or why it could not be."""

    text: str
    size: str
    error: str
    snippet_sha256: str
    date: str
