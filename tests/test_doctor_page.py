"""The Diagnose page's faked-Mac example (issue 36): what the doctor prints for the faked Mac the
rules' tests use, committed as make doctor-page wrote it, and labelled on the page as faked."""

from __future__ import annotations

import re

from scripts.doctor import faked_mac_page, report, rules
from tests.test_doctor_rules import mac

GENERATED = faked_mac_page.OUTPUT
PAGE = GENERATED.parents[2] / "doctor.md"
INCLUDE = '--8<-- "docs/_generated/doctor/faked-mac.txt"'


def doctor_on_the_faked_mac() -> str:
    return report.to_text(rules.run_all(mac()))


def test_the_committed_example_is_what_the_doctor_prints_for_the_faked_mac():
    assert GENERATED.read_text(encoding="utf-8") == doctor_on_the_faked_mac(), (
        f"{GENERATED.name} is not the doctor's output for the faked Mac: run make doctor-page"
    )


def test_the_page_script_writes_that_output(tmp_path, monkeypatch):
    monkeypatch.setattr(faked_mac_page, "OUTPUT", tmp_path / "doctor" / "faked-mac.txt")
    assert faked_mac_page.main() == 0
    assert faked_mac_page.OUTPUT.read_text(encoding="utf-8") == doctor_on_the_faked_mac()


def test_the_example_shows_a_mac_warning_with_its_fix():
    """The page says the mac recipe line shows a WARN with its fix: the output must hold one."""
    lines = GENERATED.read_text(encoding="utf-8").splitlines()
    warned = next(i for i, line in enumerate(lines) if re.match(r"WARN  mac recipe\s", line))
    assert lines[warned + 1].lstrip().startswith("fix:"), lines[warned : warned + 2]
    assert not any(line.startswith("SKIP  macos") for line in lines), "the Mac checks ran"


def test_the_page_labels_the_example_as_faked_facts_before_showing_it():
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("\n### On a faked Mac, not a real one\n") : text.index(INCLUDE)]
    assert '!!! warning "Faked Mac facts: no Mac ran this"' in section
    assert "none was measured on a Mac" in section
    assert text.count(INCLUDE) == 1


def test_the_check_reference_has_one_table_row_per_check():
    """Every check the doctor runs has its row (check, looks at, WARN/FAIL, what to do)."""
    rows = re.findall(r"^\| \*\*([a-z0-9 -]+)\*\*[^|]*\|", PAGE.read_text(encoding="utf-8"), re.M)
    names = [check.name for check in rules.run_all(mac())]
    assert sorted(rows) == sorted(names)
