"""tune's report as terminal text or JSON: the changes ranked by measured speed-up with their
95% intervals, what to change and the guide's section, and the machine, versions and date.
"""

from __future__ import annotations

import json

from scripts.tuning import analysis, experiments


def to_json(report: dict) -> str:
    return json.dumps(report, indent=2, sort_keys=True, allow_nan=False) + "\n"


def interval(row: dict) -> str:
    if row["low"] is None:
        return ""
    return f"{row['low']:.2f}-{row['high']:.2f}"


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


def to_text(report: dict) -> str:
    lines = [f"tune: {report['file']}", f"Date:     {report['date']}"]
    lines.append(f"Machine:  {report['machine']['description']}")
    lines.append(f"Software: {versions(report)}")
    if report.get("facts"):
        lines.append(f"Model:    {model_line(report['facts'])}")
    if report.get("error"):
        lines += ["", f"error: {report['error']}", "Nothing was measured."]
        return "\n".join(lines) + "\n"
    compared = report["rows"] or set(report["experiments"]) - {"drift"}
    if compared:
        lines += ["", table(report["rows"]), ""]
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
    notes += [f"{r['label']}: {r['note']}" for r in report["rows"] if r["note"]]
    notes += [f"{experiments.TITLES[n]}: {why}" for n, why in report.get("skipped", {}).items()]
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
    widths = [max(len(line[i]) for line in (header, *body)) for i in range(len(header))]
    text = [
        "Speed-up in samples per second against the model as given "
        "(interleaved rounds, 95% paired bootstrap interval):",
        "",
    ]
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
