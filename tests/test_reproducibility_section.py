"""How we measure's reproducibility section dates each run by the entries both runs hold: the
published file also keeps entries measured after the second run (a snippet added later),
which are not compared and must not stretch run A's span."""

from __future__ import annotations

import copy

from scripts.core import plain_text
from scripts.core import store as results
from scripts.rendering import reproducibility

PUBLISHED = "amd-epyc-2cpu-linux-c396aa.json"


def test_a_later_entry_only_run_a_holds_does_not_change_its_dates(root):
    first = plain_text.escaped_results(results.read(root / "results" / PUBLISHED))
    second = plain_text.escaped_results(
        results.read(root / "results" / "reproducibility" / PUBLISHED)
    )
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
    assert after.splitlines()[0] == before.splitlines()[0], key
