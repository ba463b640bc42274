"""Online check of the source ledger: fetch every source in data/sources.yml again, and report
the links that are gone and the quotes that are no longer found, as Markdown.

    python -m scripts.check_sources --out build/sources/report.md

Exit status: 0 when every link answers and every quote is found, 1 when something is
reported, 2 when the ledger itself is not valid. Needs the network, so `make test` never runs
it; the Sources workflow (.github/workflows/sources.yml) runs it monthly and on demand, and
tests/test_check_sources.py checks it offline with saved pages (`fetch` is injectable).

How a page is read: a GitHub file link (github.com/<owner>/<repo>/blob/<ref>/<path>) is
fetched as the raw file from raw.githubusercontent.com; a GitHub issue or pull request is read
through GitHub's REST API (the opening post and every comment, which the HTML page loads only
in part for long threads; with GITHUB_TOKEN set the API allows more requests); anything else
is fetched as it is. HTML is reduced to text (scripts and styles dropped, tags removed,
entities unescaped), and both the page and the quote are normalised the same way before the
quote is looked for: whitespace folded, typographic quotes and apostrophes made straight,
dashes and non-breaking spaces made plain, and Markdown's backticks and asterisks dropped
(a quote copied from a thread's Markdown reads `code` where the page shows code).
"""

from __future__ import annotations

import argparse
import datetime
import html
import json
import os
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from scripts.core import sources
from scripts.rendering.sources_page import escaped as _cell

USER_AGENT = "tf-apple-silicon-guide source check (python urllib)"
TIMEOUT_S = 30
GITHUB_BLOB = re.compile(r"https://github\.com/([^/]+)/([^/]+)/blob/(.+?)(?:#.*)?$")
GITHUB_THREAD = re.compile(r"https://github\.com/([^/]+)/([^/]+)/(?:issues|pull)/(\d+)(?:[#?].*)?$")
API = "https://api.github.com"
MAX_COMMENT_PAGES = 30  # 100 comments a page


@dataclass
class Page:
    """What a fetch returned: an HTTP status (None when no answer came), the text, its type."""

    status: int | None
    text: str = ""
    content_type: str = ""
    error: str = ""


Fetch = Callable[[str], Page]


def fetch_url(url: str) -> Page:
    """GET url with urllib; HTTP errors become a Page with their status, not an exception."""
    headers = {"User-Agent": USER_AGENT}
    if url.startswith(API + "/"):
        headers["Accept"] = "application/vnd.github+json"
        token = os.environ.get("GITHUB_TOKEN")
        if token:
            headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as answer:  # noqa: S310 (https only)
            body = answer.read()
            charset = answer.headers.get_content_charset() or "utf-8"
            return Page(
                answer.status, body.decode(charset, "replace"), answer.headers.get_content_type()
            )
    except urllib.error.HTTPError as error:
        return Page(error.code, "", "", f"HTTP {error.code} {error.reason}")
    except (urllib.error.URLError, TimeoutError, OSError) as error:
        reason = getattr(error, "reason", error)
        return Page(None, "", "", f"no answer: {reason}")


# --- text ---------------------------------------------------------------------------------

DROPPED = re.compile(r"<(script|style|template|noscript)\b.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
TAG = re.compile(r"<[^>]*>")
FOLDED = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "′": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "″": '"',
        "–": "-",
        "—": "-",
        "‐": "-",
        "‑": "-",
        "−": "-",
        "\u00a0": " ",
        "\u202f": " ",
        "\u200b": "",
        "`": "",
        "*": "",
    }
)


def html_text(markup: str) -> str:
    """The text of an HTML page: scripts, styles and comments dropped, tags removed,
    entities unescaped. A tag becomes nothing inside a word and a space between words."""
    markup = COMMENT.sub(" ", DROPPED.sub(" ", markup))
    markup = re.sub(
        r"<(?:br|p|div|li|tr|td|th|h[1-6]|pre|blockquote)\b[^>]*>", " ", markup, flags=re.I
    )
    return html.unescape(TAG.sub("", markup))


def normalised(text: str) -> str:
    """Text as compared: typographic characters made plain, whitespace folded."""
    return " ".join(text.translate(FOLDED).split())


def page_text(page: Page) -> str:
    looks_html = "html" in page.content_type or page.text.lstrip()[:200].lower().startswith(
        ("<!doctype html", "<html")
    )
    return normalised(html_text(page.text) if looks_html else page.text)


def found(quote: str, text: str) -> bool:
    return normalised(quote) in text


# --- where to read a source -------------------------------------------------------------


