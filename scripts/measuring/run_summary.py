"""What a run prints about what it measured: each variant's row, the session's noise against
this machine's other sessions, and a quick run's speed-ups beside the guide's."""

from __future__ import annotations

from pathlib import Path

from scripts.core import store as results
from scripts.findings import noisy, results_views
from scripts.measuring import versus_guide


def noise_words(data: dict, session_id: str) -> str:
    """How many of this run's variants were noisier than they usually are on this machine and
    stack (scripts/findings/noisy.py), and whether that makes the session unusual."""
    session = next((s for s in data["sessions"] if s["id"] == session_id), None)
    if session is None:
        return "This run added no session (nothing was measured)."
    same_stack = [s for s in data["sessions"] if s["stack"] == session["stack"]]
    found = noisy.session_noise(same_stack, session_id)
    if not found.judged:
        return (
            f"Session {session_id}: {session['noisy_variants']} of {session['variants']} "
            "variants spread over 10% (IQR/median). No earlier session of this machine and "
            "stack says whether that is usual for them."
        )
    words = (
        f"Session {session_id}: {len(found.noisier)} of {found.judged} variants noisier than "
        f"usual (IQR/median over {noisy.FACTOR:g} times their median in this machine's other "
        f"sessions, and over {noisy.FLOOR:.0%})."
    )
    if found.unusual:
        words += (
            " More than half: an unusual session. It is kept and counted; a quieter machine "
            "gives narrower intervals."
        )
    return words


def format_row(key: str, stats: dict) -> str:
    """One variant's line: median, spread (IQR/median), rate if known, and NOISY over 10%."""
    noisy = "  NOISY" if stats["noisy"] else ""
    rate = stats.get("throughput_per_s")
    rate_text = f"{rate:12.0f}/s" if rate else " " * 14
    return (
        f"{key:48s} {stats['median_s'] * 1e3:10.2f} ms  "
        f"IQR/median {stats['iqr_over_median'] * 100:5.1f}%{rate_text}{noisy}"
    )


def versus_the_guide_on(stack_id: str, path: Path, results_dir: Path = results.RESULTS_DIR) -> str:
    """A quick run's speed-ups beside the guide's machines' on the same stack, never
    another stack's (the guide's files are read for that stack's sessions only)."""
    every = results_views.stack_views(results.read(p) for p in sorted(results_dir.glob("*.json")))
    guide = [v for v in every if v["stack"] == stack_id]
    mine = results_views.view(results.read(path), every[0]["spread"] if every else None, stack_id)
    return f"Stack {stack_id}:\n" + versus_guide.versus_the_guide(mine, guide)
