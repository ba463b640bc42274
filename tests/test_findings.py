"""The findings stage: sittings, variance strata, the long-run interval against the band, the
summary across machines and the machines' short names, each against a known answer."""

from __future__ import annotations

import math
import re

import pytest
import yaml

from scripts.core import catalog, outcomes, pooling, sittings, variance_strata
from scripts.core import store as results
from scripts.findings import across_machines, results_views
from scripts.findings.pairs import Finding
from scripts.rendering import names

FILE_ACCESS = re.compile(r"TFRecord|\bopen\(|tempfile|tf\.io\.(read|write)_file|profiler")


def test_the_files_stratum_is_every_snippet_that_reads_or_writes_files():
    """data/variance_strata.yml's rule, checked against the code: no hand-kept exceptions."""
    strata = variance_strata.load()
    for snippet in catalog.measurable_snippets():
        source = snippet.path.read_text(encoding="utf-8")
        expected = "files" if FILE_ACCESS.search(source) else "compute"
        assert strata.of(snippet.name) == expected, snippet.name


def test_a_strata_file_without_reasons_or_with_a_snippet_twice_is_refused(tmp_path):
    path = tmp_path / "strata.yml"
    path.write_text(yaml.safe_dump({"default": "a", "strata": [{"id": "a", "snippets": []}]}))
    with pytest.raises(variance_strata.StrataError, match="needs `why`"):
        variance_strata.load(path)
    twice = {"id": "a", "why": "w", "snippets": ["x/y", "x/y"]}
    path.write_text(yaml.safe_dump({"default": "a", "strata": [twice]}))
    with pytest.raises(variance_strata.StrataError, match="already in"):
        variance_strata.load(path)


def test_a_sitting_is_a_boot_or_else_a_day():
    assert sittings.sitting_of({"id": "2026-11-27T04:51:47Z", "boot": "df4a193b"}) == (
        "boot df4a193b"
    )
    assert sittings.sitting_of({"id": "2026-11-23T21:37:03Z"}) == "day 2026-11-23"
    assert sittings.sitting_of({"id": "2026-11-23T21:57:25Z"}) == "day 2026-11-23"


def ratio(point: float, sitting: str, within: float = 0.0004) -> pooling.SessionRatio:
    return pooling.SessionRatio(point, within, f"s{point}{sitting}", sitting)


def test_sessions_of_one_sitting_do_not_narrow_the_long_run_interval():
    """Three back-to-back sessions are one sitting: the long-run interval barely narrows
    (only the rounds' part averages), where three sittings narrow it by about sqrt(3)."""
    spread = pooling.Spread(0.003, 50, 80, "compute")
    one = pooling.pool([ratio(1.5, "a")], spread)
    same = pooling.pool([ratio(1.5, "a"), ratio(1.5, "a"), ratio(1.5, "a")], spread)
    apart = pooling.pool([ratio(1.5, "a"), ratio(1.5, "b"), ratio(1.5, "c")], spread)
    width = lambda p: math.log(p.mean_high / p.mean_low)  # noqa: E731
    assert same.sittings == 1 and apart.sittings == 3
    assert width(same) > 0.9 * width(one)
    assert width(apart) < 0.75 * width(one)
    for found in (one, same, apart):
        assert found.new_low < found.mean_low < found.point < found.mean_high < found.new_high


def test_the_band_never_narrows_below_the_between_sitting_spread_but_the_mean_does():
    spread = pooling.Spread(0.0027, 130, 186, "compute")
    shift = math.sqrt(0.0027)  # sittings that scatter as much as the stratum's spread
    many = pooling.pool(
        [ratio(math.exp(shift if i % 2 else -shift), str(i)) for i in range(30)], spread
    )
    t = pooling.t_quantile(0.975, many.df)
    assert math.log(many.new_high) >= t * math.sqrt(0.0027) * 0.9
    assert math.log(many.mean_high) < 0.5 * math.log(many.new_high)


def test_strata_have_their_own_spread(committed_files):
    spreads = results_views.stack_views(committed_files)[0]["spread"]
    assert set(spreads) == set(variance_strata.load().why)
    assert spreads["files"].tau2 > spreads["compute"].tau2


def finding(point: float, se: float) -> Finding:
    return Finding("m", "s", "b", "v", "median_s", point, point, point, point, point, 1, 1, "",
                   "", se, 4)  # fmt: skip


def test_across_machines_gives_the_pooled_mean_and_a_wider_prediction():
    """Equal points: no spread between machines, the mean is that point. Spread points: a
    prediction for a new machine wider than the mean's interval, and centred on the mean."""
    same = across_machines.summary([finding(1.5, 0.05)] * 4)
    assert same.tau2 == 0 and same.point == pytest.approx(1.5)
    found = [finding(p, 0.03) for p in (1.30, 1.68, 1.60, 1.57)]
    summary = across_machines.summary(found)
    assert summary.tau2 > 0
    assert summary.new_low < summary.low < summary.point < summary.high < summary.new_high
    assert summary.point == pytest.approx(across_machines.unweighted_point(found), rel=0.02)
    assert across_machines.summary(found[:2]) is None


def test_every_committed_machine_has_a_short_name_and_no_two_share_one(committed_files):
    ids = [data["machine"]["id"] for data in committed_files]
    shown = [names.machine(i) for i in ids]
    assert all(name != i for name, i in zip(shown, ids, strict=True)), shown
    assert len(set(shown)) == len(shown)


@pytest.mark.parametrize(
    "point, low, high, words",
    [(1.95, 1.5, 2.5, "1.95× (1.50–2.50)"), (0.00667, 0.0059, 0.0077, "150× slower (130–169)"),
     (13.29, 4.58, 13.99, "13× (4.58–14)")],
)  # fmt: skip
def test_speedups_read_as_people_read_them(point, low, high, words):
    assert names.speedup(point, low, high) == words


def test_the_outcome_words_come_from_one_place():
    assert outcomes.direction(1.01, 1.2) == outcomes.FASTER
    assert outcomes.direction(0.9, 0.99) == outcomes.SLOWER
    assert outcomes.direction(0.9, 1.1) == outcomes.NO_CLEAR_DIFFERENCE


def test_sessions_kept_apart_validate_say_why_and_stay_out_of_the_pages(root):
    """results/unquiet/: sessions measured beside other heavy work are kept, valid and
    explained, and the pages' files (results/*.json) never read them."""
    from scripts.results import validate

    kept = sorted((root / "results" / "unquiet").glob("*.json"))
    readme = (root / "results" / "unquiet" / "README.md").read_text()
    assert kept and validate.validate(kept, root) == []
    read = {(d["machine"]["id"], s["id"]) for d in results.read_all() for s in d["sessions"]}
    for path in kept:
        assert f"`{path.name}`" in readme, path.name
        for session in results.read(path)["sessions"]:
            assert (results.read(path)["machine"]["id"], session["id"]) not in read
