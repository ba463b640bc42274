"""Links to the guide's pages as the doctor and tune print them: a repository path
('docs/setup.md#x') from a checkout, which has docs/; a page of the published site from
tf-doctor.pyz built for the site, which carries the site's address (mkdocs.yml's site_url).
The address is text in the archive: a reader offline still gets it. An archive built without
a site_url prints the repository paths.

Standard library only: the doctor and tune import it inside tf-doctor.pyz.
"""

from __future__ import annotations

import re

from scripts.core import project_files

# Inside tf-doctor.pyz only: the address of the site it was downloaded from.
SITE_URL_MEMBER = "scripts/core/site_url.txt"
# A link to a section of the guide written inside a sentence: docs/<page>.md#<anchor>.
IN_TEXT = re.compile(r"(?<![\w./-])docs/[a-z0-9-]+\.md#[a-z0-9_-]+")


def site_url() -> str | None:
    """The published guide's address, which tf-doctor.pyz carries when built for the site."""
    try:
        return project_files.read_text(project_files.ROOT / SITE_URL_MEMBER).strip() or None
    except (OSError, KeyError):
        return None


def guide_address(guide: str | None, site: str | None) -> str | None:
    """'docs/setup.md#x' as a page of the published site when its address is known."""
    if not guide or not site or not guide.startswith("docs/"):
        return guide
    page, _, anchor = guide.removeprefix("docs/").partition("#")
    path = "" if page == "index.md" else page.removesuffix(".md") + "/"
    return f"{site.rstrip('/')}/{path}" + (f"#{anchor}" if anchor else "")


def addresses_in(text: str, site: str | None) -> str:
    """A sentence with each guide link in it (docs/<page>.md#<anchor>) as guide_address
    gives it."""
    if not site:
        return text
    return IN_TEXT.sub(lambda found: guide_address(found.group(), site), text)
