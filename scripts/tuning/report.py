"""tune's report as terminal text or JSON: the changes ranked by measured speed-up with their
95% intervals, what to change and the guide's section, and the machine, versions and date.
The text and HTML name the guide's sections as the doctor does (scripts/core/guide_links.py):
pages of the published site when tf-doctor.pyz carries its address (site), else repository
paths; the JSON keeps the repository paths.
"""

from __future__ import annotations

import html

from scripts.core import json_files
from scripts.core.guide_links import addresses_in
from scripts.tuning import analysis, experiments, stack


def to_json(report: dict) -> str:
    return json_files.json_text(report)


def interval(row: dict) -> str:
    if row["low"] is None:
        return ""
    return f"{row['low']:.2f}-{row['high']:.2f}"


def next_run(row: dict) -> str:
    """Where a second run should land (widening.py); empty for a row without it."""
    if row.get("new_low") is None:
        return ""
    return f"{row['new_low']:.2f}-{row['new_high']:.2f}"


def speedup(row: dict) -> str:
    return f"{row['point']:.2f}x" if row["point"] is not None else "-"


def versions(report: dict) -> str:
    software, facts = report["software"], report.get("facts") or {}
    words = [f"Python {software.get('python')}", f"TensorFlow {software.get('tensorflow')}"]
    if facts.get("keras_package"):
        words.append(f"Keras {facts.get('keras_version')} ({facts['keras_package']})")
    else:
        words.append(f"Keras {software.get('keras')}")
    if software.get("tensorflow_metal"):
        words.append(f"tensorflow-metal {software['tensorflow_metal']}")
    words.append(f"NumPy {software.get('numpy')}")
    return ", ".join(words)


def model_line(facts: dict) -> str:
    data = "a tf.data.Dataset" if facts["data_kind"] == "dataset" else "arrays"
    mode = (
        "eagerly"
        if facts["run_eagerly"]
        else "as a graph" + (" with XLA" if facts["jit_compile"] else "")
    )
    size = f"{facts['parameters']:,} parameters, " if facts.get("parameters") else ""
    return (
        f"{size}batches of {facts['batch_size']} from {data}, "
        f"{facts['steps_per_run']} steps per timed run, run {mode}, policy {facts['policy']}, "
        f"on {', '.join(facts['devices'])}"
    )


def traces_line(facts: dict) -> str | None:
    """The tf.function traces counted in the model's first training steps, in words."""
    counts = facts.get("traces")
    if not counts:
        return None
    if counts[0] == 0 and not facts.get("run_eagerly"):
        # A graph model traces its train function at its first step: no record means this
        # TensorFlow words its log record differently, not that nothing was traced.
        return "not counted (this TensorFlow logged no trace for the first step, which traces)"
    later = counts[1:]
    words = (
        f"{counts[0]} in the first training step, {sum(later)} in the {len(later)} after it "
        f"({' '.join(str(n) for n in later)})"
    )
    if experiments.retracing(facts):
        words += f": the model RETRACES ({experiments.RETRACING_LINK})"
    return words


def pipeline_line(facts: dict) -> str | None:
    """What the dataset's serialised graph says of its maps and prefetch, in words."""
    found = facts.get("pipeline")
    if not found:
        return None
    if found.get("error"):
        return f"not inspected ({found['error']})"
    maps = found["sequential_maps"]
    words = [
        f"{maps} map{'' if maps == 1 else 's'} without num_parallel_calls",
        f"{found['parallel_maps']} with it",
    ]
    if "cached" in found:
        words.append("a cache()" if found["cached"] else "no cache()")
    words.append("ends in a prefetch" if found["prefetched"] else "no prefetch at the end")
    stages = found.get("stages")
    if stages:
        names = [s["stage"] + (" (Python)" if s["python"] else "") for s in stages]
        return f"{' > '.join(names)}: {', '.join(words)}"
    return ", ".join(words)


