"""How pages show untrusted text (results files, the ledger): escaped for Markdown and HTML, or
in a code block whose fence nothing inside can close.

Validation admits only plain text in results files' free-text fields
(scripts/core/plain_text.py); the renderer still escapes every such string (`escape`,
`escaped_results`), so a file that slipped past validation shows as text, never as markup, a
link or a script.
"""

from __future__ import annotations

import html
import re

# Characters that Markdown (with the site's extensions) or HTML would read as markup.
SPECIAL = "\\`*_{}[]<>|&#!"


def escape(text: str) -> str:
    """text, to appear as itself in Markdown (tables included) and HTML."""
    out = []
    for ch in text:
        if ch in '<>&"':
            out.append(html.escape(ch))
        elif ch in SPECIAL:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def fence(text: str, info: str = "text") -> str:
    """text in a fenced code block whose fence is longer than any backtick run inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{text}\n{marks}\n"


# Fields whose values are patterns checked by validation (ids, names, hashes) stay as they are:
# pages show them in code spans, where an escape would be printed literally.
UNESCAPED_MACHINE = ("id", "cpu_features")
UNESCAPED_ENTRY = ("snippet", "variant", "baseline", "snippet_sha256", "snippet_path")


def escaped_results(data: dict) -> dict:
    """A copy of one results view (results_views.view) with every free-text string escaped for
    pages.

    Captured outputs are left as text: the renderer shows them inside `fence`.
    """
    machine = {
        key: value if key in UNESCAPED_MACHINE else _escaped(value)
        for key, value in data["machine"].items()
    }
    escaped = dict(data, machine=machine, entries=_escaped_entries(data["entries"]))
    if "sessions" in data:
        escaped["sessions"] = [
            dict(s, origin=escape(s["origin"]), entries=_escaped_entries(s["entries"]))
            for s in data["sessions"]
        ]
    return escaped


def _escaped_entries(entries: dict) -> dict:
    return {
        key: {
            field: value if field in UNESCAPED_ENTRY else _escaped(value)
            for field, value in entry.items()
        }
        for key, entry in entries.items()
    }


def _escaped(value):
    """Strings escaped, containers walked, numbers and flags as they are."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    return value
