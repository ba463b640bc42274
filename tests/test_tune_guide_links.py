"""tune names the guide's sections as the doctor does (scripts/core/guide_links.py): run from
tf-doctor.pyz built for the site, every link in its text and HTML reports is a page of the
published site, since the reader's Mac has no docs/ folder; from a checkout, and in the page's
committed example, they stay repository paths. Given reports only: nothing is timed."""

from __future__ import annotations

from scripts import tune
from scripts.core import guide_links, project_files
from scripts.core.guide_links import IN_TEXT, addresses_in
from scripts.tuning import analysis, experiments, report, runner
from tests.test_tune_drift import MIB, measured
from tests.test_tune_report import FACTS, a_report

SITE = "https://example-owner.github.io/tf-guide/"
# One of each kind of link tune prints, as the published site's pages
PAGES = (
    f"see {SITE}input-pipeline/#what-to-do",  # a recommended change
    f"its verdicts: {SITE}results/#stack-tf216-tf-keras",  # the stack line
    f"RETRACES ({SITE}graph-execution/#the-retracing-trap)",  # the Traces line
    f"tf.functions ({SITE}graph-execution/#the-retracing-trap)",  # the retracing note
    f"look for a leak ({SITE}memory/#what-to-do)",  # memory over a longer stretch
    f"see {SITE}gpu-correctness/#what-to-do-when-they-differ)",  # GPU and CPU differ
    f"({SITE}setup/#check-that-tensorflow-sees-the-gpu;",  # a Mac without its GPU (a note)
    f"({SITE}graph-execution/#modelcompilejit_compile-with-fit)",  # XLA not tried (skipped)
)


def a_report_with_every_link() -> dict:
    found = a_report()
    found["facts"] = {**FACTS, "traces": [3, 1, 1, 0, 1, 1]}  # retraces, as a graph
    times = [0.010 * (1 + i / 30) for i in range(30)]
    leaking = measured(times, [500 * MIB + i * 4 * MIB for i in range(30)])
    found["stretch"] = analysis.stretch(leaking, FACTS)
    found["correctness"] = {"steps": 5, "agrees": False, "first_difference": "step 2, loss"}
    mac = {"os": "Darwin", "arch": "arm64"}
    found["notes"].insert(0, runner.mac_gpu_note(mac, {"tensorflow_metal": None}, FACTS))
    found["skipped"]["graph"] = experiments.XLA_ON_METAL
    return found


def test_from_the_archive_every_guide_link_is_a_page_of_the_site():
    found = a_report_with_every_link()
    on_site = report.to_text(found, SITE)
    for page in PAGES:
        assert page in on_site, page
    assert "docs/" not in on_site
    html = report.to_html(found, SITE)
    assert f"{SITE}input-pipeline/#what-to-do" in html and "docs/" not in html
    # from a checkout the same report, each link a repository path
    in_checkout = report.to_text(found)
    assert len(IN_TEXT.findall(in_checkout)) == len(PAGES)
    assert addresses_in(in_checkout, SITE) == on_site


def test_the_command_prints_the_sites_pages_and_the_page_example_keeps_paths(
    monkeypatch, tmp_path, capsys
):
    found = a_report_with_every_link()
    monkeypatch.setattr(runner, "tune", lambda *args, **kwargs: found)
    monkeypatch.setattr(guide_links, "site_url", lambda: SITE)  # as tf-doctor.pyz reads it
    monkeypatch.setattr(project_files, "ROOT", tmp_path)  # --help names PAGE_DIR under it
    monkeypatch.setattr(tune, "PAGE_DIR", tmp_path / "docs" / "_generated" / "tune")
    page = tune.PAGE_DIR / "example.txt"
    html = tmp_path / "report.html"
    assert tune.main(["my_model.py", "--write-page", "example", "--html", str(html)]) == 0
    printed = capsys.readouterr().out  # the report, then where the files were written
    assert report.to_text(found, SITE) in printed
    assert printed.count("docs/") == 1 and f"wrote {page.with_suffix('')}.txt" in printed
    assert f"{SITE}results/#stack-tf216-tf-keras" in html.read_text(encoding="utf-8")
    # the Tune page's example: repository paths, as the doctor's page output keeps them
    assert page.read_text(encoding="utf-8") == report.to_text(found)
