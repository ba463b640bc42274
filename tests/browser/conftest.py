"""Browser fixtures: the site built once, served on 127.0.0.1, and one headless Chromium.

Chromium is Debian's (/usr/bin/chromium, or $CHROMIUM); Playwright drives it and never
downloads a browser. Without it the tests skip locally and fail in CI (CI=true), unless
SKIP_BROWSER_TESTS gives a reason (the macOS job: no Debian Chromium there).
"""

from __future__ import annotations

import functools
import http.server
import os
import threading
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTPUT_DIR = ROOT / "test-output"
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# Without the background-networking flags Chromium's own connections are refused on a
# closed network; a new empty profile keeps runs independent of each other.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
SEARCH_INDEX = "/search/search_index.json"  # one file for the whole site, fetched by search
PHONE = {"width": 390, "height": 844}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by mark
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every browser test carries the end_to_end mark: `make check` leaves them out and
    `make test` runs them (pyproject.toml)."""
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(item.path).resolve().parents:
            item.add_marker(pytest.mark.end_to_end)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def browser_missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    if not (CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK)):
        return f"Chromium is not installed at {CHROMIUM}"
    return None


@pytest.fixture(scope="session")
def browser_available() -> None:
    reason = os.environ.get("SKIP_BROWSER_TESTS", "").strip()
    if reason:
        pytest.skip(f"browser tests skipped: SKIP_BROWSER_TESTS={reason!r}")
    missing = browser_missing()
    if missing and in_ci():
        pytest.fail(
            f"CI=true but {missing}: the browser tests must run in CI. "
            "Install Debian's Chromium first (`apt-get install chromium`, as .ci/run does).",
            pytrace=False,
        )
    if missing:
        pytest.skip(
            f"{missing}; install it with `apt-get install chromium` to run the browser tests"
        )


@pytest.fixture(scope="session")
def site_dir(browser_available, built_site) -> Path:
    """The site the other site tests read too (tests/conftest.py builds it once)."""
    return built_site


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture(scope="session")
def serve_directory():
    """A function that serves a folder on 127.0.0.1 (a free port, a thread) until the session
    ends, and returns its address."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def serve(directory: Path) -> str:
        handler = functools.partial(QuietHandler, directory=str(directory))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(site_dir, serve_directory) -> str:
    """http://127.0.0.1:<free port>/ serving the built site."""
    return serve_directory(site_dir)


@pytest.fixture(scope="session")
def context(browser_available, tmp_path_factory):
    """One headless Chromium with a new empty profile, shared by the browser tests."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as playwright:
        browser_context = playwright.chromium.launch_persistent_context(
            str(profile),
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport=DESKTOP,
            color_scheme="light",
        )
        browser_context.set_default_timeout(15_000)
        yield browser_context
        browser_context.close()


class NavLinks(HTMLParser):
    """The page links of the primary navigation, in order (Material renders it on every page)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # > 0 while inside <nav class="md-nav md-nav--primary">
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        if tag == "nav" and (self.depth or "md-nav--primary" in classes):
            self.depth += 1
        elif tag == "a" and self.depth and "md-nav__link" in classes:
            href = attributes.get("href") or ""
            if "#" not in href and href not in self.links:
                self.links.append(href)

    def handle_endtag(self, tag):
        if tag == "nav" and self.depth:
            self.depth -= 1


def url_path(site_dir: Path, page_file: Path) -> str:
    """The served path of a built page: '' for the home page, 'setup/' for setup/index.html."""
    return page_file.parent.relative_to(site_dir).as_posix().removeprefix(".") + "/"


@pytest.fixture(scope="session")
def nav_pages(site_dir) -> list[str]:
    """Every page the navigation links to, as served paths ('' = home), in nav order."""
    parser = NavLinks()
    parser.feed((site_dir / "index.html").read_text(encoding="utf-8"))
    pages = []
    for href in parser.links:
        path = urlsplit(href).path.removeprefix("./").removeprefix("/")
        pages.append("" if path in ("", ".") else path)
    assert pages, "no navigation links found on the home page"
    return list(dict.fromkeys(pages))


@pytest.fixture(scope="session")
def all_pages(site_dir, nav_pages) -> list[str]:
    """The navigation's pages, then every other page built (e.g. notebooks), without 404.html."""
    built = [url_path(site_dir, p).lstrip("/") for p in sorted(site_dir.rglob("index.html"))]
    return nav_pages + [p for p in built if p not in nav_pages]


@dataclass
class Visit:
    """What loading one page in a cold browser did."""

    path: str
    status: int | None = None
    console_errors: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    transferred_bytes: int = 0  # the page's own requests, the shared search index apart
    search_index_bytes: int = 0
    charts: list[dict] = field(default_factory=list)
    tables: list[dict] = field(default_factory=list)