def retracing_note(facts: dict) -> str | None:
    """Advice for a model that retraces with no arm that measures the fix (it runs as a graph
    already: its train function traces again for new input shapes or Python values)."""
    if not experiments.retracing(facts) or facts.get("run_eagerly"):
        return None
    return (
        "the model traced again in "
        f"{sum(1 for n in facts['traces'][1:] if n)} of the {len(facts['traces']) - 1} steps "
        "after its first (not measured as an A/B: no change tune can make stops it): give "
        "your batches one shape (padded_batch to a fixed length, drop_remainder=True) and "
        f"pass tensors, not Python values, to your tf.functions ({experiments.RETRACING_LINK})"
    )


def to_text(report: dict, site: str | None = None) -> str:
    """The report for a terminal; site: the published guide's address (guide_links), which
    turns every guide link in it into that site's page."""
    return addresses_in(_text(report), site)


def _text(report: dict) -> str:
    lines = [f"tune: {report['file']}", f"Date:     {report['date']}"]
    lines.append(f"Machine:  {report['machine']['description']}")
    lines.append(f"Software: {versions(report)}")
    if report.get("facts"):
        ran_on = stack.line(report["facts"])
        if ran_on:
            lines.append(f"Stack:    {ran_on}")
        lines.append(f"Model:    {model_line(report['facts'])}")
        traced = traces_line(report["facts"])
        if traced:
            lines.append(f"Traces:   {traced}")
        inspected = pipeline_line(report["facts"])
        if inspected:
            lines.append(f"Pipeline: {inspected}")
    if report.get("error"):
        lines += ["", f"error: {report['error']}", "Nothing was measured."]
        return "\n".join(lines) + "\n"
    compared = report["rows"] or set(report["experiments"]) - {"drift"}
    if compared:
        lines += ["", table(report["rows"]), ""]
    if compared and report.get("intervals"):
        lines += [f"Intervals: {report['intervals']}.", ""]
    recommended = analysis.recommendations(report["rows"])
    if not compared:
        pass
    elif recommended:
        lines.append("What to change, most measured gain first (one per experiment):")
        for number, row in enumerate(recommended, 1):
            lines.append(f"  {number}. {row['change']}")
            lines.append(f"     see {row['link']}")
    else:
        lines.append(
            "Nothing to recommend: no change measured here is faster by 5% or more with a 95% "
            "interval above 1.00."
        )
    if report.get("correctness"):
        lines += ["", correctness_line(report["correctness"])]
    if report.get("stretch"):
        lines += ["", *stretch_lines(report["stretch"])]
    notes = list(report.get("notes") or [])
    retraces = retracing_note(report.get("facts") or {})
    if retraces:
        notes.insert(0, retraces)
    notes += [f"{r['label']}: {r['note']}" for r in report["rows"] if r["note"]]
    skipped = report.get("skipped") or {}
    notes += [f"{experiments.TITLES[n]}: {skipped[n]}" for n in experiments.ORDER if n in skipped]
    if report.get("interrupted"):
        notes.insert(0, "interrupted (Ctrl-C): the table holds what was measured until then")
    if notes:
        lines += ["", "Notes:"] + [f"  - {note}" for note in notes]
    return "\n".join(lines) + "\n"


def table(rows: list[dict]) -> str:
    """Ranked rows: speed-up of samples per second against the model as given."""
    if not rows:
        return "(nothing measured)"
    header = ("#", "experiment", "change measured", "speed-up", "95% interval", "verdict")
    body = [
        (
            str(number),
            experiments.TITLES[row["experiment"]],
            row["label"],
            speedup(row),
            interval(row),
            row["verdict"] if row["verdict"] != analysis.FAILED else "failed (see notes)",
        )
        for number, row in enumerate(rows, 1)
    ]
    how = "(interleaved rounds, 95% paired bootstrap interval):"
    if any(row.get("new_low") is not None for row in rows):  # widened (widening.py)
        header = (*header[:5], "next run", header[5])
        pairs = zip(body, rows)  # noqa: B905 (Python 3.9: no strict=)
        body = [(*line[:5], next_run(row), line[5]) for line, row in pairs]
        how = (
            "(95% interval widened by the spread between sittings; next run: where a re-run lands):"
        )
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]
    text = ["Speed-up in samples per second against the model as given " + how, ""]
    for line in (header, *body):
        cells = [cell.ljust(width) for cell, width in zip(line, widths)]  # noqa: B905 (3.9)
        text.append("  " + "  ".join(cells).rstrip())
    return "\n".join(text)


