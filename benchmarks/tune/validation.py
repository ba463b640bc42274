"""tune validated on the guide's own snippets, whose slow factor is known (issue 19).

For each case, tune runs on the snippet's slow variant and on its better one, both written as
model files in tests/tune_models/. On the slow variant the top recommendation must be the
case's factor with a 95% interval above 1; on the better variant no recommendation may be
that factor. The tests run the same cases at small budgets; `python -m benchmarks.tune.validation`
runs them all at a full budget and writes the committed run (JSON) and the table the Tune your
own model page shows, rendered from it (render() is what a test compares).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks.tune import committed_run
from scripts.core import data_formats, json_files, project_files
from scripts.rendering import escaping
from scripts.tuning import analysis, experiments, runner

MODELS = project_files.ROOT / "tests" / "tune_models"
OUT_DIR = project_files.ROOT / "docs" / "_generated" / "tune"
RUN_JSON = OUT_DIR / "validation.json"
TABLE_MD = OUT_DIR / "validation.md"
FULL_BUDGET_S = 90.0


@dataclass(frozen=True)
class Case:
    name: str  # the snippet and its slow factor, in the table's words
    snippet: str
    slow: str  # model files in tests/tune_models/
    better: str
    experiment: str  # the factor: rows of this experiment...
    link: str | None  # ...and, where the experiment has several factors, this guide link
    only: tuple[str, ...]  # the experiments run (others the model is known to gain from left out)
    arm: str | None = None  # ...and, where the factor is one direction of several, this arm

    def is_factor(self, row: dict) -> bool:
        return (
            row["experiment"] == self.experiment
            and self.link in (None, row["link"])
            and self.arm in (None, row["arm"])
        )


SMALL_OPS = "docs/graph-execution.md#a-a-step-made-of-many-small-ops"
CONVERSION = "docs/memory.md#converting-numpy-arrays-every-step-or-once"
CASES = (
    Case(
        "generator feeding loop (input)",
        "snippets/input_pipeline/feeding.py",
        "feeding_generator.py",
        "feeding_tensor_slices.py",
        "input",
        None,
        ("input", "graph"),
    ),
    Case(
        "eager small ops (graph)",
        "snippets/graph_execution/small_ops.py",
        "small_ops_eager.py",
        "small_ops_graph.py",
        "graph",
        SMALL_OPS,
        ("input", "graph"),
    ),
    Case(
        "retracing on Python scalars (retracing)",
        "snippets/graph_execution/retracing.py",
        "retracing_python_scalar.py",
        "retracing_input_signature.py",
        "graph",
        experiments.RETRACING_LINK,
        ("input", "graph"),
    ),
    Case(
        "MLP small batch (batch size)",
        "snippets/batch_size/mlp.py",
        "mlp_batch_32.py",
        "mlp_batch_65536.py",
        "batch",
        None,
        ("input", "graph", "batch"),
    ),
    Case(
        "NumPy converted each step (input)",
        "snippets/memory/conversion.py",
        "conversion_numpy_each_step.py",
        "conversion_tensor_once.py",
        "input",
        CONVERSION,
        ("input", "graph"),
    ),
    Case(
        "threads on the small model (threads)",
        "snippets/threads/small_model.py",
        "threads_default.py",
        "threads_intra_1.py",
        "threads",
        None,
        ("graph", "threads"),
        "intra_1",  # the snippet's finding: one thread beats the default on the small model
    ),
)


def case_named(slow_file: str) -> Case:
    return next(case for case in CASES if case.slow == slow_file)


def case_of(entry: dict) -> Case:
    """The case a committed run's entry was made for."""
    return next(case for case in CASES if case.name == entry["name"])


def found_on_slow(case: Case, rows: list[dict]) -> bool:
    """The top recommendation is the case's factor, its whole interval above 1."""
    top = analysis.recommendations(rows)
    return bool(top) and case.is_factor(top[0]) and top[0]["low"] > 1.0


def clean_on_better(case: Case, rows: list[dict]) -> bool:
    """No recommendation is the case's factor."""
    return not any(row["recommended"] and case.is_factor(row) for row in rows)


ROW_KEYS = ("experiment", "arm", "label", "link", "verdict", "point", "low", "high", "rounds")


def summary(report: dict) -> dict:
    """What the table needs of one tune report: its rows (timings left out) and the error."""
    rows = [{key: row[key] for key in (*ROW_KEYS, "recommended")} for row in report["rows"]]
    facts = report.get("facts") or {}
    return {
        "file": report["file"],
        "error": report["error"],
        "interrupted": report["interrupted"],
        "seconds": report.get("seconds"),
        "rows": rows,
        "traces": facts.get("traces"),
    }


def run(budget_s: float, say: Callable[[str], None]) -> dict:
    """Every case, slow and better variant, at the given budget per tune run."""
    found = {**committed_run.started("tune validation", budget_s), "cases": []}
    for case in CASES:
        entry = {"name": case.name, "snippet": case.snippet, "only": list(case.only)}
        for variant in ("slow", "better"):
            path = MODELS / getattr(case, variant)
            say(f"== {case.name}: {variant} variant, {path.name}")
            report = runner.tune(path, list(case.only), budget_s, say)
            entry[variant] = summary(report)
            entry[variant]["file"] = f"tests/tune_models/{path.name}"
        found["cases"].append(entry)
    return committed_run.finished(found)