def raw_address(url: str) -> str:
    """The address that holds a source's text: a GitHub file as its raw file."""
    blob = GITHUB_BLOB.match(url)
    if blob:
        owner, repo, rest = blob.groups()
        return f"https://raw.githubusercontent.com/{owner}/{repo}/{rest}"
    return url.split("#", 1)[0]


def thread_text(owner: str, repo: str, number: str, fetch: Fetch) -> Page:
    """A GitHub issue or pull request's title, opening post and comments, from the REST API."""
    first = fetch(f"{API}/repos/{owner}/{repo}/issues/{number}")
    if first.status != 200:
        return first
    try:
        issue = json.loads(first.text)
        texts = [issue.get("title") or "", issue.get("body") or ""]
        for page in range(1, MAX_COMMENT_PAGES + 1):
            answer = fetch(
                f"{API}/repos/{owner}/{repo}/issues/{number}/comments?per_page=100&page={page}"
            )
            if answer.status != 200:
                return Page(answer.status, "", "", f"comments: {answer.error or answer.status}")
            comments = json.loads(answer.text)
            texts += [c.get("body") or "" for c in comments]
            if len(comments) < 100:
                break
    except (ValueError, AttributeError) as error:
        return Page(first.status, "", "", f"GitHub's answer is not the JSON expected: {error}")
    return Page(200, "\n\n".join(texts), "text/markdown")


def read_source(url: str, fetch: Fetch) -> Page:
    thread = GITHUB_THREAD.match(url)
    if thread:
        answer = thread_text(*thread.groups(), fetch)
        if answer.status is not None and answer.status < 400:
            return answer
        # The API refused (rate limit, no token): the page itself still says whether it exists.
        if answer.status not in (403, 429):
            return answer
    return fetch(raw_address(url))


# --- the check ----------------------------------------------------------------------------


@dataclass
class Report:
    checked: int = 0
    gone: list[tuple[dict, str]] = field(default_factory=list)  # (entry, what happened)
    missing: list[tuple[dict, dict]] = field(default_factory=list)  # (entry, supports item)

    @property
    def clean(self) -> bool:
        return not self.gone and not self.missing


def check(ledger: dict, fetch: Fetch = fetch_url, only: set[str] | None = None) -> Report:
    """Fetch each source once and look for each of its quotes."""
    report = Report()
    for entry in ledger["sources"]:
        if only and entry["id"] not in only:
            continue
        report.checked += 1
        page = read_source(entry["url"], fetch)
        if page.status is None or page.status >= 400:
            report.gone.append((entry, page.error or f"HTTP {page.status}"))
            continue
        text = page_text(page)
        for item in entry["supports"]:
            for quote in sources.quotes(item):
                if not found(quote, text):
                    report.missing.append((entry, {**item, "quote": quote}))
    return report


def markdown(report: Report, today: str) -> str:
    """The report as Markdown (an issue body, or the workflow's artifact)."""
    lines = [
        f"# Source check, {today}",
        "",
        f"{report.checked} sources checked: {len(report.gone)} links gone, "
        f"{len(report.missing)} quotes not found.",
    ]
    if report.gone:
        lines += [
            "",
            "## Links that are gone",
            "",
            "| Source | Link | What happened |",
            "|---|---|---|",
        ]
        for entry, what in report.gone:
            lines.append(
                f"| `{entry['id']}` {_cell(entry['title'])} | <{entry['url']}> | {_cell(what)} |"
            )
    if report.missing:
        lines += [
            "",
            "## Quotes no longer found",
            "",
            "The page answered, but these words were not in it. The source may have changed, "
            "or its text may be loaded by a script the check does not run: read the page, then "
            "update the quote and the date read in data/sources.yml, or the sentence that "
            "rests on it.",
            "",
        ]
        for entry, item in report.missing:
            lines.append(
                f"- `{entry['id']}` <{entry['url']}> (read {sources.date_text(entry['read'])}), "
                f"for {_cell(item['where'])}: “{_cell(item['quote'])}”"
            )
    if report.clean:
        lines += ["", "Every link answered and every quote was found."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None, fetch: Fetch = fetch_url) -> int:
    parser = argparse.ArgumentParser(prog="python -m scripts.check_sources", description=__doc__)
    parser.add_argument("--ledger", type=Path, default=sources.LEDGER)
    parser.add_argument("--out", type=Path, help="write the report here (default: print it)")
    parser.add_argument("--only", nargs="+", metavar="ID", help="check only these sources")
    args = parser.parse_args(argv)
    try:
        ledger = sources.load(args.ledger, root=None)
    except (sources.SourcesError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = check(ledger, fetch, set(args.only) if args.only else None)
    text = markdown(report, datetime.date.today().isoformat())
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
        print(f"{args.out}: {text.splitlines()[2]}")
    else:
        print(text, end="")
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
