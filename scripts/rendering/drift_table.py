"""Two runs' shared speed-ups as a Markdown table, A's with its band for a new session, the
drift from A to B and its flags, then a one-sentence summary: what `make compare` prints and
How we measure's reproducibility section shows. The rows are the findings'
(scripts/findings/comparison.py)."""

from __future__ import annotations

from scripts.findings.comparison import DRIFT_FLAG_PERCENT, Row


def table(rows: list[Row], a_name: str, b_name: str) -> str:
    def cell(value: tuple[float, float, float]) -> str:
        return f"{value[0]:.2f}× ({value[1]:.2f}–{value[2]:.2f})"

    lines = [
        f"| Speed-up | Claim | A: {a_name} (band for a new session) | B: {b_name} "
        "| Drift B vs A | Flag |",
        "|---|---|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row.key}` | {'yes' if row.claim else ''} | {cell(row.a)} | {cell(row.b)} "
            f"| {row.drift_percent:+.1f}% | {', '.join(row.flags)} |"
        )
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> str:
    claimed = [r for r in rows if r.claim]
    moved = [r for r in rows if abs(r.drift_percent) > DRIFT_FLAG_PERCENT]
    moved_claims = [r for r in claimed if abs(r.drift_percent) > DRIFT_FLAG_PERCENT]
    outside = [r for r in rows if not r.inside]
    return (
        f"{len(rows)} shared speed-ups: {len(moved)} drift more than ±{DRIFT_FLAG_PERCENT:g}%, "
        f"and {len(outside)} of B's points fall outside A's band for a new session (a "
        f"calibrated band: about 1 in 20). Claim speed-ups: {len(moved_claims)} of "
        f"{len(claimed)} drift more than ±{DRIFT_FLAG_PERCENT:g}%."
    )
