"""How we measure's reproducibility section dates each session by the entries both sessions
hold: one session may also hold entries the other never measured (a snippet added later),
which are not compared and must not stretch its span."""

from __future__ import annotations

import copy

from scripts.core import store as results
from scripts.findings import results_views
from scripts.rendering import escaping, reproducibility

PUBLISHED = "amd-epyc-2cpu-linux-c396aa.json"


def header(section: str) -> str:
    """The machine, both runs' dates and the commits: everything before the summary line."""
    return section.split(" shared speed-ups: ", 1)[0].rsplit("\n\n", 1)[0]


def test_a_later_entry_only_run_a_holds_does_not_change_its_dates(root):
    data = escaping.escaped_results(results_views.view(results.read(root / "results" / PUBLISHED)))
    first, second = (reproducibility.session_run(data, s) for s in data["sessions"][-2:])
    before = reproducibility.reproducibility_section(first, second, [])
    later = copy.deepcopy(first)
    key, entry = next(iter(later["entries"].items()))
    later["entries"]["demo/later:only_in_a"] = {
        **entry,
        "date": "2099-01-01T09:59:00Z",
        "commit": "abcdef0123",
    }
    after = reproducibility.reproducibility_section(later, second, [])
    assert "2099" not in after and "abcdef0" not in after
    assert header(after) == header(before), key


def test_every_machine_with_two_sessions_gets_a_section(committed_results):
    """The section compares each such machine's latest session with the one before."""
    text = "".join(
        "".join(reproducibility.machine_sections(escaping.escaped_results(d), []))
        for d in committed_results
    )
    for data in committed_results:
        full = [s for s in data["sessions"] if len(s["entries"]) >= 20]
        if len(full) >= 2:
            assert f"`results/{data['machine']['id']}.json`" in text
