"""tune --html: the page opens offline in Chromium, makes no request beyond its own file, and
shows the ranked table, the step-time timeline and the waiting-for-data split."""

from __future__ import annotations

from scripts.tuning import report
from tests.test_tune_report import a_report, timings


def test_the_html_report_opens_offline_with_its_charts(context, tmp_path):
    found = a_report()
    found["experiments"]["drift"] = {"arms": {"as_given": {"times_s": timings(0.02, rounds=30)}}}
    page_file = tmp_path / "report.html"
    page_file.write_text(report.to_html(found), encoding="utf-8")
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_file.as_uri())
    assert requests == [page_file.as_uri()]  # nothing fetched: no script, style or font
    assert page.locator("table tbody tr").count() == len(found["rows"])
    assert page.locator("svg polyline").count() == 1
    assert "30 timed runs" in page.locator("svg").first.get_attribute("aria-label")
    assert "waiting for data 60%" in page.locator("svg").nth(1).get_attribute("aria-label")
    assert "make the input pipeline keep up" in page.locator("table").inner_text()
    page.close()