def judged(entry: dict) -> tuple[bool, bool]:
    """(found on the slow variant, clean on the better one), from the committed rows."""
    case = case_of(entry)
    slow, better = entry["slow"], entry["better"]
    found = not slow["error"] and found_on_slow(case, slow["rows"])
    clean = not better["error"] and clean_on_better(case, better["rows"])
    return found, clean


def ratio(row: dict | None) -> str:
    if row is None or row["point"] is None:
        return "not measured"
    return f"{row['point']:.2f}× ({row['low']:.2f}–{row['high']:.2f})"


def factor_row(case: Case, rows: list[dict]) -> dict | None:
    """The factor's recommended row, else its fastest measured one."""
    mine = [row for row in rows if case.is_factor(row) and row["point"] is not None]
    return max(mine, key=lambda row: (row["recommended"], row["point"]), default=None)


def slow_cell(case: Case, measured: dict) -> str:
    if measured["error"]:
        return f"error: {measured['error']}"
    top = analysis.recommendations(measured["rows"])
    if not top:
        return "nothing recommended"
    row = top[0]
    return f"{experiments.TITLES[row['experiment']]}: {row['label']}, {ratio(row)}"


def better_cell(case: Case, measured: dict) -> str:
    if measured["error"]:
        return f"error: {measured['error']}"
    row = factor_row(case, measured["rows"])
    if row is None:
        return "the factor's experiment gave no such row"
    said = "recommended" if row["recommended"] else row["verdict"]
    return f"{row['label']}: {ratio(row)}, {said}"


def load(path: Path = RUN_JSON) -> dict:
    """The committed run, held to its format (data/tune_validation.schema.json), then its
    numbers, verdicts and cases checked, before any reaches the page."""
    found = data_formats.read(path, "tune_validation")
    numbers, texts = [], []
    for entry in found["cases"]:
        texts += [entry["name"], entry["snippet"], *entry["only"]]
        for variant in (entry["slow"], entry["better"]):
            texts += [variant["file"], variant["error"] or ""]
            for row in variant["rows"]:
                texts += [row[key] for key in ("experiment", "arm", "label", "link", "verdict")]
                numbers += [row[key] for key in ("point", "low", "high") if row[key] is not None]
                if not isinstance(row["recommended"], bool):
                    raise ValueError(f"{path}: 'recommended' is not true or false")
    committed_run.check(path, found, numbers, texts)
    for entry in found["cases"]:
        for variant in ("slow", "better"):
            for row in entry[variant]["rows"]:
                check_verdict(f"{path}: {entry['name']}, {variant} variant, {row['arm']}", row)
    if {entry["name"] for entry in found["cases"]} - {case.name for case in CASES}:
        raise ValueError(f"{path}: a case this module does not define")
    return found


def check_verdict(where: str, row: dict) -> None:
    """A row's verdict and 'recommended' are what its numbers give (analysis.verdict_of; a
    mixed-precision gain may be marked as a loss that differs), not merely stored."""
    if row["point"] is None:
        expected = {analysis.FAILED}
    else:
        verdict = analysis.verdict_of(row["point"], row["low"], row["high"])
        expected = {verdict}
        if row["arm"].startswith("mixed_") and verdict in (analysis.FASTER, analysis.SMALL):
            expected.add(analysis.LOSS_DIFFERS)
    if row["verdict"] not in expected:
        raise ValueError(f"{where}: verdict {row['verdict']!r}, but its numbers give {expected}")
    if row["recommended"] != (row["verdict"] == analysis.FASTER):
        raise ValueError(f"{where}: 'recommended' does not follow from the verdict")


def render(found: dict) -> str:
    """The validation table in Markdown, every string from the run escaped."""
    esc = escaping.escape
    lines = [
        committed_run.described(
            found,
            [
                f"tune's budget {found['budget_s']:g} s per run",
                "the machine's one-minute load average (tune's own runs included) went from "
                f"{committed_run.load_range(found, ' to ')}",
            ],
        ),
        "",
        "| Snippet (slow factor) | Experiments run | Slow variant: top recommendation, speed-up "
        "(95% interval) | Better variant: the factor's row | Slow factor found | Better variant "
        "not told it |",
        "|---|---|---|---|---|---|",
    ]
    for entry in found["cases"]:
        case = case_of(entry)
        found_slow, clean = judged(entry)
        cells = (
            f"{esc(entry['name'])}: `{esc(entry['snippet'])}`",
            esc(", ".join(entry["only"])),
            esc(slow_cell(case, entry["slow"])),
            esc(better_cell(case, entry["better"])),
            "yes" if found_slow else "**no**",
            "yes" if clean else "**no**",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=FULL_BUDGET_S, help="seconds per run")
    parser.add_argument("--render", action="store_true", help="only render the committed run")
    args = parser.parse_args(argv)
    if not args.render:
        found = run(args.budget, lambda line: print(line, flush=True))
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        json_files.write_json_atomic(RUN_JSON, found)
    found = load(RUN_JSON)
    table = render(found)
    TABLE_MD.write_text(table, encoding="utf-8")
    print(table)
    return 0 if all(all(judged(entry)) for entry in found["cases"]) else 1


if __name__ == "__main__":
    sys.exit(main())
