"""What a reader pastes into the site search to find a symptom: the line the search tests use.

Shared by the symptom index tests (the built search index holds it) and the browser test of
the site search (searching for it finds the entry).
"""

from __future__ import annotations

from scripts.rendering import symptoms


def search_line(entry: dict) -> str:
    """A verbatim entry's `search_text` (the fixed part of a message whose addresses, paths or
    sizes vary), else the longest line of its message and of its other versions' wordings."""
    return entry.get("search_text") or max(symptoms.message_lines(entry), key=len)
