"""Each claim's measured rows per (machine, stack), as the findings stage decided them.

The claim boxes, the factor pages' stack parts, the Results page and the What changed page all
read these rows (scripts/findings/claim_rows.py), so they cannot disagree: a row's outcome reads
the long-run interval against the claim's range; the band for a new session is shown beside it.
"""

from __future__ import annotations

from pathlib import Path

from scripts.core import measured_stacks, outcomes
from scripts.core.catalog import ROOT
from scripts.findings import claim_rows
from scripts.findings.pairs import Findings
from scripts.rendering import names

RESULTS_PAGE = "results.md"

Figure = claim_rows.Row


def figures(
    claim_list: list[dict],
    stack_data: list[dict],
    root: Path = ROOT,
    findings: Findings | None = None,
) -> list[Figure]:
    """Every claim's evidence on every (machine, stack) view that has the timings, in
    claim-file order, then evidence, machine and stack order."""
    findings = findings or Findings(stack_data)
    return claim_rows.rows(claim_list, findings, stack_data, root)


MARKS = {outcomes.SUPPORTED: "✓", outcomes.INCONCLUSIVE: "?", outcomes.CONTRADICTED: "✗"}


def words(row: Figure) -> str:
    """'1.17× (1.05–1.31) ✓': a row's speed-up, long-run interval and mark."""
    found = row.found
    return f"{names.speedup(found.point, found.low, found.high)} {MARKS[row.outcome]}"


def stacks_measured(stack_data: list[dict]) -> dict[str, list[str]]:
    """{machine id: its stacks}, in the views' order."""
    stacks: dict[str, list[str]] = {}
    for data in stack_data:
        stacks.setdefault(data["machine"]["id"], []).append(data["stack"])
    return stacks


def several_stacks(stack_data: list[dict]) -> bool:
    """Whether the results hold more than one stack anywhere."""
    return len({data["stack"] for data in stack_data}) > 1


def stack_link(stack: str, page: str = RESULTS_PAGE) -> str:
    """'[`tf216-tf-keras`](results.md#stack-tf216-tf-keras)': the stack's verdicts."""
    return f"[`{stack}`]({page}#stack-{stack})"


def stack_title(stack: str) -> str:
    """The stack's title from data/measured_stacks.yml, or words for a stack not listed."""
    for listed in measured_stacks.load():
        if listed.id == stack:
            return listed.title
    return "not one of the stacks the guide measures (data/measured_stacks.yml)"


def all_stacks(stack_data: list[dict]) -> list[str]:
    """The guide's stacks (data/measured_stacks.yml order), then any other stack measured."""
    listed = [stack.id for stack in measured_stacks.load()]
    return listed + sorted({d["stack"] for d in stack_data} - set(listed))