CHARTS_JS = """() => Array.from(document.querySelectorAll("article img"))
    .filter((img) => /\\.svg([?#].*)?$/.test(img.getAttribute("src") || ""))
    .map((img) => img.getAttribute("src"))"""

# Open what hides the chart (a closed <details>, an inactive content tab), wait for it to
# load (the Results page loads its charts lazily), then measure it.
CHART_JS = """async (index) => {
    const img = Array.from(document.querySelectorAll("article img"))
        .filter((i) => /\\.svg([?#].*)?$/.test(i.getAttribute("src") || ""))[index];
    for (let node = img; node; node = node.parentElement) {
        if (node.tagName === "DETAILS") node.open = true;
        if (node.classList && node.classList.contains("tabbed-block")) {
            const blocks = Array.from(node.parentElement.children);
            const set = node.closest(".tabbed-set");
            const inputs = set.querySelectorAll(":scope > input");
            inputs[blocks.indexOf(node)].checked = true;
        }
    }
    img.scrollIntoView();
    if (!(img.complete && img.naturalWidth > 0)) {  // a lazy chart starts loading when shown
        await new Promise((done) => {
            img.addEventListener("load", done, { once: true });
            img.addEventListener("error", done, { once: true });
            setTimeout(done, 10000);
        });
    }
    const box = img.getBoundingClientRect();
    const style = getComputedStyle(img);
    return {
        src: img.getAttribute("src"),
        alt: img.getAttribute("alt") || "",
        loaded: img.complete && img.naturalWidth > 0,
        width: box.width,
        height: box.height,
        visible: style.visibility !== "hidden" && style.display !== "none" && style.opacity !== "0",
    };
}"""

TABLES_JS = """() => Array.from(document.querySelectorAll("article table")).map((table) => ({
    header: Array.from(table.querySelectorAll("thead th")).map((th) => th.innerText).join(" | "),
    rows: table.querySelectorAll("tbody tr").length,
}))"""


def is_local(url: str, base_url: str) -> bool:
    scheme = urlsplit(url).scheme
    if scheme in {"data", "blob", "about", "chrome", "devtools"}:
        return True  # not a network request
    return urlsplit(url).netloc == urlsplit(base_url).netloc


def visit(context, base_url: str, path: str) -> Visit:
    """Load one page with the cache disabled (a first visit) and record what happened."""
    result = Visit(path)
    page = context.new_page()
    finished = []
    page.on("console", lambda m: m.type == "error" and result.console_errors.append(m.text))
    page.on("pageerror", lambda e: result.console_errors.append(f"uncaught: {e}"))
    page.on("request", lambda r: is_local(r.url, base_url) or result.foreign_requests.append(r.url))
    page.on("requestfinished", lambda r: finished.append(r))
    page.on("requestfailed", lambda r: result.failed_requests.append(f"{r.url} ({r.failure})"))
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    try:
        response = page.goto(base_url + path, wait_until="load")
        result.status = response.status if response else None
        page.wait_for_load_state("networkidle")
        for request in finished:
            # The body itself, not sizes()["responseBodySize"]: Chromium reports 0 there for
            # the search worker's script, which a first visit does download.
            response = request.response()
            body = len(response.body()) if response and response.status == 200 else 0
            size = body + request.sizes()["responseHeadersSize"]
            if urlsplit(request.url).path.endswith(SEARCH_INDEX):
                result.search_index_bytes += size
            else:
                result.transferred_bytes += size
        chart_count = len(page.evaluate(CHARTS_JS))
        result.charts = [page.evaluate(CHART_JS, index) for index in range(chart_count)]
        result.tables = page.evaluate(TABLES_JS)
    finally:
        cdp.detach()
        page.close()
    return result


@pytest.fixture(scope="session")
def visits(context, base_url, all_pages) -> dict[str, Visit]:
    """Every page loaded once, cold; the page tests check what these visits recorded."""
    return {path: visit(context, base_url, path) for path in all_pages}


@pytest.fixture(scope="session")
def factor_page(nav_pages, visits) -> str:
    """The first page in the navigation that shows a chart: a factor page."""
    with_charts = [p for p in nav_pages if visits[p].charts]
    assert with_charts, "no page in the navigation shows a chart"
    return with_charts[0]


@pytest.fixture(scope="session")
def viewports() -> dict[str, dict]:
    return {"desktop": DESKTOP, "phone": PHONE}


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    """test-output/screenshots/ (git ignores test-output/): for a person to look at."""
    folder = OUTPUT_DIR / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture()
def page(context):
    page = context.new_page()
    yield page
    page.close()
