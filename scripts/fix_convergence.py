"""Whether every fix the doctor and the symptom entries print leaves the reader on a working
recipe, offline, from the commands record (data/commands_record.json, `make commands-record`).

    python -m scripts.fix_convergence     # the counts, and every fix that does not converge

For each faked machine (scripts/doctor/fix_matrix.py) and each fix the doctor prints there,
and for each symptom entry's fix code on each of its readers (`onto`): every route of the fix
(scripts/installs/fix_routes.py) is applied. A command's packages afterwards are pip's, as the
record holds them for that environment; variables change as the route says. Those packages
and variables become the doctor's facts (fix_matrix.facts_after) and its rules run again.

A route converges when the check that gave the fix neither FAILs nor WARNs again for the same
reason (its finding, version numbers aside) and no check newly FAILs. A route pip refuses
installs nothing (the record's own check names it); a fix converges when at least one of its
routes does and every route pip resolves does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace

from scripts.core import mac_recipes, symptom_readers
from scripts.doctor import fix_matrix
from scripts.doctor.checks import Check, Status
from scripts.doctor.facts import PACKAGES, Facts
from scripts.doctor.rules import run_all
from scripts.installs import commands, fix_routes, record
from scripts.installs.commands import steps

VERSION = re.compile(r"\d+(?:\.\d+)+\S*")
TROUBLE = (Status.FAIL, Status.WARN)


@dataclass(frozen=True)
class Case:
    """One fix given to one environment: where it is printed, the check that gave it (None:
    a symptom without one), the facts before it, and its routes."""

    where: str
    check: str | None
    platform: str
    before: Facts
    routes: list[fix_routes.Route]


@dataclass
class Outcome:
    """What each route of a case led to."""

    case: Case
    converged: list[str] = field(default_factory=list)  # the routes that converge
    refused: list[str] = field(default_factory=list)  # routes pip refuses (installs nothing)
    failed: list[str] = field(default_factory=list)  # "route: why" for the others

    @property
    def converges(self) -> bool:
        return bool(self.converged) and not self.failed


def reason(check: Check) -> str:
    """A check's finding with the version numbers taken out: the same reason at any version."""
    return VERSION.sub("V", check.found)


def doctor_cases() -> list[Case]:
    """Every fix the doctor prints on the faked machines that has a command or a variable."""
    cases = []
    for machine in fix_matrix.machines():
        for check in fix_matrix.fixes(machine):
            routes = fix_routes.from_fix_text(check.fix)
            if routes:
                where = f"doctor {check.name}: {machine.label}"
                cases.append(Case(where, check.name, machine.platform, machine.facts, routes))
    return cases


def symptom_cases(entries: list[dict] | None = None) -> list[Case]:
    """Every symptom's fix code, once per reader its `onto` names."""
    recommended = mac_recipes.recommended()["install"]
    cases = []
    for entry in commands.symptom_entries() if entries is None else entries:
        where = f"data/symptoms.yml#{entry['id']}"
        for reader in symptom_readers.readers(entry):
            facts = fix_matrix.reader_facts(reader.python, dict(reader.packages), dict(reader.env))
            routes = [r for r in fix_routes.from_fix_code(entry["fix_code"], recommended)
                      if r.applies_to(reader.python)]  # fmt: skip
            installed = " ".join(reader.requirements()) or "nothing installed"
            label = f"{where}, Python {reader.python}, {installed}"
            cases.append(Case(label, entry.get("doctor"), "macos-arm64", facts, routes))
    return cases


def _index(data: dict) -> dict[tuple, dict]:
    """The record's entries by command, platform, Python and environment (any recipe)."""
    return {
        (e["command"], e["platform"], e["python"], tuple(e["onto"])): e for e in data["entries"]
    }


