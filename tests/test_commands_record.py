"""Every install command the site and the doctor print, held to its purpose, offline, from the
record pip's resolver wrote (data/commands_record.json, `make commands-record`).

Fails on a printed command missing from the record, on one that resolves to nothing on a
Python it is offered for, on one that installs a TensorFlow, Keras or tensorflow-metal outside
its recipe's pins, and on a fix that offers a pair Set up warns about without the recommended
recipe first (Python 3.9 to 3.11) and the pair's reports. The mutation tests below put the two
faults issue 28 found (W1, W2) back into a copy and check that these tests catch them.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from scripts import commands_record
from scripts.core import mac_recipes
from scripts.doctor import checks, fix_matrix, rules, rules_install, rules_keras, rules_runtime
from scripts.installs import commands, purposes, record, resolve
from scripts.installs.purposes import pinned

FIXTURES = Path(__file__).parent / "fixtures"
# pip's resolution of the W1 fix (`tf-keras~=2.16`) for the offers the doctor made of it,
# written by scripts.installs.record.resolve_offer before the fix (see the file's "about").
W1_RESOLVED = FIXTURES / "commands_record_w1.json"


@pytest.fixture(scope="module")
def offers():
    return commands_record.offers()


def test_every_printed_command_resolves_within_its_recipe(offers):
    found, _ = offers
    problems = record.problems(found, record.load())
    assert not problems, "\n".join(problems)


def test_the_record_holds_the_commands_it_cannot_resolve_and_why(offers):
    _, skipped = offers
    assert skipped and skipped == record.load()["not_resolved"]


def test_every_entry_names_what_the_issue_asks_for():
    data = record.load()
    assert data["resolver"].startswith("pip ") and data["entries"]
    for entry in data["entries"]:
        assert {"command", "recipe", "platform", "python", "onto", "date"} <= set(entry), entry
        assert (entry["resolved"] is None) == (entry["error"] is not None), entry
        if entry["resolved"]:
            assert set(purposes.WATCHED) <= set(entry["resolved"]), entry


def test_the_doctor_matrix_covers_every_recipe_and_python(offers):
    found, _ = offers
    recipes = {offer.recipe for offer in found}
    assert {s["id"] for s in mac_recipes.load()["recipes"]} | {"linux"} <= recipes
    pythons = {offer.python for offer in found if offer.platform == "macos-arm64"}
    assert pythons == set(fix_matrix.MAC_PYTHONS)


def test_a_printed_command_without_a_purpose_is_an_error():
    text = '```console\n$ python -m pip install "tensorflow==2.99.0"\n```\n'
    printed = [commands.Printed(c, "docs/x.md") for c in commands.in_fences(text)]
    with pytest.raises(record.MissingPurpose, match="docs/x.md prints"):
        record.printed_offers(printed)


def test_commands_are_found_in_fixes_as_printed():
    fix = ('the recommended recipe: python -m pip install "tensorflow==2.16.2" && export X=1; '
           'or run on the CPU: python -m pip uninstall -y tensorflow-metal')  # fmt: skip
    assert commands.commands_in(fix) == [
        'python -m pip install "tensorflow==2.16.2"',
        "python -m pip uninstall -y tensorflow-metal",
    ]
    assert commands.commands_in('python -m pip install "tf-keras~=2.16.0", or unset it') == [
        'python -m pip install "tf-keras~=2.16.0"'
    ]


# --- fixes that offer a pair Set up warns about (issue 28, item 3) ----------------------------


def _warned_reports() -> set[str]:
    """The report links of the recipes Set up warns about that use tensorflow-metal 1.2.0."""
    data = mac_recipes.load()
    return {
        data["sources"][name]
        for recipe in data["recipes"]
        if mac_recipes.is_warned(recipe) and recipe["match"]["metal"] == "1.2.0"
        for issue in recipe["known_issues"]
        for name in issue["sources"]
    }


def _offers_warned_pair(command: str, installed: dict[str, str]) -> bool:
    """tensorflow-metal 1.2.0, or TensorFlow 2.18 or 2.19 with a plugin."""
    named = dict(
        pinned(a) for s in commands.steps(command) for a in s.args if s.action == "install"
    )
    if named.get("tensorflow-metal") == "1.2.0":
        return True
    tf = named.get("tensorflow") or ""
    plugin = "tensorflow-metal" in named or "tensorflow-metal" in installed
    return plugin and tf.startswith(("2.18", "2.19"))


def _label(url: str) -> str:
    """'https://github.com/o/r/issues/5' -> 'o/r#5', as the recipes' texts cite them."""
    found = re.match(r"https://github\.com/([^/]+/[^/]+)/issues/(\d+)", url)
    return f"{found.group(1)}#{found.group(2)}" if found else url


