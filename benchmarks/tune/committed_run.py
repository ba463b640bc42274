"""What tune's two committed runs (the validation and the overhead benchmark) record about
themselves, check when read back, and show above their tables: the tool, date, machine,
software, commit, budget and the load average before and after."""

from __future__ import annotations

import math
import os
from pathlib import Path

from scripts.core import project_files, provenance, store
from scripts.rendering import escaping, names


def started(tool: str, budget_s: float) -> dict:
    """The run's record before anything is measured."""
    return {
        "tool": tool,
        "date": provenance.utc_now(),
        "machine": provenance.collect_machine(),
        "software": provenance.collect_software(),
        "git": provenance.git_state(project_files.ROOT),
        "budget_s": budget_s,
        "load_average_start": list(os.getloadavg()),
    }


def finished(found: dict) -> dict:
    found["load_average_end"] = list(os.getloadavg())
    return found


def check(path: Path, found: dict, numbers: list, texts: list) -> dict:
    """Raise ValueError naming path unless every number is a finite one and every text a
    string (the run's own provenance fields included, the machine's cores a whole number)."""
    own = [found["budget_s"], *found["load_average_start"], *found["load_average_end"]]
    numbers = [*own, *numbers]
    texts = [found["date"], found["machine"]["description"], *texts]
    if not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers):
        raise ValueError(f"{path}: a number is not a number")
    if not all(math.isfinite(n) for n in numbers):
        raise ValueError(f"{path}: a number is not finite (NaN or Infinity)")
    cores = found["machine"].get("logical_cores")
    if cores is not None and (isinstance(cores, bool) or not isinstance(cores, int)):
        raise ValueError(f"{path}: machine.logical_cores is not a whole number: {cores!r}")
    if not all(isinstance(t, str) for t in texts):
        raise ValueError(f"{path}: a text is not a string")
    return found


def short_name(description: str) -> str:
    """The short name the pages give the machine with this description (the key is on the
    page), or the description, escaped, for a machine with no committed results."""
    for data in store.read_all():
        if data["machine"]["description"] == description:
            return names.machine(data["machine"]["id"])
    return escaping.escape(description)


def heading(found: dict) -> str:
    """The machine, software, date and commit the run was made with, escaped."""
    esc = escaping.escape
    software = found["software"]
    git = found.get("git") or {}
    commit = (git.get("commit") or "unknown")[:7] + ("+dirty" if git.get("dirty") else "")
    return (
        f"**{short_name(found['machine']['description'])}** · TensorFlow "
        f"{esc(str(software.get('tensorflow')))}, Keras {esc(str(software.get('keras')))}, "
        f"Python {esc(str(software.get('python')))} · run {esc(found['date'][:10])} (commit "
        f"{esc(commit)})"
    )


def described(found: dict, facts: list[str]) -> str:
    """The heading, then the run's other facts as a short list, one fact an item (a line of
    them all would read as one long sentence)."""
    return "\n".join([f"{heading(found)}:", "", *(f"- {fact}" for fact in facts)])


def load_range(found: dict, joined: str) -> str:
    """The one-minute load average at the start and the end, and the machine's cores."""
    cores = found["machine"].get("logical_cores")
    start, end = found["load_average_start"][0], found["load_average_end"][0]
    return f"{start:.1f}{joined}{end:.1f} on its {cores} cores"
