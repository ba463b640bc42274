"""Split a training step's time into fixed overhead and per-example cost, from measured medians.

For the batch-size snippets (variants named batch_<n>, every run the same number of
examples): step time = run median / steps per run, then a line step_time = a + b * batch
over the batch sizes measured. `a` is what every step costs whatever its size (Python,
dispatch, optimizer bookkeeping); `b` is the cost of one more example. The fit minimises
relative errors, so that a 2 ms step at batch 8 counts as much as a 100 ms step at batch
1024. Nothing here is measured; it only reads a results file's entries.
"""

from __future__ import annotations

import re

from scripts.rendering import names

# The snippets this fragment is rendered for (scripts/rendering/render.py writes <snippet>.fit.md).
SNIPPETS = ("batch_size/mlp", "batch_size/cnn", "batch_size/mobilenet")
BATCH_VARIANT = re.compile(r"^batch_(\d+)$")


def step_times(data: dict, snippet: str) -> list[tuple[int, float]]:
    """(batch size, median seconds per step) for each batch_<n> entry of one snippet."""
    points = []
    for entry in data["entries"].values():
        match = BATCH_VARIANT.match(entry["variant"])
        if entry["snippet"] != snippet or not match:
            continue
        batch = int(match.group(1))
        steps = entry["stats"]["examples_per_run"] / batch
        points.append((batch, entry["stats"]["median_s"] / steps))
    return sorted(points)


def line_fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least squares y = a + b * x on relative errors: minimises sum(((y - a - b*x) / y)^2).

    Needs at least two distinct x values and positive y values.
    """
    if len({x for x, _ in points}) < 2 or any(y <= 0 for _, y in points):
        raise ValueError("a line fit needs two different batch sizes and positive times")
    # Weighted normal equations with weight 1 / y^2 for each point.
    w = [1 / y**2 for _, y in points]
    sw = sum(w)
    swx = sum(wi * x for wi, (x, _) in zip(w, points, strict=True))
    swy = sum(wi * y for wi, (_, y) in zip(w, points, strict=True))
    swxx = sum(wi * x * x for wi, (x, _) in zip(w, points, strict=True))
    swxy = sum(wi * x * y for wi, (x, y) in zip(w, points, strict=True))
    slope = (sw * swxy - swx * swy) / (sw * swxx - swx**2)
    return (swy - slope * swx) / sw, slope


def duration(seconds: float) -> str:
    """Three significant figures in s, ms or µs (the fit's numbers are often a few µs)."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale or unit == "µs":
            return f"{seconds / scale:.3g} {unit}"
    raise AssertionError("unreachable")


def fit_markdown(data: dict, snippet: str) -> str | None:
    """One machine's fit as markdown: the two numbers, then measured against fitted per batch."""
    points = step_times(data, snippet)
    if len({batch for batch, _ in points}) < 2:
        return None
    overhead, per_example = line_fit(points)
    machine = names.of(data["machine"])
    lines = [
        f"**{machine}**: step time ≈ a + b × batch, fitted to the {len(points)} medians below "
        f"(least squares on relative error). Fixed overhead **a = {duration(overhead)}** per "
        f"step, per-example cost **b = {duration(per_example)}**.",
        "",
    ]
    if overhead > 0 and per_example > 0:
        crossover = overhead / per_example
        where = (
            f"equals the per-example part at a batch of about {crossover:,.0f}"
            if crossover >= 1
            else f"is less than one example's cost (a / b = {crossover:.1f})"
        )
        lines += [
            f"By this line, the fixed part {where}. Throughput can approach but never pass "
            f"1 / b = {1 / per_example:,.0f} examples/s, however large the batch.",
            "",
        ]
    else:
        lines += [
            "One of the fitted numbers is not positive: a straight line does not describe "
            "these medians (see the measured / fitted column), so do not read a and b as "
            "overhead and per-example cost.",
            "",
        ]
    lines += [
        "| Batch | Measured step time | Fitted a + b × batch | Measured / fitted "
        "| Fixed overhead's share of the fitted step |",
        "|---:|---:|---:|---:|---:|",
    ]
    for batch, seconds in points:
        fitted = overhead + per_example * batch
        ratio = f"{seconds / fitted:.2f}" if fitted > 0 else "–"
        share = f"{overhead / fitted * 100:.0f}%" if overhead > 0 and fitted > 0 else "–"
        lines.append(f"| {batch} | {duration(seconds)} | {duration(fitted)} | {ratio} | {share} |")
    return "\n".join(lines) + "\n"


def fit_fragment(all_data: list[dict], snippet: str) -> str | None:
    """Every machine's fit for one snippet, or None when no machine has two batch sizes."""
    parts = [part for data in all_data if (part := fit_markdown(data, snippet))]
    return "\n".join(parts) if parts else None
