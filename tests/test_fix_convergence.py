"""Every fix the doctor and the symptom entries print leaves its reader on a working recipe,
offline, from the commands record (scripts/fix_convergence.py): pip's resolution of the fix on
the reader's environment becomes the doctor's facts, and the check that gave the fix no longer
FAILs or WARNs for the same reason, and no other check newly FAILs.

The mutation tests put mac-advice M2, M3, I5 and I2 back (the fixes as they were at 3f6969e),
with pip's resolution of those old fixes in a copy of the record, and check that they are
caught.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts import fix_convergence
from scripts.doctor import checks, fix_matrix, rules_keras
from scripts.doctor.checks import Status
from scripts.installs import commands, fix_routes, record

FIXTURES = Path(__file__).parent / "fixtures"
# pip's resolution of the fixes as they were at 3f6969e, for the readers and faked machines
# that get them (written by scripts.installs.record.resolve_offer; see the file's "about").
OLD_FIXES = FIXTURES / "commands_record_old_fixes.json"
# The symptom entries' fix code at 3f6969e: the recommended recipe alone, given to readers on
# tensorflow-macos (M2), on Python 3.12 (I5) and on Python 3.12 and 3.13 (I2).
OLD_FIX_CODE = {
    name: "{recommended}"
    for name in (
        "symbol-not-found-in-flat-namespace",  # M2
        "tf-use-legacy-keras-without-tf-keras",  # M2
        "keras-3-7-learns-when-it-should-not",  # I5
        "mutex-lock-failed-invalid-argument",  # I2
        "mutex-raw-lock-blocking",  # I2
    )
}


@pytest.fixture(scope="module")
def outcomes():
    return fix_convergence.outcomes()


def test_every_fix_converges(outcomes):
    assert not fix_convergence.problems(outcomes), "\n".join(fix_convergence.problems(outcomes))


def test_the_check_covers_every_faked_machine_and_each_reader(outcomes):
    """The tensorflow-macos era, the flag on TensorFlow 2.15 and the symptom readers are all
    judged, and every route of every fix is resolved or refused, not skipped."""
    where = {o.case.where for o in outcomes}
    for machine in fix_matrix.machines():
        if any(fix_routes.from_fix_text(check.fix) for check in fix_matrix.fixes(machine)):
            assert any(w.endswith(machine.label) for w in where), machine.label
    assert any("tensorflow-macos 2.5.0" in w for w in where)
    assert any("tensorflow-macos 2.11.0" in w for w in where)
    assert any("tf215-keras2-metal110: TF_USE_LEGACY_KERAS set" in w for w in where)
    assert {w.split(",")[0] for w in where if w.startswith("data/")} >= {
        f"data/symptoms.yml#{name}" for name in OLD_FIX_CODE
    }
    for outcome in outcomes:
        assert len(outcome.converged) + len(outcome.refused) == len(outcome.case.routes)


def _old_record() -> dict:
    old = json.loads(OLD_FIXES.read_text(encoding="utf-8"))["entries"]
    copy = record.load()
    return dict(copy, entries=copy["entries"] + old)


def _put_back(*names: str) -> list[dict]:
    """The symptom entries with these entries' fix code as it was at 3f6969e."""
    return [
        dict(entry, fix_code=OLD_FIX_CODE[entry["id"]]) if entry["id"] in names else entry
        for entry in commands.symptom_entries()
    ]


def _caught(*names: str) -> list[str]:
    cases = fix_convergence.symptom_cases(_put_back(*names))
    return fix_convergence.problems(fix_convergence.outcomes(_old_record(), cases))


def test_m2_put_back_is_caught():
    found = _caught("symbol-not-found-in-flat-namespace", "tf-use-legacy-keras-without-tf-keras")
    flat = [p for p in found if "#symbol-not-found-in-flat-namespace" in p]
    assert len(flat) == 2 and all("tensorflow now FAILs" in p for p in flat)
    assert any("tensorflow 2.16.2 + tensorflow-macos 2.11.0" in p for p in flat)
    legacy = [p for p in found if "#tf-use-legacy-keras-without-tf-keras" in p]
    assert len(legacy) == 1 and "tensorflow-macos 2.15.0" in legacy[0]
    assert len(found) == 3


def test_i5_put_back_is_caught():
    """The recommended recipe alone, to a reader of tensorflow-metal 1.2.0 on Python 3.12:
    pip refuses it (tensorflow-metal 1.1.0 has no wheel there), so nothing converges."""
    found = _caught("keras-3-7-learns-when-it-should-not")
    assert len(found) == 1 and "Python 3.12" in found[0]
    assert "no route converges" in found[0] and "tensorflow-metal" in found[0]


