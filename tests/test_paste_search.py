"""docs/javascripts/paste_search.js, the query clean-up that lets a pasted error message find
its symptom (issue 39): the site loads it, and it splits words where the index does.

What it does to queries is checked in the browser (tests/browser/test_symptom_search.py)."""

from __future__ import annotations

import re

import yaml

from scripts.core.catalog import ROOT

SCRIPT = ROOT / "docs" / "javascripts" / "paste_search.js"


class IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml's !ENV and !!python/name tags; their values do not matter here."""


IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)
IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


def mkdocs_config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=IgnoreTags)


def index_separator(config: dict) -> str:
    for plugin in config["plugins"]:
        if isinstance(plugin, dict) and "search" in plugin:
            return plugin["search"]["separator"]
    raise AssertionError("mkdocs.yml configures no search separator")


def test_every_page_loads_the_script():
    assert "javascripts/paste_search.js" in mkdocs_config().get("extra_javascript", [])
    assert SCRIPT.is_file()


def test_the_script_splits_words_where_the_index_does():
    """A whole number is left out only when it is a word of its own in the index too: the
    script's copy of the separator must be mkdocs.yml's."""
    found = re.search(r"const SEPARATOR = /(.+)/;", SCRIPT.read_text(encoding="utf-8"))
    assert found, f"{SCRIPT.name}: no SEPARATOR regular expression"
    assert found.group(1) == index_separator(mkdocs_config())
