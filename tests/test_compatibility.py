"""data/compatibility.json: both tables well formed and sourced, and the lookups the doctor uses."""

from __future__ import annotations

import pytest

from scripts.core import compatibility, version_order


def test_every_row_carries_its_source():
    data = compatibility.load()
    for table in ("official", "tested"):
        assert data[table]["source"].startswith("https://")
        for row in data[table]["rows"]:
            assert row["source"].startswith("https://"), row


def test_rows_are_well_formed():
    data = compatibility.load()
    for row in data["official"]["rows"]:
        assert compatibility.minor(row["tf_min"]) <= compatibility.minor(row["tf_max"]), row
        assert compatibility.version_tuple(row["metal"]) and row["macos"] in ("12.0", "12.1")
    for row in data["tested"]["rows"]:
        assert row["result"] in ("OK", "FAIL"), row
        assert row["failed_at"] in (None, "import", "verify"), row
        assert (row["result"] == "OK") <= (row["error"] is None), row
        # A failure says where and how it failed: the doctor prints both.
        assert (row["result"] == "FAIL") <= bool(row["failed_at"] and row["error"]), row


@pytest.mark.parametrize(
    "tf, metal, verdict",
    [
        ("2.16.2", "1.1.0", "ok"),  # Apple's table and the user's test (2.16.0rc)
        ("2.18.0", "1.1.0", "fail"),  # in Apple's table, but failed at import in the test
        ("2.19.0", "1.2.0", "ok"),  # only in the test
        ("2.5.0", "0.1.2", "ok"),  # only in Apple's table
        ("2.11.0", "0.7.0", "fail"),  # imports, fails Apple's verification script
        ("2.15.0", "1.2.0", "unlisted"),
        ("2.21.0", "1.2.0", "unlisted"),
    ],
)
def test_pairing(tf, metal, verdict):
    assert compatibility.pairing(tf, metal).verdict == verdict


@pytest.mark.parametrize(
    "tf, metal",
    [("2.16.2", "1.1.0"), ("2.13.0", "1.0.0"), ("2.19.0", "1.2.0"), ("2.18.0", "1.2.0"),
     ("2.20.0", None), ("2.9.1", "0.5.0")],
)  # fmt: skip
def test_metal_to_suggest(tf, metal):
    assert compatibility.working_metal(tf) == metal


def test_the_2_18_row_is_read_as_1_2_0_and_says_so():
    """Apple's row prints v1.1.0 for 2.18; 1.1.0 fails with 2.18, so the guide reads 1.2.0."""
    pair = compatibility.pairing("2.18.0", "1.2.0")
    assert pair.verdict == "ok" and pair.official_row["metal"] == "1.1.0"
    assert pair.official_row["metal_read_as"] == "1.2.0"
    assert compatibility.pairing("2.18.0", "1.1.0").verdict == "fail"


def test_macos_requirement():
    assert compatibility.macos_required("1.1.0") == "12.1"
    assert compatibility.macos_required("0.4.0") == "12.0"
    assert compatibility.macos_required("9.9.9") is None


def test_versions():
    assert compatibility.version_tuple("2.16.0rc1") == (2, 16, 0)
    assert compatibility.version_tuple("v2.14") == (2, 14)
    assert compatibility.version_tuple(None) == ()
    assert compatibility.minor("3.10.0") == (3, 10)


def test_versions_compare_as_pip_compares_them():
    """A release candidate is not its release (issue 10): packaging.version, not digits."""
    assert not compatibility.same_version("2.16.0rc1", "2.16.0")
    assert compatibility.same_version("1.1", "1.1.0")
    assert sorted(["2.16.0", "2.16.0rc1", "2.9.1"], key=compatibility.version_key) == [
        "2.9.1", "2.16.0rc1", "2.16.0",
    ]  # fmt: skip
    # the release line is still the line: an rc of 2.16 has 2.16's Keras 3 default
    assert compatibility.minor("2.16.0rc1") == (2, 16)


def test_a_release_candidate_of_metal_is_not_apples_row_for_the_release():
    assert compatibility.pairing("2.16.2", "1.1.0").official_row is not None
    assert compatibility.pairing("2.16.2", "1.1.0rc1").official_row is None


VERSIONS = [
    "1.0.dev1", "1.0a1", "1.0a2.dev1", "1.0b1", "1.0rc1", "1.0", "1.0.0", "1.0.post1",
    "1.1.0", "2.9.1", "2.16.0rc0", "2.16.0rc1", "2.16.0", "2.16.1", "2.16.2", "v2.18",
    "3.10.0", "3.11.7", "12.1", "15.6.1",
]  # fmt: skip


def test_the_stand_in_orders_versions_as_packaging_does(monkeypatch):
    """Without packaging (python -S), the doctor's versions still sort and compare alike."""
    real = [version_order.order(v) for v in VERSIONS]
    monkeypatch.setattr(version_order, "Version", None)
    stand_in = [version_order.order(v) for v in VERSIONS]
    for i in range(len(VERSIONS)):
        for j in range(len(VERSIONS)):
            assert (real[i] < real[j]) == (stand_in[i] < stand_in[j]), (VERSIONS[i], VERSIONS[j])
            assert (real[i] == real[j]) == (stand_in[i] == stand_in[j]), (VERSIONS[i], VERSIONS[j])
    assert version_order.order("not a version") is None