DRIFT_WHY = {
    "slowed down": " (heat, Low Power Mode, a leak, or another program started?)",
    "sped up": " (a slow start, or another program on this machine finished?)",
}
MEMORY_NAMES = {
    "resident_bytes": "resident memory",
    "gpu_bytes": "GPU memory (TensorFlow's figure)",
}


def stretch_lines(found: dict) -> list[str]:
    """The drift experiment: speed and memory of the model as given over a longer stretch."""
    if found.get("error"):
        return [f"Over a longer stretch: not measured ({found['error']})"]
    drift = found["drift"]
    lines = [
        f"Over a longer stretch ({found['steps']} steps of the model as given, in thirds):",
        f"  speed of the last third against the first: {drift['point']:.2f}x "
        f"({drift['low']:.2f}-{drift['high']:.2f}), {drift['verdict']}"
        + DRIFT_WHY.get(drift["verdict"], ""),
    ]
    for key, name in MEMORY_NAMES.items():
        memory = found.get(key)
        if memory is None:
            if key == "resident_bytes":
                lines.append(f"  {name}: not measured")
            continue
        mib = memory["growth"] / 2**20
        flag = "  GROWING: look for a leak (docs/memory.md#what-to-do)" if memory["flagged"] else ""
        lines.append(
            f"  {name}: {memory['start'] / 2**20:,.0f} MiB at first, {mib:+,.1f} MiB by the "
            f"last third ({memory['per_step'] / 1024:+,.1f} KiB per step){flag}"
        )
    return lines


def correctness_line(found: dict) -> str:
    head = f"GPU against CPU, {found['steps']} steps from the same weights and batches: "
    if found["agrees"]:
        return head + "agree within tolerance"
    return (
        head + f"DIFFER: {found['first_difference']} (random layers such as Dropout differ "
        "by design; see docs/gpu-correctness.md#what-to-do-when-they-differ)"
    )


def to_html(report: dict, site: str | None = None) -> str:
    """One self-contained page (inline CSS and SVG, no request of any kind): the text report's
    facts and table, the step times of the model as given over the run, and a step split into
    waiting for data and computing. site: as for to_text."""
    return addresses_in(_html(report), site)


def _html(report: dict) -> str:
    esc = html.escape
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{esc(cell)}</td>"
            for cell in (
                str(number),
                experiments.TITLES[row["experiment"]],
                row["label"],
                speedup(row),
                interval(row) + (f" (next run {next_run(row)})" if next_run(row) else ""),
                row["verdict"],
                f"{row['change']} ({row['link']})" if row["recommended"] else row["note"],
            )
        )
        + "</tr>"
        for number, row in enumerate(report["rows"], 1)
    )
    head = "".join(
        f"<th>{h}</th>"
        for h in ("#", "experiment", "change measured", "speed-up", "95% interval", "verdict", "")
    )
    facts = [("File", report["file"]), ("Date", report["date"])]
    facts += [("Machine", report["machine"]["description"]), ("Software", versions(report))]
    if report.get("facts"):
        facts.append(("Stack", stack.line(report["facts"]) or "not known"))
        facts.append(("Model", model_line(report["facts"])))
        facts.append(("Traces", traces_line(report["facts"]) or "not counted"))
        inspected = pipeline_line(report["facts"])
        if inspected:
            facts.append(("Pipeline", inspected))
    listed = "".join(f"<dt>{esc(k)}</dt><dd>{esc(str(v))}</dd>" for k, v in facts)
    text = esc(_text(report))
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>tune: {esc(report['file'])}</title>"
        "<style>body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
        "text-align:left}dt{font-weight:bold}pre{background:#f6f6f6;padding:1em;"
        "overflow-x:auto}</style></head><body>"
        f"<h1>tune: {esc(report['file'])}</h1><dl>{listed}</dl>"
        "<h2>Changes, ranked by measured speed-up</h2>"
        f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        f"<h2>Step time over the run</h2>{timeline_svg(report)}"
        f"<h2>A step: waiting for data and computing</h2>{split_svg(report)}"
        f"<h2>The report as the terminal showed it</h2><pre>{text}</pre>"
        "</body></html>\n"
    )


