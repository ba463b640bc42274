"""Text from results files is untrusted: what validation allows in it, and how pages show it.

Results files arrive in pull requests from strangers. Validation admits only plain text in
their free-text fields (`problem`), and the renderer escapes every such string for Markdown
and HTML (`escape`, `escaped_results`), so a file that slipped past validation still shows
as text, never as markup, a link or a script.
"""

from __future__ import annotations

import html
import re

# Letters and digits of any script, space, and punctuation that names of machines, versions
# and variant labels use ('->' among them). Not allowed: < & ` \ { } | * $ and control characters.
PLAIN = re.compile(r"[\w .,:;()\[\]'\"+\-/=@%#!?~×→>–—™®°]*")
# Sequences that are markup even when every character is allowed.
MARKUP = (("](", "a Markdown link"), ("__", "Markdown emphasis"))
# Words that are script wherever they land in HTML, even spelled with allowed characters.
SCRIPT_WORDS = re.compile(r"\bon[a-z]+\s*=|\b(?:java|vb)script\s*:", re.IGNORECASE)
# Captured output is shown in a code block; only control characters are refused there.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Characters that Markdown (with the site's extensions) or HTML would read as markup.
SPECIAL = "\\`*_{}[]<>|&#!"


def problem(value: str) -> str | None:
    """Why value is not plain text, or None if it is."""
    if not PLAIN.fullmatch(value):
        bad = sorted({ch for ch in value if not PLAIN.fullmatch(ch)})
        shown = " ".join(repr(ch) for ch in bad[:5])
        return (
            "only plain text is allowed (letters, digits, spaces, .,:;()[]'\"+-/=@%#!?~>); "
            f"found {shown}"
        )
    for sequence, what in MARKUP:
        if sequence in value:
            return f"only plain text is allowed; {sequence!r} would make {what}"
    script = SCRIPT_WORDS.search(value)
    if script:
        return f"only plain text is allowed; {script.group()!r} is script in HTML"
    return None


def output_problem(value: str) -> str | None:
    """Why captured output cannot be shown, or None."""
    found = CONTROL.search(value)
    return f"control character {found.group()!r} is not allowed" if found else None


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
    """A copy of one results view (store.view) with every free-text string escaped for pages.

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
