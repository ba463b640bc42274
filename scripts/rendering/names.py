"""Short names as readers use them: machines from data/machine_names.yml, stacks from their
versions ("TF 2.16 + tf-keras"), the entries an evidence ratio compares, and speed-ups rounded
as people read them."""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path

from scripts.core import measured_stacks, yaml_files
from scripts.core.catalog import ROOT
from scripts.rendering import escaping

MACHINE_NAMES = ROOT / "data" / "machine_names.yml"
NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")


@functools.cache
def _machine_names(path: Path = MACHINE_NAMES) -> dict[str, str]:
    found = yaml_files.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(found, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in found.items()
    ):
        raise ValueError(f"{path.name}: expected a mapping of machine id to a short name")
    return found


def machine(machine_id: str) -> str:
    """'Xeon (AMX)', or the machine id where no short name is listed."""
    return _machine_names().get(machine_id) or escaping.escape(machine_id)


def of(machine_record: dict) -> str:
    """A results file's machine by its short name; its description where it has no id."""
    if machine_record.get("id"):
        return machine(machine_record["id"])
    return machine_record["description"]


def stack(stack_id: str) -> str:
    """'TF 2.16 + Keras 3' or 'TF 2.16 + tf-keras'; the id for a stack not listed."""
    for listed in measured_stacks.load():
        if listed.id == stack_id:
            tf = ".".join(listed.tensorflow.split(".")[:2])
            if listed.keras_package == "tf-keras":
                return f"TF {tf} + tf-keras"
            return f"TF {tf} + Keras {listed.keras.split('.')[0]}"
    return stack_id


def compared(evidence: dict, variant: str, baseline: str) -> str:
    """What an evidence ratio compares, in words, the entries as code: "`eager` vs `graph`"."""
    if evidence.get("baseline_stat") != "first_call_s":
        return f"`{variant}` vs `{baseline}`"
    if variant == baseline:
        return f"`{variant}`, first call vs warmed-up median"
    return f"`{baseline}`'s first call vs `{variant}`'s warmed-up median"


def _figure(value: float) -> str:
    """Two decimals below 10, whole numbers from 10: 0.87, 1.20, 3.32, 150."""
    return f"{value:,.0f}" if value >= 10 else f"{value:.2f}"


def speedup(point: float, low: float | None = None, high: float | None = None) -> str:
    """'1.95× (1.5–2.5)', or a large slowdown as '150× slower (130–170)'."""
    if point < 0.1:
        words = f"{_figure(1 / point)}× slower"
        if low is not None and high is not None:
            words += f" ({_figure(1 / high)}–{_figure(1 / low)})"
        return words
    words = f"{_figure(point)}×"
    if low is not None and high is not None and math.isfinite(high):
        words += f" ({_figure(low)}–{_figure(high)})"
    return words


def interval(low: float, high: float) -> str:
    """'1.16×–2.36×', for a slowdown range '130×–170× slower', and for a range from a large
    slowdown to a speed-up '400× slower to 1.20×'."""
    if high < 0.1:
        return f"{_figure(1 / high)}×–{_figure(1 / low)}× slower"
    if low < 0.1:
        return f"{_figure(1 / low)}× slower to {_figure(high)}×"
    return f"{_figure(low)}×–{_figure(high)}×"


def as_published(value: object) -> str:
    """A source's value as people read it: '1,575' for 1575.0388523889997, with the value
    exactly as published in the cell's title. Values with at most four decimals stay as
    they are."""
    text = escaping.escape(str(value).strip())
    if isinstance(value, bool) or not NUMBER.fullmatch(text):
        return text
    value = float(text)
    decimals = text.split(".")[1] if "." in text else ""
    if len(decimals) <= 4 or not math.isfinite(value):
        return text
    places = 0 if abs(value) >= 100 else 1 if abs(value) >= 10 else 3
    return f'<span title="as published: {text}">{value:,.{places}f}</span>'


def machine_key(views: list[dict]) -> str:
    """'- **EPYC (AVX2)**: Linux x86-64, 2 cores, AMD EPYC, AVX2', a list item per machine: each
    short name once
    with the machine's full description (escaped where it came from a results file)."""
    machines = {v["machine"]["id"]: v["machine"]["description"] for v in views}
    return "\n".join(f"- **{machine(m)}**: {d}" for m, d in sorted(machines.items()))
