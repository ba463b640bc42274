"""MkDocs hooks (mkdocs.yml `hooks:`): keep the rendered notebooks out of the search index.

A notebook repeats the code its factor page shows, so indexing it would make every search
hit appear twice and would double the search index that every page downloads.
"""

from __future__ import annotations


def on_page_content(html, page, config, files):
    """Runs before the search plugin indexes the page (on_page_context)."""
    if page.file.src_uri.endswith(".ipynb"):
        page.meta["search"] = {"exclude": True}
    return html
