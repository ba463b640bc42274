"""Read something from a page once it stops changing: the site search re-renders its results
while the query typed last is still being processed, and a value read too early is replaced."""

from __future__ import annotations


def settled_read(page, script: str, what: str, quiet_ms: int = 300, limit_ms: int = 10_000):
    """page.evaluate(script), once two reads quiet_ms apart agree and are not empty."""
    previous, waited = page.evaluate(script), 0
    while waited < limit_ms:
        page.wait_for_timeout(quiet_ms)
        waited += quiet_ms
        current = page.evaluate(script)
        if current and current == previous:
            return current
        previous = current
    raise AssertionError(f"{what} still changing after {limit_ms} ms")