def _recommended_pip_line() -> str:
    return next(line for line in mac_recipes.recommended()["install"] if " pip " in line)


def doctor_warned_pair_problems() -> list[str]:
    """Every doctor fix that offers the warned pair without the recommended recipe first (on
    Python 3.9 to 3.11) or without the pair's reports."""
    reports, problems = _warned_reports(), []
    for machine in fix_matrix.machines():
        if machine.platform != "macos-arm64":
            continue
        python = machine.facts.python.rsplit(".", 1)[0]
        for check in fix_matrix.fixes(machine):
            found = commands.commands_in(check.fix)
            if not any(_offers_warned_pair(c, machine.facts.packages) for c in found):
                continue
            at = f"{machine.label}, {check.name}: {check.fix}"
            if mac_recipes.python_fits(mac_recipes.recommended(), python):
                if found[0] != _recommended_pip_line():
                    problems.append(f"{at}: the recommended recipe does not come first")
            labels = {_label(url) for url in reports}
            if check.source not in reports and not any(x in (check.note or "") for x in labels):
                problems.append(f"{at}: the warned pair comes without its reports")
    return problems


def symptom_warned_pair_problems(entries: list[dict]) -> list[str]:
    """Every symptom whose fix code offers the warned pair without the recommended recipe first
    or without a link to the pair's reports (directly or through the entry that cites them)."""
    reports, problems = _warned_reports(), []
    citing = {e["id"] for e in entries if reports & {s["url"] for s in e.get("sources", [])}}
    install = "\n".join(f"$ {line}" for line in mac_recipes.recommended()["install"])
    for entry in entries:
        code = (entry.get("fix_code") or "").replace("{recommended}", install)
        found = [c for line in code.splitlines()
                 for c in commands.commands_in(line.strip().removeprefix("$ "))]  # fmt: skip
        if not any(_offers_warned_pair(c, {}) for c in found):
            continue
        if found[0] != _recommended_pip_line():
            problems.append(f"{entry['id']}: the recommended recipe does not come first")
        text = entry.get("fix", "") + entry.get("cause", "")
        if not any(f"#{name})" in text for name in citing) and not any(u in text for u in reports):
            problems.append(f"{entry['id']}: the warned pair comes without its reports")
    return problems


def _symptoms() -> list[dict]:
    return yaml.safe_load(commands.SYMPTOMS.read_text(encoding="utf-8"))["symptoms"]


def test_doctor_fixes_offering_the_warned_pair_put_the_recommended_recipe_first():
    assert not doctor_warned_pair_problems()


def test_symptoms_offering_the_warned_pair_put_the_recommended_recipe_first():
    assert not symptom_warned_pair_problems(_symptoms())


# --- the tests catch W1 and W2 when they are put back ----------------------------------------


def _rules_with_fix_changed(monkeypatch, old: str, new: str) -> None:
    """The doctor's rules, with every fix text changed as a copy of the keras check would be."""

    def changed(rule):
        def run(facts):
            check = rule(facts)
            return replace(check, fix=check.fix.replace(old, new)) if check.fix else check

        return run

    monkeypatch.setattr(rules, "RULES", tuple(changed(rule) for rule in rules.RULES))


