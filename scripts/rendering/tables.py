"""Markdown tables and text fragments rendered from results data (no measuring here)."""

from __future__ import annotations

from scripts.core import outcomes, workload
from scripts.core.catalog import CEILING_KEY, is_current
from scripts.findings import noisy as noisy_rule
from scripts.findings.pairs import Findings
from scripts.rendering import escaping, names

NOISY_MARK = " (noisier than usual)"


def format_seconds(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds * 1e6:.0f} µs"


def format_rate(rate: float | None) -> str:
    return f"{rate:,.0f}" if rate else "–"


def software_words(software: dict) -> str:
    words = [
        f"TensorFlow {software['tensorflow']}",
        f"Keras {software['keras']}",
        f"Python {software['python']}",
    ]
    if software.get("tensorflow_metal"):
        words.append(f"tensorflow-metal {software['tensorflow_metal']}")
    return ", ".join(words)


def snippet_entries(data: dict, snippet: str) -> list[dict]:
    """This snippet's entries in one results file, in the snippet's variant order."""
    entries = [e for e in data["entries"].values() if e["snippet"] == snippet]
    return sorted(entries, key=lambda e: (e.get("order", 0), e["variant"]))


def provenance_line(data: dict, entries: list[dict]) -> str:
    first = entries[0]
    dates = sorted({e["date"][:10] for e in entries})
    commits = sorted(
        {(e["commit"] or "unknown")[:7] + ("+dirty" if e["dirty"] else "") for e in entries}
    )
    dirty = (
        "; +dirty: measured with uncommitted changes to the snippets or scripts, so no commit "
        "reproduces it exactly"
        if any(e["dirty"] for e in entries)
        else ""
    )
    return (
        f"**{names.of(data['machine'])}** · {data['machine']['os_version']} · "
        f"{software_words(first['software'])} · measured {', '.join(dates)} "
        f"(commit {', '.join(commits)}{dirty}){sessions_words(data, entries)}"
    )


# Marks a row measured on an earlier version of its snippet; the table says it once above.
EARLIER_MARK = "†"


def sessions_of(data: dict, entries: list[dict]) -> list[dict]:
    """The machine's sessions that measured any of these entries' snippet versions."""
    wanted = {(f"{e['snippet']}:{e['variant']}", workload.key(e)) for e in entries}
    return [
        s
        for s in data.get("sessions", [])
        if any((k, workload.key(e)) in wanted for k, e in s["entries"].items())
    ]


def sessions_words(data: dict, entries: list[dict]) -> str:
    """' · speed-ups pooled over 3 sessions (dates; 1 unusually noisy); medians from the
    latest'."""
    sessions = sessions_of(data, entries)
    if len(sessions) < 2:
        return ""
    dates = ", ".join(s["id"][:10] for s in sessions)
    unusual = noisy_rule.unusual_sessions(data["sessions"])
    marked = sum(1 for s in sessions if s["id"] in unusual)
    noisy = f"; {marked} unusually noisy" if marked else ""
    return (
        f" · speed-ups pooled over {len(sessions)} sessions ({dates}{noisy}); medians and "
        "spreads from the latest"
    )


def ceiling_gflops(data: dict) -> float | None:
    """This machine's measured FP32 matmul rate, the reference for 'share of ceiling'."""
    entry = data["entries"].get(CEILING_KEY)
    return entry["stats"].get("gflops_per_s") if entry else None


def format_bytes(count: float) -> str:
    return f"{count / 2**30:.2f} GiB" if count >= 2**30 else f"{count / 2**20:.0f} MiB"


def speedup_words(
    data: dict, baseline: dict, variant: dict, findings: Findings | None = None
) -> str:
    """'1.77× (1.70–1.85)' for two entries of one machine: the finding's speed-up over its
    sittings with the long-run interval; 'no clear difference' where the findings stage says
    so; '–' where no session holds both with timings."""
    findings = findings or Findings([data])
    keys = [f"{e['snippet']}:{e['variant']}" for e in (baseline, variant)]
    found = findings.pair(data, *keys)
    if found is None:
        return "–"
    words = names.speedup(found.point, found.low, found.high)
    no_difference = found.direction == outcomes.NO_CLEAR_DIFFERENCE
    return words + (f", {outcomes.NO_CLEAR_DIFFERENCE}" if no_difference else "")