def step_times(report: dict) -> tuple[str, list[float]]:
    """The as-given arm's milliseconds per step, in the order they were timed: the drift
    experiment's longer stretch where it ran, else the first experiment that has them."""
    steps = (report.get("facts") or {}).get("steps_per_run") or 1
    for name in ("drift", *experiments.ORDER):
        arm = ((report["experiments"].get(name) or {}).get("arms") or {}).get("as_given") or {}
        if arm.get("times_s"):
            return name, [t / steps * 1e3 for t in arm["times_s"]]
    return "", []


def timeline_svg(report: dict, width: int = 640, height: int = 200) -> str:
    name, times = step_times(report)
    if len(times) < 2:
        return "<p>No step times were measured.</p>"
    top = max(times) * 1.1
    pad = 40
    points = " ".join(
        f"{pad + i * (width - pad - 10) / (len(times) - 1):.1f},"
        f"{height - 25 - t / top * (height - 40):.1f}"
        for i, t in enumerate(times)
    )
    third = (width - pad - 10) / 3
    marks = "".join(
        f'<line x1="{pad + k * third:.1f}" y1="10" x2="{pad + k * third:.1f}" '
        f'y2="{height - 25}" stroke="#bbb" stroke-dasharray="4"/>'
        for k in (1, 2)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'role="img" aria-label="milliseconds per step, {len(times)} timed runs">'
        f'<line x1="{pad}" y1="{height - 25}" x2="{width - 10}" y2="{height - 25}" stroke="#333"/>'
        f'<line x1="{pad}" y1="10" x2="{pad}" y2="{height - 25}" stroke="#333"/>{marks}'
        f'<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{points}"/>'
        f'<text x="2" y="20" font-size="11">{top:.2f} ms</text>'
        f'<text x="2" y="{height - 25}" font-size="11">0</text>'
        f'<text x="{pad}" y="{height - 5}" font-size="11">timed runs of the model as given, in '
        f"order ({html.escape(experiments.TITLES.get(name, name))}); dashed: thirds</text></svg>"
    )


def split_svg(report: dict, width: int = 640) -> str:
    row = next((r for r in report["rows"] if r["arm"] == "in_memory" and r["point"]), None)
    if row is None:
        return "<p>The input experiment did not run.</p>"
    waiting = max(0.0, 1 - 1 / row["point"]) if row["verdict"] != analysis.NO_CLEAR else 0.0
    split = (width - 20) * (1 - waiting)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60" role="img" '
        f'aria-label="waiting for data {waiting:.0%} of a step">'
        f'<rect x="10" y="10" width="{split:.1f}" height="24" fill="#1f77b4"/>'
        f'<rect x="{10 + split:.1f}" y="10" width="{width - 20 - split:.1f}" height="24" '
        'fill="#ff7f0e"/>'
        f'<text x="10" y="52" font-size="12">computing {1 - waiting:.0%}, waiting for data '
        f"{waiting:.0%} (from the batches held in memory: {row['point']:.2f}x)</text></svg>"
    )