def _old_tf_keras_install(f, tf: str) -> str:
    return f'python -m pip install "tf-keras~={checks.minor_text(tf)}.0"'


def test_w1_tilde_2_16_is_caught(monkeypatch):
    """`tf-keras~=2.16` put back in the keras check: with pip's own resolution of it in a copy
    of the record, the offers fail on TensorFlow 2.21 (2.20 on Python 3.9)."""
    # The keras fix as it was then: no --no-deps beside tensorflow-cpu.
    monkeypatch.setattr(rules_keras, "tf_keras_install", _old_tf_keras_install)
    _rules_with_fix_changed(monkeypatch, '"tf-keras~=2.16.0"', '"tf-keras~=2.16"')
    assert rules_keras.check_keras  # the rule the fix comes from
    found, _ = commands_record.offers()
    copy = record.load()
    missing = record.problems(found, copy)
    assert any('`python -m pip install "tf-keras~=2.16"`' in p and "not in" in p for p in missing)
    old = json.loads(W1_RESOLVED.read_text(encoding="utf-8"))
    copy = dict(copy, entries=copy["entries"] + old["entries"])
    problems = record.problems(found, copy)
    # (on Linux x86-64 it also adds tensorflow beside tensorflow-cpu, the next tests' fault)
    w1 = [p for p in problems if '"tf-keras~=2.16"`' in p and "two TensorFlows" not in p]
    # pip moves TensorFlow to 2.21 (2.20 on Python 3.9, whose last release it is).
    assert w1 and all(re.search(r"installs TensorFlow 2\.2[01]\.0, not 2\.16", p) for p in w1)


def test_w1_in_the_docs_needs_a_purpose_and_a_record(tmp_path):
    """The Versions page's line put back to ~=2.16 is no command the record knows."""
    page = (commands.DOCS / "versions.md").read_text(encoding="utf-8")
    assert '$ pip install "tf-keras~=2.16.0"' in page
    copy = page.replace('"tf-keras~=2.16.0"', '"tf-keras~=2.16"')
    printed = [commands.Printed(c, "docs/versions.md") for c in commands.in_fences(copy)]
    with pytest.raises(record.MissingPurpose, match='tf-keras~=2.16"'):
        record.printed_offers(printed)


def test_w2_metal_120_without_the_warning_is_caught(monkeypatch):
    """The doctor's metal fixes back to the bare command (no recommended recipe, no reports)."""
    bare = lambda f, command: (command, None, None)  # noqa: E731
    for module in (checks, rules_install, rules_runtime):
        monkeypatch.setattr(module, "metal_fix", bare)
    problems = doctor_warned_pair_problems()
    assert any("tf219-metal120" in p and "does not come first" in p for p in problems)
    assert any("without its reports" in p for p in problems)


def test_w2_symptom_with_only_the_warned_pair_is_caught():
    """A copy of the symptoms with the two import-fails entries' old fix code."""
    entries = _symptoms()
    old = '$ python -m pip install "tensorflow==2.19.*" "tensorflow-metal==1.2.0"'
    changed = [
        dict(e, fix_code=old, fix="Install TensorFlow 2.19 with tensorflow-metal 1.2.0.")
        if e["id"] in ("symbol-not-found-tsl-logmessage",
                       "library-not-loaded-pywrap-tensorflow-internal") else e
        for e in entries
    ]  # fmt: skip
    problems = symptom_warned_pair_problems(changed)
    assert len([p for p in problems if "does not come first" in p]) == 2
    assert len([p for p in problems if "without its reports" in p]) == 2


# --- two TensorFlow distributions in one environment ------------------------------------------

# pip's resolution of the doctor's fixes before they removed tensorflow-macos first and added
# --no-deps beside tensorflow-cpu: each ends with two TensorFlows (see the file's "about").
TWO_TENSORFLOWS = FIXTURES / "commands_record_two_tensorflows.json"


