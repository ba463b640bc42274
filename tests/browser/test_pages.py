"""Every page, loaded cold in Chromium: it loads, stays local, shows its charts and tables."""

from __future__ import annotations

# What a first visit to a page may transfer, uncompressed (the test server does not compress;
# GitHub Pages does, so readers download less). Every page pays a shared cost first:
# Material's script and styles (~0.3 MB) and the search index (~0.2 MB with 16 pages; the
# notebooks are left out of it), which grows with every page. 1 MB leaves a page room for
# its own text, tables and SVG charts while the site grows. A rendered notebook also
# carries the ~0.6 MB of Jupyter styles mkdocs-jupyter inlines into it, and all of its
# snippets' code: 2 MB. A page over budget has picked up something heavy by mistake (a
# raster image, a huge output, notebooks back in the search index).
PAGE_BUDGET_BYTES = 1_000_000
NOTEBOOK_BUDGET_BYTES = 2_000_000
# The Sources page is a reference list that carries every source's own words (data/sources.yml,
# about 200 sources and 570 quotes, left out of the search index): its own text is the point
# of the page, so it gets a budget of its own, as the notebooks do.
SOURCES_BUDGET_BYTES = 1_500_000


def budget(path: str) -> int:
    if path.startswith("sources/"):
        return SOURCES_BUDGET_BYTES
    return NOTEBOOK_BUDGET_BYTES if path.startswith("notebooks/") else PAGE_BUDGET_BYTES


def describe(problems: dict[str, list]) -> str:
    return "\n".join(f"  /{path}: {found}" for path, found in problems.items() if found)


def test_the_navigation_lists_the_pages(nav_pages):
    assert "" in nav_pages, "the home page is not in the navigation"
    assert len(nav_pages) >= 4, nav_pages


def test_every_page_loads_with_http_200(visits):
    bad = {path: visit.status for path, visit in visits.items() if visit.status != 200}
    assert not bad, f"pages that did not load with HTTP 200: {bad}"


def test_no_page_logs_a_console_error_or_fails_a_request(visits):
    problems = {p: v.console_errors + v.failed_requests for p, v in visits.items()}
    assert not any(problems.values()), "console errors / failed requests:\n" + describe(problems)


def test_no_page_requests_another_host(visits):
    problems = {path: visit.foreign_requests for path, visit in visits.items()}
    assert not any(problems.values()), "requests to other hosts:\n" + describe(problems)


def test_every_chart_is_loaded_and_visible(visits):
    problems = {
        path: [
            chart["src"]
            for chart in visit.charts
            if not (chart["loaded"] and chart["visible"] and chart["width"] > 0)
            or chart["height"] <= 0
        ]
        for path, visit in visits.items()
    }
    assert not any(problems.values()), "charts missing or not visible:\n" + describe(problems)
    assert any(visit.charts for visit in visits.values()), "no page shows a chart"


def test_every_chart_says_what_it_shows(visits):
    problems = {p: [c["src"] for c in v.charts if not c["alt"].strip()] for p, v in visits.items()}
    assert not any(problems.values()), "charts without alt text:\n" + describe(problems)


def test_every_table_has_at_least_one_row(visits):
    problems = {
        path: [table["header"] for table in visit.tables if table["rows"] < 1]
        for path, visit in visits.items()
    }
    assert not any(problems.values()), "tables without a row:\n" + describe(problems)
    assert any(visit.tables for visit in visits.values()), "no page shows a table"


def test_every_page_stays_within_its_weight_budget(visits):
    report = "\n".join(
        f"  /{path}: {visit.transferred_bytes / 1e3:,.0f} kB (budget {budget(path) / 1e3:,.0f} kB)"
        for path, visit in sorted(visits.items(), key=lambda item: -item[1].transferred_bytes)
    )
    print(f"\ntransferred on a first visit, uncompressed:\n{report}")
    heavy = [p for p, v in visits.items() if v.transferred_bytes > budget(p)]
    assert not heavy, f"pages over their budget: {heavy}\n{report}"
    assert all(v.transferred_bytes > 0 for v in visits.values()), "a page transferred nothing"
