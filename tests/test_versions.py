"""The versions page: its compatibility table comes from data/compatibility.json, and the
fused-Dense check agrees with NumPy on this machine."""

from __future__ import annotations

import sys

import pytest

from scripts.core import catalog, compatibility
from scripts.rendering import compat_table

PYPROJECT = """
dependencies = [
    "tensorflow-macos==2.16.2; sys_platform == 'darwin' and platform_machine == 'arm64'",
    "tensorflow-metal==1.1.0; sys_platform == 'darwin' and python_version < '3.12'",
    "tensorflow-metal==1.2.0; sys_platform == 'darwin' and python_version >= '3.12'",
    "tensorflow-cpu==2.16.2; sys_platform == 'linux'",
]
"""

FAKE = {
    "official": {
        "title": "Apple's table",
        "source": "https://example.org/official",
        "notes": ["A note."],
        "rows": [
            {"tensorflow": "v2.14-v2.16", "tf_min": "2.14", "tf_max": "2.16", "metal": "1.1.0",
             "macos": "12.1", "features": ""},
            {"tensorflow": "v2.13", "tf_min": "2.13", "tf_max": "2.13", "metal": "1.0.0",
             "macos": "12.1", "features": "FP16 and BF16 support"},
        ],
    },
    "tested": {
        "title": "A test",
        "source": "https://example.org/tested",
        "machine": "a Mac",
        "rows": [
            {"tensorflow": "2.17.0", "metal": "1.1.0", "result": "FAIL", "failed_at": "import",
             "error": "Symbol not found: X", "see_also": ["https://example.org/issues/9"]},
            {"tensorflow": "2.16.0", "metal": "1.1.0", "result": "OK"},
        ],
    },
}  # fmt: skip


def test_pins_are_read_from_pyproject():
    pins = compat_table.pinned(PYPROJECT)
    assert pins["tensorflow"] == ["2.16.2"]
    assert pins["tensorflow-metal"] == ["1.1.0 (Python < 3.12)", "1.2.0 (Python >= 3.12)"]


def test_table_puts_both_sources_side_by_side_and_marks_the_pin():
    table = compat_table.render(FAKE, PYPROJECT)
    rows = {line.split("|")[1].strip(): line for line in table.splitlines() if "|" in line}
    assert list(rows)[2:] == ["2.17", "**2.16** (pinned here)", "2.15", "2.14", "2.13"]
    assert "not listed" in rows["2.17"] and "**fails at import**" in rows["2.17"]
    assert (
        "`Symbol not found: X`" in rows["2.17"]
        and "[#9](https://example.org/issues/9)" in (rows["2.17"])
    )
    assert "1.1.0 (macOS 12.1+)" in rows["2.15"] and "not tested" in rows["2.15"]
    assert "FP16 and BF16 support" in rows["2.13"]
    assert "https://example.org/official" in table and "https://example.org/tested" in table
    assert "A note." in table and "a Mac" in table


def test_every_row_of_the_data_file_reaches_the_page():
    data = compatibility.load()
    table = compat_table.render(data)
    for row in data["official"]["rows"]:
        for minor in (row["tf_min"], row["tf_max"]):
            assert f"| {minor} " in table or f"**{minor}**" in table
    for row in data["tested"]["rows"]:
        assert f"{row['metal']} ({row['tensorflow']})" in table
        if row.get("error"):
            assert row["error"] in table


def test_render_writes_the_table_where_the_page_includes_it(root, fresh_render):
    assert fresh_render[compat_table.OUTPUT] == compat_table.render()
    page = (root / "docs" / "versions.md").read_text()
    assert f'--8<-- "docs/_generated/{compat_table.OUTPUT}"' in page


@pytest.mark.skipif(
    sys.platform == "darwin", reason="on a Mac the error is what the reader checks for"
)
def test_both_dense_forms_agree_with_float64_here():
    module = catalog.load(catalog.select(["versions/fused_dense"])[0])
    for variant in module.VARIANTS:
        run, _ = module.make_workload(variant, "small")
        assert module.largest_error(run(), "small") < 1e-4, variant


def test_the_committed_output_shows_small_errors(committed_results):
    checked = 0
    for data in committed_results:
        output = data.get("outputs", {}).get("versions/fused_dense")
        if output is None or data["machine"]["os"] == "Darwin":
            continue
        errors = [float(line.rsplit(":", 1)[1]) for line in output["text"].splitlines() if line]
        assert errors and max(errors) < 1e-3, output["text"]
        checked += 1
    assert checked, "no machine other than a Mac has a captured output of versions/fused_dense"