def test_two_tensorflows_are_named_and_the_thin_pair_is_one():
    assert purposes.two_tensorflows({"tensorflow": "2.16.2", "tensorflow-macos": "2.15.0"}) == (
        "tensorflow 2.16.2 and tensorflow-macos 2.15.0"
    )
    assert purposes.two_tensorflows({"tensorflow": "2.16.2", "tensorflow-cpu": "2.16.2"})
    assert purposes.two_tensorflows({"tensorflow-cpu": "2.16.2", "tf-nightly": "2.21.0.dev1"})
    # One of each same-version pair is a thin wheel without files (docs/versions.md).
    assert purposes.two_tensorflows({"tensorflow": "2.15.0", "tensorflow-macos": "2.15.0"}) is None
    assert purposes.two_tensorflows({"tensorflow": "2.16.2", "tensorflow-macos": None}) is None


def test_an_entry_ending_with_two_tensorflows_is_named(offers):
    """A copy of the record whose entry for the fix a Mac on TensorFlow 2.15.0 gets when its
    plugin fails ends with tensorflow-macos 2.15.0 still there: the check names the fix."""
    found, _ = offers
    where = (
        "doctor tensorflow import: Mac, Python 3.11, tf215-keras2-metal110: plugin fails to load"
    )
    offer = next(o for o, printed in found.items() if where in printed)
    copy = record.load()
    entry = next(e for e in copy["entries"] if record.entry_key(e) == offer.key())
    assert record.problems(found, copy) == []
    entry["resolved"]["tensorflow-macos"] = "2.15.0"
    problems = record.problems(found, copy)
    assert len(problems) == 1
    assert f"`{offer.command}`" in problems[0] and where in problems[0]
    assert "tensorflow 2.16.2 and tensorflow-macos 2.15.0" in problems[0]


def test_the_old_fixes_that_left_two_tensorflows_are_caught(monkeypatch):
    """The doctor's fixes put back as they were (no tensorflow-macos removed first, tf-keras
    without --no-deps beside tensorflow-cpu): with pip's resolution of them in a copy of the
    record, every such offer fails, naming both TensorFlows."""
    monkeypatch.setattr(checks, "leaves_tensorflow_macos", lambda f, recipe: False)
    monkeypatch.setattr(rules_keras, "tf_keras_install", _old_tf_keras_install)
    found, _ = commands_record.offers()
    old = json.loads(TWO_TENSORFLOWS.read_text(encoding="utf-8"))["entries"]
    copy = dict(record.load())
    copy["entries"] = copy["entries"] + old
    two = [p for p in record.problems(found, copy) if "two TensorFlows" in p]
    assert len(two) == len(old) == 10
    assert sum("tensorflow 2.16.2 and tensorflow-macos 2.15.0" in p for p in two) == 6
    assert sum("tensorflow 2.16.2 and tensorflow-cpu 2.16.2" in p for p in two) == 4
    assert all("printed by doctor " in p for p in two)


def test_an_uninstall_before_an_install_leaves_the_environment_without_it(monkeypatch):
    """The resolver drops what a command's uninstall names before pip resolves its install."""
    seen = []

    def fake_pip(args, platform, python, environment):
        seen.append(set(environment))
        return {"install": [{"metadata": {"name": "tensorflow", "version": "2.16.2"}}]}

    monkeypatch.setattr(resolve, "run_pip", fake_pip)
    environment = {name: resolve.Installed(version) for name, version in
                   {"tensorflow": "2.15.0", "tensorflow-macos": "2.15.0", "keras": "2.15.0"}.items()}  # fmt: skip
    command = f'{checks.CLEAR_MACOS} && python -m pip install "tensorflow==2.16.2"'
    after = resolve.resolve_steps(commands.steps(command), "macos-arm64", "3.11", environment)
    assert seen == [{"keras"}]
    assert {name: p.version for name, p in after.items()} == {
        "keras": "2.15.0",
        "tensorflow": "2.16.2",
    }


# --- each pin rule catches the environment that breaks it (code review 2026-11-28, §3.3) --------