def _packages_after(
    route: fix_routes.Route, case: Case, entries: dict[tuple, dict]
) -> dict[str, str | None] | str:
    """The doctor's packages after the route, or why there are none ("refused: ...")."""
    before = {} if route.fresh else {k: v for k, v in case.before.packages.items() if v}
    if route.command is None:
        return before
    parts = steps(route.command)
    if not any(step.action == "install" for step in parts):
        removed = {p for step in parts for p in step.packages}
        return {k: v for k, v in before.items() if k not in removed}
    python = route.python or case.before.python.rsplit(".", 1)[0]
    key = (route.command, case.platform, python, record.onto_of(before))
    entry = entries.get(key)
    if entry is None:
        return "missing: not in the record (run `make commands-record`)"
    if entry["resolved"] is None:
        return f"refused: {entry['error']}"
    return {name: v for name, v in entry["resolved"].items() if name in PACKAGES and v}


def judge(case: Case, entries: dict[tuple, dict]) -> Outcome:
    """Apply each route of the case and run the doctor on the result."""
    outcome = Outcome(case)
    checks_before = {c.name: c for c in run_all(case.before)}
    failing_before = {name for name, c in checks_before.items() if c.status is Status.FAIL}
    for route in case.routes:
        label = route.command or " ".join(
            f"unset {k}" if v is None else f"export {k}={v}" for k, v in route.env
        )
        packages = _packages_after(route, case, entries)
        if isinstance(packages, str):
            target = outcome.refused if packages.startswith("refused") else outcome.failed
            target.append(f"{label}: {packages}")
            continue
        env = route.environment({} if route.fresh else case.before.env)
        before = replace(case.before, python=f"{route.python}.0") if route.python else case.before
        after = {c.name: c for c in run_all(fix_matrix.facts_after(before, packages, env))}
        why = []
        given = after.get(case.check) if case.check else None
        if given is not None and given.status is Status.FAIL:
            why.append(f"{given.name} still FAILs: {given.found}")
        elif given is not None and given.status is Status.WARN:
            old = checks_before.get(case.check)
            if old is not None and old.status in TROUBLE and reason(old) == reason(given):
                why.append(f"{given.name} still WARNs for the same reason: {given.found}")
        for name, check in after.items():
            if check.status is Status.FAIL and name not in failing_before and name != case.check:
                why.append(f"{name} now FAILs: {check.found}")
        if why:
            installed = ", ".join(f"{k} {v}" for k, v in sorted(packages.items()))
            outcome.failed.append(f"{label} -> [{installed}]: {'; '.join(why)}")
        else:
            outcome.converged.append(label)
    return outcome


def outcomes(data: dict | None = None, cases: list[Case] | None = None) -> list[Outcome]:
    """Every case judged against the record (the committed one unless given)."""
    entries = _index(data or record.load())
    return [judge(case, entries) for case in (cases or doctor_cases() + symptom_cases())]


def problems(found: list[Outcome]) -> list[str]:
    """One line per fix that does not converge."""
    lines = []
    for outcome in found:
        if outcome.converges:
            continue
        why = outcome.failed or ["no route converges: " + "; ".join(outcome.refused)]
        lines.append(f"{outcome.case.where} ({outcome.case.check}): " + " | ".join(why))
    return lines


def main() -> int:
    found = outcomes()
    bad = problems(found)
    machines = len(fix_matrix.machines())
    doctor = [o for o in found if o.case.where.startswith("doctor ")]
    fixed = {o.case.where.split(": ", 1)[1] for o in doctor}
    readers = len(found) - len(doctor)
    routes = [r for o in found for r in o.case.routes]
    resolved = sum(1 for r in routes if r.command and any(
        s.action == "install" for s in steps(r.command)))  # fmt: skip
    print(f"{machines} faked machines ({len(fixed)} given a fix with a command or a variable) "
          f"and {readers} symptom readers; {len(found)} fixes ({len(doctor)} from the doctor), "
          f"{len(routes)} routes ({resolved} resolved by pip, from the record); "
          f"{len(bad)} fixes that do not converge")  # fmt: skip
    for line in bad:
        print(f"  {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
