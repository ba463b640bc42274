"""No broken internal link in the built site: every local href/src is a file, every #anchor exists.

The strict build already refuses broken Markdown links (validation in mkdocs.yml); this
checks the HTML that comes out, including raw-HTML links, theme assets and notebook pages.
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest

LINK_ATTRIBUTES = {"href", "src", "data", "poster"}


class PageLinks(HTMLParser):
    """The ids in a page and the links it makes (a/link href, img/script src...)."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value and (name == "id" or tag == "a"):
                self.ids.add(value)
            elif name in LINK_ATTRIBUTES and value and value.strip():
                self.links.append((tag, value.strip()))
            elif name == "srcset" and value:
                self.links += [(tag, part.split()[0]) for part in value.split(",") if part.strip()]


@pytest.fixture(scope="module")
def pages(built_site) -> dict[str, PageLinks]:
    """Every built HTML page by its path in the site, parsed."""
    parsed = {}
    for path in sorted(built_site.rglob("*.html")):
        parser = PageLinks()
        parser.feed(path.read_text(encoding="utf-8"))
        parsed[path.relative_to(built_site).as_posix()] = parser
    return parsed


def target_file(site: Path, page: str, url: str) -> tuple[Path, str] | None:
    """(file the link resolves to, fragment), or None for a link that leaves the site."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith(("mailto:", "javascript:")):
        return None
    if page == "404.html" and parts.path.startswith("/"):
        return None  # the 404 page links from the site root, whatever the URL that failed
    if not parts.path:
        return site / page, parts.fragment  # "#anchor": on the same page
    resolved = urlsplit(urljoin("http://site/" + page, parts.path)).path
    file = site / unquote(resolved).lstrip("/")
    if resolved.endswith("/") or file.is_dir():
        file = file / "index.html"
    return file, parts.fragment


def test_every_local_link_resolves_to_a_file(built_site, pages):
    broken = []
    for page, parsed in pages.items():
        for tag, url in parsed.links:
            target = target_file(built_site, page, url)
            if target is not None and not target[0].is_file():
                broken.append(f"{page}: <{tag}> {url}")
    assert not broken, "links to files the site does not have:\n  " + "\n  ".join(broken)


def test_every_anchor_exists(built_site, pages):
    missing = []
    for page, parsed in pages.items():
        for tag, url in parsed.links:
            target = target_file(built_site, page, url)
            if target is None or not target[1] or target[0].suffix != ".html":
                continue
            name = target[0].relative_to(built_site).as_posix()
            if name in pages and unquote(target[1]) not in pages[name].ids:
                missing.append(f"{page}: <{tag}> {url}")
    assert not missing, "links to anchors that do not exist:\n  " + "\n  ".join(missing)
