"""Record what every install command the site and the doctor print installs (needs PyPI).

    python -m scripts.commands_record            # resolve all, write data/commands_record.json
    python -m scripts.commands_record --list     # the offers only, no network
    python -m scripts.commands_record --keep     # resolve only offers the record lacks

Collects the commands in docs/ and data/ (scripts/installs/commands.py), the doctor's fixes
on its faked machines (scripts/doctor/fix_matrix.py) and each symptom's fix code where its
readers are (its `onto`), resolves each with pip for its recipe's
platforms and Pythons (scripts/installs/resolve.py), and reports what leaves its recipe's pins.
"""

from __future__ import annotations

import argparse
import sys

from scripts.core import mac_recipes
from scripts.doctor import fix_matrix
from scripts.doctor.checks import legacy_keras
from scripts.installs import commands, record


def doctor_fixes() -> list[record.DoctorFix]:
    """Every fix the doctor prints on its faked machines, as plain data."""
    found = []
    for machine in fix_matrix.machines():
        facts = machine.facts
        installed = {name: v for name, v in facts.packages.items() if v}
        for check in fix_matrix.fixes(machine):
            found.append(record.DoctorFix(
                where=f"doctor {check.name}: {machine.label}", fix=check.fix,
                platform=machine.platform, python=facts.python.rsplit(".", 1)[0],
                installed=installed, legacy=legacy_keras(facts),
            ))  # fmt: skip
    return found


def offers() -> tuple[dict[record.Offer, set[str]], dict[str, str]]:
    """Every offer of every printed command, with where it is printed; and the skipped ones."""
    printed, skipped = record.printed_offers(commands.from_docs() + commands.from_data())
    given = record.doctor_offers(doctor_fixes())
    recommended = mac_recipes.recommended()["install"]
    for offer, where in record.symptom_offers(commands.symptom_entries(), recommended).items():
        given.setdefault(offer, set()).update(where)
    for offer, where in given.items():
        printed.setdefault(offer, set()).update(where)
    return printed, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the offers; resolve nothing")
    parser.add_argument("--workers", type=int, default=2, help="pip processes at once")
    parser.add_argument(
        "--keep",
        action="store_true",
        help="keep the record's entries for offers it holds (with their dates); resolve only "
        "new offers and drop entries no command offers any more",
    )
    args = parser.parse_args(argv)
    found, skipped = offers()
    if args.list:
        for offer in sorted(found, key=lambda o: o.key()):
            print(f"{offer.recipe:26} {offer.platform:14} {offer.python:5} {offer.command}"
                  + (f"  [onto {' '.join(offer.onto)}]" if offer.onto else ""))  # fmt: skip
        print(f"{len(found)} offers of {len({o.command for o in found})} commands")
        return 0
    kept = record.load()["entries"] if args.keep and record.RECORD.exists() else []
    data = record.build(found, skipped, workers=args.workers, kept=kept)
    record.write(data)
    problems = record.problems(found, data)
    print(f"{len(data['entries'])} offers of {len({o.command for o in found})} commands "
          f"resolved into {record.RECORD.relative_to(record.project_files.ROOT)}")  # fmt: skip
    for problem in problems:
        print(f"  {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
