"""Version numbers compared as pip compares them (PEP 440): 2.16.0rc1 comes before 2.16.0.

packaging.version does the work. A bare interpreter (`python -S`, the doctor run from a
checkout with nothing installed) has no packaging, so a small reading of the same rules
stands in: release numbers, then a/b/rc pre-releases, .post and .dev. A test checks that the
two order a list of real version strings alike. tf-doctor.pyz bundles packaging itself.
"""

from __future__ import annotations

import re

try:
    from packaging.version import InvalidVersion, Version
except ImportError:  # no site-packages: the stand-in below decides
    Version = None  # type: ignore[assignment,misc]

    class InvalidVersion(ValueError):  # type: ignore[no-redef]
        pass


PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
PEP440 = re.compile(
    r"v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>alpha|beta|preview|pre|a|b|c|rc)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?",
    re.IGNORECASE,
)


def release(text: str | None) -> tuple[int, ...]:
    """The release numbers: '2.16.0rc1' -> (2, 16, 0); '' -> ().

    For "which release line" questions (2.16.0rc1 is TensorFlow 2.16, with its Keras 3
    default); order() compares whole versions.
    """
    match = PEP440.match((text or "").strip())
    return tuple(int(part) for part in match.group("release").split(".")) if match else ()


def _stand_in(text: str) -> tuple | None:
    match = PEP440.fullmatch(text)
    if not match:
        return None
    numbers = list(release(text))
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()  # 1.1 and 1.1.0 are one version
    pre, post, dev = match.group("pre"), match.group("post"), match.group("dev")
    if pre:
        pre_key: tuple = (0, PRE_RANK[pre.lower()], int(match.group("pre_n") or 0))
    else:
        pre_key = (-1,) if dev is not None and post is None else (1,)  # 1.0.dev1 < 1.0a1
    post_key = -1 if post is None else int(post or 0)
    dev_key: tuple = (1,) if dev is None else (0, int(dev or 0))
    return (tuple(numbers), pre_key, post_key, dev_key)


def order(text: str | None):
    """A key that sorts and compares versions as pip does, or None for text that is none."""
    text = (text or "").strip()
    if Version is None:
        return _stand_in(text)
    try:
        return Version(text)
    except InvalidVersion:
        return None
