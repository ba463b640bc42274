"""Each claim's evidence rows (evidence item x machine x stack) with their outcomes, and the
headline verdicts those rows allow: the written rule of How we measure, in code.

The rule, written before reading which claims it flags (issue 34, item 5). Rows are the claim's
measured (not analogue) evidence on every machine and stack with current results.
- "holds" and "wrong" rest on the measurements: at least one row supports the verdict's range,
  no row contradicts it, and no more rows are inconclusive than supported.
- "holds with conditions" and "wrong here" rest on the measurements with a stated limit: at
  least one row supports it, and every contradicted row is recorded with the claim
  (`contradicted_on`, the condition the page states).
- "reported" and "cannot be tested here" rest on cited sources: the claim cites at least one,
  and no measured row contradicts it; "cannot be tested here" has no measured row at all.
- A claim without measured rows rests on its sources or on its analogues, whatever its
  verdict: it cites a source, or it has analogue rows, at least one supporting and none
  contradicting its range.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from scripts.core import outcomes
from scripts.core.catalog import ROOT, is_current
from scripts.findings.pairs import Finding, Findings

MEASURED = ("holds", "wrong")
QUALIFIED = ("holds with conditions", "wrong here")
SOURCED = ("reported", "cannot be tested here")


@dataclass(frozen=True)
class Row:
    """One claim evidence item measured on one machine with one stack."""

    claim: dict
    evidence: dict
    machine: str  # machine id
    description: str  # the machine's description, escaped as pages show it
    stack: str
    found: Finding
    outcome: str  # outcomes.SUPPORTED, INCONCLUSIVE or CONTRADICTED, on the long-run interval

    @property
    def verdict(self) -> str:
        return self.outcome

    @property
    def bounds(self) -> tuple[float, float]:
        """The long-run interval the outcome reads."""
        return (self.found.low, self.found.high)

    @property
    def band(self) -> tuple[float, float]:
        """Where a new session lands: what a re-run should show."""
        return (self.found.band_low, self.found.band_high)

    def words(self) -> str:
        """'1.17× (1.05–1.31) supported'."""
        return (
            f"{self.found.point:.2f}× ({self.found.low:.2f}–{self.found.high:.2f}) {self.outcome}"
        )

    @property
    def analogue(self) -> bool:
        return bool(self.evidence.get("analogue"))

    @property
    def recorded(self) -> str | None:
        """What the claim's file says about this machine (and stack, where it names one)
        contradicting the range, or None."""
        for record in self.evidence.get("contradicted_on", []):
            if record["machine"] == self.machine and record.get("stack", self.stack) == self.stack:
                return record["why"]
        return None


def current_pair(view: dict, evidence: dict, root: Path = ROOT) -> bool:
    """Whether both entries exist in the view and measure today's snippet's workload."""
    entries = view["entries"]
    pair = [entries.get(evidence["baseline"]), entries.get(evidence["variant"])]
    return all(e is not None and is_current(e, root) for e in pair)


def evidence_finding(
    findings: Findings, view: dict, evidence: dict, root: Path = ROOT
) -> Finding | None:
    """An evidence item's finding in one view; None if missing, not current or untimed."""
    if not current_pair(view, evidence, root):
        return None
    stat = evidence.get("baseline_stat", "median_s")
    return findings.pair(view, evidence["baseline"], evidence["variant"], stat)


def rows(
    claim_list: list[dict], findings: Findings, views: list[dict], root: Path = ROOT
) -> list[Row]:
    """Every claim's evidence on every view that has the timings, in claim-file order, then
    evidence, machine and stack order."""
    found = []
    for claim in claim_list:
        for evidence in claim.get("evidence", []):
            for view in views:
                finding = evidence_finding(findings, view, evidence, root)
                if finding is None:
                    continue
                found.append(
                    Row(
                        claim,
                        evidence,
                        view["machine"]["id"],
                        view["machine"]["description"],
                        view.get("stack", ""),
                        finding,
                        finding.outcome(evidence),
                    )
                )
    return found


@dataclass(frozen=True)
class Tally:
    """A claim's measured rows counted by outcome, across machines and stacks."""

    supported: int
    inconclusive: int
    contradicted: int
    unrecorded: int  # contradicted rows the claim's file does not record
    machines: int  # machines with a measured row
    machines_supporting: int  # machines where every measured row of the claim is supported

    @property
    def total(self) -> int:
        return self.supported + self.inconclusive + self.contradicted


def tally(claim_rows: list[Row]) -> Tally:
    measured = [row for row in claim_rows if not row.analogue]
    by_machine: dict[str, list[str]] = {}
    for row in measured:
        by_machine.setdefault(row.machine, []).append(row.outcome)
    count = [row.outcome for row in measured]
    return Tally(
        supported=count.count(outcomes.SUPPORTED),
        inconclusive=count.count(outcomes.INCONCLUSIVE),
        contradicted=count.count(outcomes.CONTRADICTED),
        unrecorded=sum(
            1 for row in measured if row.outcome == outcomes.CONTRADICTED and not row.recorded
        ),
        machines=len(by_machine),
        machines_supporting=sum(
            all(o == outcomes.SUPPORTED for o in found) for found in by_machine.values()
        ),
    )


def headline_problem(claim: dict, claim_rows: list[Row]) -> str | None:
    """Why the claim's headline verdict breaks the written rule against its rows, or None."""
    verdict, count = claim["verdict"], tally(claim_rows)
    rows_words = (
        f"{count.supported} supported, {count.inconclusive} inconclusive and "
        f"{count.contradicted} contradicted measured rows"
    )
    if not count.total:
        analogues = [row.outcome for row in claim_rows if row.analogue]
        if claim.get("sources") or (
            outcomes.SUPPORTED in analogues and outcomes.CONTRADICTED not in analogues
        ):
            return None
        return (
            f"{verdict!r} has no measured row, so it needs a cited source or a supporting "
            "analogue row with none contradicting it"
        )
    if verdict in MEASURED:
        if count.contradicted or not count.supported or count.inconclusive > count.supported:
            return (
                f"{verdict!r} needs a supported row, none contradicted and no more inconclusive "
                f"than supported; it has {rows_words}"
            )
    elif verdict in QUALIFIED:
        if not count.supported or count.unrecorded:
            return (
                f"{verdict!r} needs a supported row and every contradicted row recorded "
                f"(contradicted_on); it has {rows_words}, {count.unrecorded} unrecorded"
            )
    elif verdict == "cannot be tested here":
        return f"{verdict!r} cannot have measured rows; it has {rows_words}"
    elif not claim.get("sources") or count.contradicted:
        return f"{verdict!r} needs a cited source and no contradicted row; it has {rows_words}"
    return None


def headline_words(claim: dict, claim_rows: list[Row]) -> str:
    """'✓ on all 18 rows, 4 machines' or '2 of 3 rows ✓, 1 ?, 0 ✗ (1 machine)'."""
    count = tally(claim_rows)
    if not count.total:
        return "no measured row: the verdict rests on the cited sources"
    machines = f"{count.machines} machine{'s' if count.machines != 1 else ''}"
    if count.supported == count.total:
        return f"✓ on all {count.total} rows, {machines}"
    return (
        f"{count.supported} of {count.total} rows ✓, {count.inconclusive} ?, "
        f"{count.contradicted} ✗ ({machines})"
    )