def test_i2_put_back_is_caught():
    """The recommended recipe alone, to the mutex reports' readers on Python 3.12 and 3.13."""
    found = _caught("mutex-lock-failed-invalid-argument", "mutex-raw-lock-blocking")
    assert len(found) == 4 and all("no route converges" in p for p in found)


def _m3_put_back(monkeypatch) -> None:
    """The keras check as it was: the flag read from TensorFlow 2.16 only, and a failing
    tf.keras fixed by this project's Keras 3 pin."""
    monkeypatch.setattr(checks, "LEGACY_FLAG_FROM", checks.KERAS_3_FROM)
    monkeypatch.setattr(rules_keras, "LEGACY_FLAG_FROM", checks.KERAS_3_FROM)
    monkeypatch.setattr(rules_keras, "_keras_install",
                        lambda f, tf: f'python -m pip install "keras=={f.pins.keras}"')  # fmt: skip


def test_m3_put_back_is_caught(monkeypatch):
    _m3_put_back(monkeypatch)
    cases = [c for c in fix_convergence.doctor_cases() if "TF_USE_LEGACY_KERAS set" in c.where]
    assert cases and all('"keras==3.10.0"' in r.command for c in cases for r in c.routes)
    found = fix_convergence.problems(fix_convergence.outcomes(_old_record(), cases))
    assert len(found) == len(cases) == 3
    assert all("keras still FAILs" in p and "keras 3.10.0" in p for p in found)


def test_a_fix_that_leaves_its_warning_for_the_same_reason_does_not_converge():
    """A route judged on a made-up record entry that changes nothing the check reads."""
    machine = next(m for m in fix_matrix.machines() if m.label.endswith(
        "tf216-keras3-metal110: as installed") and "3.11" in m.label)  # fmt: skip
    check = next(c for c in fix_matrix.fixes(machine) if c.name == "mac recipe")
    route = fix_routes.Route('python -m pip install "six"')
    case = fix_convergence.Case("made up", check.name, machine.platform, machine.facts, [route])
    onto = record.onto_of(machine.facts.packages)
    entry = {"command": route.command, "platform": machine.platform, "python": "3.11",
             "onto": list(onto), "resolved": dict(machine.facts.packages), "error": None}  # fmt: skip
    outcome = fix_convergence.judge(case, fix_convergence._index({"entries": [entry]}))
    assert not outcome.converges
    assert "mac recipe still WARNs for the same reason" in outcome.failed[0]
    assert check.status is Status.WARN


# --- the routes a fix offers ------------------------------------------------------------------


def test_routes_of_a_doctor_fix():
    fix = (
        "the recommended recipe: python -m pip uninstall -y tensorflow-macos tensorflow && "
        'python -m pip install "tensorflow==2.16.2" && export TF_USE_LEGACY_KERAS=1 (why); '
        'or, to keep TensorFlow 2.19: python -m pip install "tensorflow-metal==1.2.0"'
    )
    assert fix_routes.from_fix_text(fix) == [
        fix_routes.Route(
            "python -m pip uninstall -y tensorflow-macos tensorflow && "
            'python -m pip install "tensorflow==2.16.2"',
            (("TF_USE_LEGACY_KERAS", "1"),),
        ),
        fix_routes.Route('python -m pip install "tensorflow-metal==1.2.0"'),
    ]
    assert fix_routes.from_fix_text(
        'python -m pip install "tf-keras~=2.16.0", or unset TF_USE_LEGACY_KERAS'
    ) == [
        fix_routes.Route('python -m pip install "tf-keras~=2.16.0"'),
        fix_routes.Route(None, (("TF_USE_LEGACY_KERAS", None),)),
    ]


def test_routes_of_a_symptom_fix_code():
    code = (
        "# On Python 3.9 to 3.11:\n{recommended}\n"
        "# On Python 3.12:\n$ python3.11 -m venv ~/venv-tf\n$ python -m pip install tensorflow"
    )
    recommended = ['python -m pip install "tensorflow==2.16.2"', "export TF_USE_LEGACY_KERAS=1"]
    assert fix_routes.from_fix_code(code, recommended) == [
        fix_routes.Route('python -m pip install "tensorflow==2.16.2"',
                         (("TF_USE_LEGACY_KERAS", "1"),), for_pythons=("3.9", "3.10", "3.11")),
        fix_routes.Route("python -m pip install tensorflow", (), fresh=True, python="3.11",
                         for_pythons=("3.12",)),
    ]  # fmt: skip
