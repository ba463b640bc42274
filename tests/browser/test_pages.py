"""Every page, loaded cold in Chromium: it loads, stays local, shows its charts and tables."""

from __future__ import annotations

# What a first visit to a page may transfer, uncompressed (the test server does not compress;
# GitHub Pages does, so readers download less), the search index apart. Every page pays
# Material's script and styles first (~0.3 MB). 0.7 MB leaves a page room for its own text,
# tables and SVG charts (the Symptoms page, the largest, is ~0.35 MB of its own). A rendered
# notebook also carries the ~0.6 MB of Jupyter styles mkdocs-jupyter inlines into it, and all
# of its snippets' code: 1.4 MB. A page over budget has picked up something heavy by mistake
# (a raster image, a huge output).
PAGE_BUDGET_BYTES = 700_000
NOTEBOOK_BUDGET_BYTES = 1_400_000
# The Sources page is a reference list that carries every source's own words (data/sources.yml,
# about 360 sources, left out of the search index): its own text is the point of the page,
# so it gets a budget of its own, as the notebooks do.
SOURCES_BUDGET_BYTES = 1_000_000
# The Symptoms page is the index of error messages readers paste (97 entries since issue 39,
# each with its verbatim message, cause, fix and sources): like the Sources page, its own text
# is the point of the page, so it gets a budget of its own, with room for more entries.
SYMPTOMS_BUDGET_BYTES = 900_000
# The search index is one file for the whole site, which the first page's search fetches and
# later pages take from the browser's cache. It carries every page's text, the error messages
# readers paste among it (issue 20: 60 and more of them), so it is counted once, on its own:
# until the symptom page grew to 82 entries it was counted in every page's 1 MB. 0.8 MB, with
# ~0.6 MB today, leaves room for the guide to grow; notebooks and the measured and published
# tables stay out of it, and a page that puts them back shows here.
SEARCH_INDEX_BUDGET_BYTES = 800_000


def budget(path: str) -> int:
    if path.startswith("sources/"):
        return SOURCES_BUDGET_BYTES
    if path.startswith("symptoms/"):
        return SYMPTOMS_BUDGET_BYTES
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


def test_the_search_index_is_one_file_within_its_budget(visits):
    sizes = {visit.search_index_bytes for visit in visits.values() if visit.search_index_bytes}
    assert sizes, "no page fetched the search index"
    assert len(sizes) == 1, f"the search index differs from page to page: {sorted(sizes)}"
    size = sizes.pop()
    print(f"\nsearch index, fetched once per visit: {size / 1e3:,.0f} kB")
    assert size <= SEARCH_INDEX_BUDGET_BYTES, (
        f"the search index is {size / 1e3:,.0f} kB (budget {SEARCH_INDEX_BUDGET_BYTES / 1e3:,.0f} kB)"
    )


def test_every_page_stays_within_its_weight_budget(visits):
    report = "\n".join(
        f"  /{path}: {visit.transferred_bytes / 1e3:,.0f} kB (budget {budget(path) / 1e3:,.0f} kB)"
        for path, visit in sorted(visits.items(), key=lambda item: -item[1].transferred_bytes)
    )
    print(f"\ntransferred on a first visit, uncompressed:\n{report}")
    heavy = [p for p, v in visits.items() if v.transferred_bytes > budget(p)]
    assert not heavy, f"pages over their budget: {heavy}\n{report}"
    assert all(v.transferred_bytes > 0 for v in visits.values()), "a page transferred nothing"