def comparison_table(
    data: dict, entries: list[dict], root, findings: Findings | None = None
) -> str:
    """One machine's table for one snippet: median, spread, speed-up vs the baseline, rate.

    Entries with a FLOP count add GFLOP/s and the share of this machine's ceiling; snippets
    measured one process per variant add each variant's peak resident memory.
    """
    baseline = next((e for e in entries if e["variant"] == e["baseline"]), None)
    with_flops = any("gflops_per_s" in e["stats"] for e in entries)
    with_memory = all(e["method"].get("process") == "one child per variant" for e in entries)
    ceiling = ceiling_gflops(data)
    header = (
        "| Variant | Median per run | Spread (IQR/median) | Speed-up vs baseline | Examples/s |"
    )
    rule = "|---|---:|---:|---:|---:|"
    if with_flops:
        header += " GFLOP/s | Share of this machine's FP32 ceiling |"
        rule += "---:|---:|"
    if with_memory:
        header += " Peak memory (RSS) |"
        rule += "---:|"
    lines = [provenance_line(data, entries), "", header, rule]
    earlier = [e for e in entries if not is_current(e, root)]
    if earlier:
        said = (
            "Every row was" if len(earlier) == len(entries) else f"Rows marked {EARLIER_MARK} were"
        )
        lines[1:1] = ["", f"{said} measured on an earlier version of this snippet."]
    for entry in entries:
        stats = entry["stats"]
        if baseline is None:
            speedup = "–"
        elif entry is baseline:
            speedup = "1.00× (baseline)"
        elif entry.get("reference"):
            speedup = "– (reference)"
        else:
            speedup = speedup_words(data, baseline, entry, findings)
        key = f"{entry['snippet']}:{entry['variant']}"
        mark = NOISY_MARK if noisy_rule.entry_noisier(data, key) else ""
        spread = f"{stats['iqr_over_median'] * 100:.1f}%" + mark
        label = f"`{entry['variant']}`: {entry['label']}"
        if not is_current(entry, root):
            label += f" {EARLIER_MARK}"
        row = (
            f"| {label} | {format_seconds(stats['median_s'])} | {spread} | {speedup} "
            f"| {format_rate(stats.get('throughput_per_s'))} |"
        )
        if with_flops:
            rate = stats.get("gflops_per_s")
            share = f"{rate / ceiling * 100:.1f}%" if rate and ceiling else "–"
            row += f" {rate:,.1f} | {share} |" if rate else " – | – |"
        if with_memory:
            peak = stats.get("peak_rss_bytes")
            row += f" {format_bytes(peak)} |" if peak else " – |"
        lines.append(row)
    rounds = sorted({e["stats"]["rounds"] for e in entries})
    round_range = f"{rounds[0]}" if len(rounds) == 1 else f"{rounds[0]}–{rounds[-1]}"
    notes = [
        f"Each run is timed whole after {entries[0]['method']['warmup']} untimed warm-up run(s); "
        f"{round_range} timed runs per variant. Speed-up is the baseline's median "
        "divided by the variant's, pooled over this machine's sittings. The brackets hold the "
        "95% interval for its long-run value (How we measure). An interval that holds 1.00 is "
        "marked no clear difference. A spread more than twice what the variant usually shows on "
        "this machine (and above 10%) is marked noisier than usual."
    ]
    if with_flops:
        notes.append(
            "GFLOP/s is the run's floating-point operations (counted from the layer shapes) over "
            "its median time. The ceiling is this machine's measured float32 matmul rate "
            + (f"({ceiling:,.1f} GFLOP/s)." if ceiling else "(not measured on this machine).")
        )
    if with_memory:
        notes.append(
            "Each variant ran in its own process. Peak memory is that process's resident-set "
            "high-water mark as the kernel reports it (ru_maxrss), TensorFlow itself included."
        )
    return "\n".join(lines + [""] + [" ".join(notes)]) + "\n"


def first_call_rows(data: dict, keys: list[str]) -> list[str]:
    rows = []
    for key in keys:
        stats = data["entries"][key]["stats"]
        first = stats.get("first_call_s")
        if first:
            rows.append(
                f"| {names.of(data['machine'])} | `{key}` | {format_seconds(first)} "
                f"| {format_seconds(stats['median_s'])} | {first / stats['median_s']:.1f}× |"
            )
    return rows