# One resolved environment per rule of purposes.outside_pins, each breaking that rule alone:
# with the rule removed, its row gives no problem and the test fails.
PIN_RULES = [
    ("the CPU recipe holds no plugin", {"tensorflow-metal": "1.1.0"}, "cpu",
     "tensorflow-metal 1.1.0 on the CPU recipe"),
    ("TensorFlow's minor", {"tensorflow": "2.21.0", "keras": "3.15.1", "tf-keras": "2.21.0",
                            "tensorflow-metal": "1.1.0"}, "tf216-tf-keras-metal110",
     "TensorFlow 2.21.0, not 2.16"),
    ("no plugin on a recipe without one", {"tensorflow": "2.21.0", "keras": "3.15.1",
                                          "tensorflow-metal": "1.1.0"}, "cpu",
     "tensorflow-metal 1.1.0 on a recipe without it"),
    ("the recipe's plugin", {"tensorflow": "2.16.2", "keras": "3.10.0",
                            "tensorflow-metal": "1.2.0"}, "tf216-keras3-metal110",
     "tensorflow-metal 1.2.0, not 1.1.0"),
    ("Keras 3", {"tensorflow": "2.16.2", "keras": "2.15.0", "tensorflow-metal": "1.1.0"},
     "tf216-keras3-metal110", "Keras 2.15.0, not Keras 3"),
    ("tf-keras of TensorFlow's minor", {"tensorflow": "2.16.2", "keras": "3.10.0",
                                        "tf-keras": "2.15.1", "tensorflow-metal": "1.1.0"},
     "tf216-tf-keras-metal110", "tf-keras 2.15.1 with TensorFlow 2.16.2"),
    ("Keras 2 of TensorFlow's minor", {"tensorflow": "2.15.0", "keras": "3.10.0",
                                       "tensorflow-metal": "1.1.0"}, "tf215-keras2-metal110",
     "Keras 3.10.0 with TensorFlow 2.15.0"),
    ("a kept TensorFlow keeps its minor", {"tensorflow": "2.16.2", "keras": "3.10.0",
                                           "tensorflow-macos": "2.11.0"},
     "kept-tensorflow-2.11", "TensorFlow 2.16.2, not 2.11"),
]  # fmt: skip


@pytest.mark.parametrize(("versions", "recipe", "problem"), [row[1:] for row in PIN_RULES],
                         ids=[row[0] for row in PIN_RULES])  # fmt: skip
def test_each_pin_rule_names_the_environment_that_breaks_it(versions, recipe, problem):
    assert purposes.outside_pins(versions, recipe) == [problem]


def test_the_pins_pass_what_keeps_them():
    assert purposes.outside_pins({"tensorflow-macos": "2.11.0", "keras": "2.11.0",
                                  "tensorflow-metal": "0.7.0"}, "kept-tensorflow-2.11") == []  # fmt: skip
    assert purposes.outside_pins({"tensorflow": "2.16.2", "keras": "3.12.4", "tf-keras": "2.16.0",
                                  "tensorflow-metal": "1.1.0"}, "tf216-tf-keras-metal110") == []  # fmt: skip


# --- the record is checked both ways --------------------------------------------------------


def test_a_collector_that_stops_reading_symptom_fix_code_is_caught(monkeypatch):
    """Each symptom's fix code is also printed on the generated Symptoms page, so the offers
    stay; the record's count of where each is printed does not."""
    monkeypatch.setattr(commands, "symptom_entries", lambda: [])
    found, _ = commands_record.offers()
    problems = record.problems(found, record.load())
    lost = [p for p in problems if "a collector lost or gained a source" in p]
    assert lost and any("data/symptoms.yml#" in p.split("the record says")[1] for p in lost)


def test_an_entry_nothing_prints_is_caught(offers):
    found, _ = offers
    copy = record.load()
    stale = dict(copy["entries"][0], command='python -m pip install "tensorflow==2.99.0"')
    problems = record.problems(found, dict(copy, entries=[*copy["entries"], stale]))
    assert len(problems) == 1 and "nothing prints it there any more" in problems[0]
