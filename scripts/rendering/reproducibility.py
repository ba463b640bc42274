"""How we measure's reproducibility section: two sessions of one machine compared speed-up by
speed-up (scripts/findings/comparison.py, shown as scripts/rendering/drift_table.py writes
it), each machine's latest session against the one before."""

from __future__ import annotations

from scripts.findings.comparison import compare
from scripts.rendering import names
from scripts.rendering.drift_table import summary, table


def run_dates(data: dict) -> str:
    """When the run measured, and the load the noise check read as it started."""
    entries = sorted(data["entries"].values(), key=lambda e: e["date"])
    if not entries:
        return "no entries"
    words = f"{entries[0]['date'][:16].replace('T', ' ')} to {entries[-1]['date'][11:16]} UTC"
    load = (entries[0].get("conditions") or {}).get("load_1m")
    return words + (f", load average {load} at the start" if load is not None else "")


def same_code_words(first: dict, second: dict) -> str:
    """Whether the two runs measured the same snippet files, and at which commits."""

    def versions(data: dict) -> dict:
        return {k: e["snippet_sha256"] for k, e in data["entries"].items()}

    def commits(data: dict) -> str:
        return ", ".join(sorted({(e["commit"] or "unknown")[:7] for e in data["entries"].values()}))

    shared = versions(first).keys() & versions(second).keys()
    same = all(versions(first)[k] == versions(second)[k] for k in shared)
    return (
        f"{'The same' if same else 'Different'} snippet versions in both runs (commits "
        f"{commits(first)} and {commits(second)})."
    )


def origin_words(origins: list[str] | None, number: int) -> str:
    return f" ({origins[number]})" if origins else ""


def compared_entries(data: dict, keys) -> dict:
    """The run with only the entries named by keys."""
    return {**data, "entries": {key: data["entries"][key] for key in keys}}


def session_run(data: dict, session: dict) -> dict:
    """One session of a view, shaped as a run for compare: the machine and its entries."""
    return {"machine": data["machine"], "entries": session["entries"]}


def machine_sections(data: dict, claim_list: list[dict]) -> list[str]:
    """The machine's latest session with a claim speed-up against the session before it."""
    sessions = [s for s in data["sessions"] if len(s["entries"]) >= 20]
    if len(sessions) < 2:
        return []
    first, second = (session_run(data, s) for s in sessions[-2:])
    origins = [s["origin"] for s in sessions[-2:]]
    return [reproducibility_section(first, second, claim_list, origins, data.get("spread"))]


def reproducibility_section(
    first: dict,
    second: dict,
    claim_list: list[dict],
    origins: list[str] | None = None,
    spread: object = None,
) -> str:
    """How far two sessions on one machine moved every shared speed-up (How we measure).

    Both hold plain-text-escaped strings (render passes escaped data); origins says how each
    session came into the file."""
    rows = compare(first, second, claim_list, spread)
    claimed = [r for r in rows if r.claim]
    # Dates and commits of the entries both runs hold: the published file also keeps entries
    # measured later (a new snippet), which are not compared and would stretch run A's span.
    shared = first["entries"].keys() & second["entries"].keys()
    run_a, run_b = compared_entries(first, shared), compared_entries(second, shared)
    return (
        f"**{names.of(first['machine'])}**, two sessions of "
        f"`results/{first['machine']['id']}.json`. The entries both runs hold were measured:\n\n"
        f"- in run A, {run_dates(run_a)}{origin_words(origins, 0)};\n"
        f"- in run B, {run_dates(run_b)}{origin_words(origins, 1)}.\n\n"
        f"{same_code_words(run_a, run_b)}\n\n"
        + summary(rows)
        + "\n\nThe claims' speed-ups:\n\n"
        + table(claimed, "run A", "run B")
        + '\n??? note "Every shared speed-up"\n\n'
        + "".join(
            f"    {line}\n" if line else "\n" for line in table(rows, "run A", "run B").splitlines()
        )
    )