FIRST_CALL_HEADER = [
    "| Machine | Workload | First run | Warmed-up median | First / median |",
    "|---|---|---:|---:|---:|",
]


def snippet_first_call_table(all_data: list[dict], snippet: str) -> str:
    """One snippet's first (untimed) run next to its warmed-up median, on every machine."""
    rows = []
    for data in all_data:
        keys = [f"{e['snippet']}:{e['variant']}" for e in snippet_entries(data, snippet)]
        rows += first_call_rows(data, keys)
    return "\n".join(FIRST_CALL_HEADER + rows) + "\n"


def overlap_table(data: dict, entries: list[dict]) -> str | None:
    """For snippets with produce_only and train_only: how close each variant got to full overlap."""
    by_variant = {e["variant"]: e["stats"]["median_s"] for e in entries}
    if "produce_only" not in by_variant or "train_only" not in by_variant:
        return None
    produce, train = by_variant["produce_only"], by_variant["train_only"]
    bound, serial = max(produce, train), produce + train
    lines = [
        f"**{names.of(data['machine'])}**: producing alone {format_seconds(produce)}, "
        f"training alone {format_seconds(train)} per run. Fully overlapped, a run costs "
        f"max(produce, train) = {format_seconds(bound)}; fully serial, produce + train = "
        f"{format_seconds(serial)}.",
        "",
        "| Variant | Median per run | Share of the overlap bound (bound / median) | vs serial |",
        "|---|---:|---:|---:|",
    ]
    for entry in entries:
        if entry["variant"] in ("produce_only", "train_only"):
            continue
        median = entry["stats"]["median_s"]
        lines.append(
            f"| `{entry['variant']}` | {format_seconds(median)} | {bound / median * 100:.0f}% "
            f"| {median / serial * 100:.0f}% of the sum |"
        )
    return "\n".join(lines) + "\n"


def output_block(data: dict, snippet: str) -> str | None:
    """The snippet's own printed output, fenced, with the machine and date it ran on."""
    output = data.get("outputs", {}).get(snippet)
    if not output:
        return None
    return (
        f"Output of `python snippets/{snippet}.py` on {names.of(data['machine'])}, "
        f"{escaping.escape(output['date'][:10])}:\n\n{escaping.fence(output['text'].rstrip())}"
    )


def session_count_words(sessions: list[dict]) -> str:
    """'4 (3 days; 2 unusually noisy)': how many sessions a machine's file keeps."""
    if not sessions:
        return "–"
    days = len({s["id"][:10] for s in sessions})
    marked = len(noisy_rule.unusual_sessions(sessions))
    noisy = f"; {marked} unusually noisy" if marked else ""
    return f"{len(sessions)} ({days} day{'s' if days != 1 else ''}{noisy})"


def machines_table(all_data: list[dict], stack_data: list[dict] | None = None) -> str:
    """One row per results file (all_data: a view of each). The Sessions column counts every
    session the file keeps, of every stack: stack_data holds a view per stack
    (results_views.stack_views); without it, the sessions of all_data's views are counted."""
    lines = [
        "| Machine | Described as | OS | Cores | RAM | TensorFlow devices | Sessions (all stacks) "
        "| Results file |",
        "|---|---|---|---|---|---|---|---|",
    ]
    kept: dict[str, list[dict]] = {}
    for view in all_data if stack_data is None else stack_data:
        kept.setdefault(view["machine"]["id"], []).extend(view.get("sessions", []))
    for data in all_data:
        m = data["machine"]
        sessions = kept.get(m["id"], [])
        cores = f"{m['physical_cores'] or '?'} physical / {m['logical_cores']} logical"
        if m.get("performance_cores"):
            cores += f" ({m['performance_cores']}P+{m['efficiency_cores']}E)"
        ram = f"{m['ram_bytes'] / 2**30:.0f} GiB" if m.get("ram_bytes") else "?"
        devices = ", ".join(m.get("tf_devices") or []) or "?"
        lines.append(
            f"| {names.of(m)} | {m['description']} | {m['os_version']} | {cores} "
            f"| {ram} | {devices} "
            f"| {session_count_words(sessions)} | `results/{m['id']}.json` |"
        )
    return "\n".join(lines) + "\n"
