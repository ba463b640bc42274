"""Each claim's measured verdict per (machine, stack), and when two stacks' figures differ.

The claim boxes, the factor pages' stack parts, the Results page and the What changed page all
read these figures, so they cannot disagree. A figure is the speed-up pooled over one stack's
sessions on one machine (claims.pooled) with its 95% interval for a new session and what that
interval says of the claim's range (claims.status); the range is the claim's, whatever stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scripts.core import claims, measured_stacks, pooling
from scripts.core.catalog import ROOT

RESULTS_PAGE = "results.md"


@dataclass(frozen=True)
class Figure:
    """One claim evidence item measured on one machine with one stack."""

    claim: dict
    evidence: dict
    machine: str  # machine id
    description: str  # the machine's description, escaped as pages show it
    stack: str
    found: pooling.Pooled
    verdict: str  # claims.SUPPORTED, INCONCLUSIVE or CONTRADICTED

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.found.new_low, self.found.new_high)

    def words(self) -> str:
        """'1.17× (0.93–1.47) supported'."""
        low, high = self.bounds
        return f"{self.found.point:.2f}× ({low:.2f}–{high:.2f}) {self.verdict}"


def figures(claim_list: list[dict], stack_data: list[dict], root: Path = ROOT) -> list[Figure]:
    """Every claim's evidence on every (machine, stack) view that has the timings to pool,
    in claim-file order, then evidence, machine and stack order."""
    found = []
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            for data in stack_data:
                pooled = claims.pooled(data, evidence, root)
                if pooled is None:
                    continue
                bounds = (pooled.new_low, pooled.new_high)
                found.append(
                    Figure(
                        claim,
                        evidence,
                        data["machine"]["id"],
                        data["machine"]["description"],
                        data["stack"],
                        pooled,
                        claims.status(evidence, bounds),
                    )
                )
    return found


def moved(a: Figure, b: Figure) -> bool:
    """Whether one evidence item moved between two stacks on one machine: the verdicts differ,
    or the two new-session intervals do not overlap (decided before any second stack's data;
    the What changed page states it)."""
    return a.verdict != b.verdict or a.bounds[1] < b.bounds[0] or b.bounds[1] < a.bounds[0]


def grouped(found: list[Figure]) -> dict[tuple[int, str], list[Figure]]:
    """{(evidence item's identity, machine id): its figures, one per stack}, in order."""
    groups: dict[tuple[int, str], list[Figure]] = {}
    for figure in found:
        groups.setdefault((id(figure.evidence), figure.machine), []).append(figure)
    return groups


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
