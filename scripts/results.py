"""Results files (results/<machine-id>.json): reading, checking, merging and atomic writing."""

from __future__ import annotations

import fcntl
import json
import math
import os
import tempfile
from pathlib import Path

SCHEMA_VERSION = 1
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"

REQUIRED_MACHINE = (
    "id", "description", "os", "os_version", "arch", "cpu_model", "logical_cores",
    "physical_cores", "performance_cores", "efficiency_cores", "ram_bytes", "rosetta",
    "tf_devices",
)  # fmt: skip
REQUIRED_SOFTWARE = ("python", "tensorflow", "keras", "numpy", "tensorflow_metal")
REQUIRED_ENTRY = (
    "snippet", "snippet_sha256", "variant", "label", "baseline", "size", "date", "commit",
    "dirty", "software", "method", "stats",
)  # fmt: skip
REQUIRED_STATS = ("median_s", "q1_s", "q3_s", "min_s", "max_s", "rounds", "iqr_over_median")


class ResultsError(ValueError):
    """A results file that is missing, malformed or inconsistent; the message names the field."""


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON to a temporary file beside `path`, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")


def read(path: Path) -> dict:
    """Load and check one results file; raise ResultsError naming the file and field."""
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text, parse_constant=_reject_constant)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ResultsError(f"{path}: not a readable JSON results file ({error})") from error
    check(data, str(path))
    return data


def _require(mapping: object, keys: tuple[str, ...], where: str) -> None:
    if not isinstance(mapping, dict):
        raise ResultsError(f"{where}: expected an object, got {type(mapping).__name__}")
    missing = [k for k in keys if k not in mapping]
    if missing:
        raise ResultsError(f"{where}: missing field(s) {', '.join(missing)}")


def _positive_number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ResultsError(f"{where}: expected a finite number, got {value!r}")
    if value <= 0:
        raise ResultsError(f"{where}: expected a positive time, got {value!r}")
    return float(value)


def check_stats(stats: object, where: str) -> None:
    _require(stats, REQUIRED_STATS, where)
    assert isinstance(stats, dict)
    q1, median, q3 = (
        _positive_number(stats[k], f"{where}.{k}") for k in ("q1_s", "median_s", "q3_s")
    )
    low, high = (_positive_number(stats[k], f"{where}.{k}") for k in ("min_s", "max_s"))
    if not low <= q1 <= median <= q3 <= high:
        raise ResultsError(
            f"{where}: expected min_s <= q1_s <= median_s <= q3_s <= max_s, got "
            f"{low} {q1} {median} {q3} {high}"
        )
    rounds = stats["rounds"]
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise ResultsError(f"{where}.rounds: expected a whole number >= 1, got {rounds!r}")


def check(data: object, name: str) -> None:
    """Check parsed results data; raise ResultsError on the first fault found."""
    _require(data, ("schema_version", "machine", "entries"), name)
    assert isinstance(data, dict)
    if data["schema_version"] != SCHEMA_VERSION:
        raise ResultsError(
            f"{name}: schema_version {data['schema_version']!r} is not {SCHEMA_VERSION}"
        )
    _require(data["machine"], REQUIRED_MACHINE, f"{name}: machine")
    entries = data["entries"]
    if not isinstance(entries, dict):
        raise ResultsError(f"{name}: entries: expected an object keyed by 'snippet:variant'")
    for key, entry in entries.items():
        where = f"{name}: entries[{key!r}]"
        _require(entry, REQUIRED_ENTRY, where)
        _require(entry["software"], REQUIRED_SOFTWARE, f"{where}.software")
        check_stats(entry["stats"], f"{where}.stats")
        if key != f"{entry['snippet']}:{entry['variant']}":
            raise ResultsError(f"{where}: key must be '<snippet>:<variant>'")


def load_or_new(path: Path, machine: dict) -> dict:
    """The existing results for this machine, or an empty file's structure."""
    if path.exists():
        return read(path)
    return {"schema_version": SCHEMA_VERSION, "machine": machine, "entries": {}, "outputs": {}}


def merge_snippet(
    path: Path,
    machine: dict,
    snippet: str,
    entries: dict[str, dict],
    variants: list[str] | None,
    output: dict | None,
) -> None:
    """Put one snippet's new entries (and output) into the file, keeping everything else.

    The file is re-read under a lock right before writing, so two measuring runs of
    different snippets at the same time do not overwrite each other's entries. Entries of
    variants the snippet no longer has (`variants` lists the current ones) are dropped.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = load_or_new(path, machine)
        if variants is not None:
            for key in [k for k in data["entries"] if k.split(":", 1)[0] == snippet]:
                if key.split(":", 1)[1] not in variants:
                    del data["entries"][key]
        data["entries"].update(entries)
        if output is not None:
            data.setdefault("outputs", {})[snippet] = output
        if machine.get("tf_devices") or not data["machine"].get("tf_devices"):
            data["machine"] = machine
        write_json_atomic(path, data)


def load_all(results_dir: Path = RESULTS_DIR) -> list[dict]:
    """Every committed results file, sorted by machine id."""
    files = sorted(results_dir.glob("*.json"))
    return sorted((read(p) for p in files), key=lambda d: d["machine"]["id"])
