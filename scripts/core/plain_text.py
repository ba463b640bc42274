"""Text from results files is untrusted: what validation allows in it.

Results files arrive in pull requests from strangers. Validation admits only plain text in
their free-text fields (`problem`) and captured output without control characters
(`output_problem`). The renderer escapes every such string all the same
(scripts/rendering/escaping.py), so a file that slipped past validation still shows as text,
never as markup, a link or a script.
"""

from __future__ import annotations

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
