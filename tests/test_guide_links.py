"""Links to the guide as the doctor and tune print them (scripts/core/guide_links.py): pages
of the published site when tf-doctor.pyz carries the site's address, repository paths
otherwise; the address read from the archive itself, so a reader offline still gets it."""

from __future__ import annotations

import zipfile

from scripts.core import guide_links, project_files
from scripts.core.guide_links import addresses_in, guide_address

SITE = "https://example-owner.github.io/tf-guide/"


def test_a_repository_path_becomes_the_sites_page():
    assert guide_address("docs/setup.md#check-x", SITE) == f"{SITE}setup/#check-x"
    assert guide_address("docs/results.md", SITE) == f"{SITE}results/"
    assert guide_address("docs/index.md#start", SITE) == f"{SITE}#start"
    assert guide_address("docs/setup.md", SITE.rstrip("/")) == f"{SITE}setup/"


def test_without_the_sites_address_or_a_guide_page_the_text_is_kept():
    assert guide_address("docs/setup.md#check-x", None) == "docs/setup.md#check-x"
    assert guide_address("https://pypi.org/project/keras/", SITE) == (
        "https://pypi.org/project/keras/"
    )
    assert guide_address(None, SITE) is None


def test_links_inside_a_sentence_are_addressed_and_nothing_else():
    note = (
        "no GPU here (docs/setup.md#check-that-tensorflow-sees-the-gpu; python tf-doctor.pyz "
        "says more); see docs/memory.md#what-to-do, not my/docs/notes.md#x or docs/notes.md"
    )
    assert addresses_in(note, SITE) == (
        f"no GPU here ({SITE}setup/#check-that-tensorflow-sees-the-gpu; python tf-doctor.pyz "
        f"says more); see {SITE}memory/#what-to-do, not my/docs/notes.md#x or docs/notes.md"
    )
    assert addresses_in(note, None) == note


def test_the_address_is_read_from_the_archive(monkeypatch, tmp_path):
    archive = tmp_path / "tf-doctor.pyz"
    with zipfile.ZipFile(archive, "w") as written:
        written.writestr(guide_links.SITE_URL_MEMBER, f" {SITE}\n")
    monkeypatch.setattr(project_files, "ROOT", archive)
    assert guide_links.site_url() == SITE
    with zipfile.ZipFile(archive, "w") as written:  # built without a site_url
        written.writestr("scripts/__init__.py", "")
    assert guide_links.site_url() is None


def test_a_checkout_has_no_address_and_prints_repository_paths():
    assert not (project_files.ROOT / guide_links.SITE_URL_MEMBER).exists()
    assert guide_links.site_url() is None
