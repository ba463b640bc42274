"""Results files (results/<machine-id>.json): reading, checking, merging and atomic writing."""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
import tempfile
from pathlib import Path

from scripts.core import plain_text, project_files, provenance

SCHEMA_VERSION = 1
RESULTS_DIR = project_files.ROOT / "results"

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


MAX_FILE_BYTES = 10 * 2**20
MAX_TEXT = 300  # characters in a name, label or version
MAX_OUTPUT_TEXT = 50_000  # characters of a snippet's captured output
MACHINE_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,99}")
SNIPPET_NAME = re.compile(r"[a-z0-9_]+/[a-z0-9_]+")
VARIANT_NAME = re.compile(r"[a-z0-9_]+")
SHA256 = re.compile(r"[0-9a-f]{64}")
CPU_FEATURE = re.compile(r"[a-z0-9_.]{1,40}")
# Where the snippet was (relative to the project, or absolute for one outside it); no "..".
SNIPPET_PATH = re.compile(r"/?(?!\.\.(/|$))[\w.\-]+(?:/(?!\.\.(/|$))[\w.\-]+)*\.py")
MACHINE_TEXT = ("description", "os", "os_version", "arch", "cpu_model")
# Optional: only Macs (and hosted CI runners) record these; every text one is plain text.
MACHINE_OPTIONAL_TEXT = ("power_source", "tensorflow_metal", "hosted_runner")
MACHINE_OPTIONAL_FLAGS = ("low_power_mode", "metal_gpu")
TOP_LEVEL = ("schema_version", "machine", "entries", "outputs")
# A git commit: SHA-1 (40 hex digits) or SHA-256 (64) object name, as `git rev-parse HEAD`.
COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# Larger than any machine that could run these snippets (the largest Apple chip has 32 CPU
# and 80 GPU cores; two-socket servers have a few hundred threads), so a count above it is
# a typing or forging error, not hardware.
MAX_CORES = 4096
MAX_RAM_BYTES = 2**50  # 1 PiB
# The machine's counts, each with the most any machine has.
MACHINE_COUNTS = {
    "logical_cores": MAX_CORES, "physical_cores": MAX_CORES, "performance_cores": MAX_CORES,
    "efficiency_cores": MAX_CORES, "ram_bytes": MAX_RAM_BYTES, "gpu_cores": MAX_CORES,
}  # fmt: skip


class ResultsError(ValueError):
    """A results file that is missing, malformed or inconsistent; the message names the field."""


def json_text(data: dict) -> str:
    """The project's JSON form: indented, keys sorted, no NaN or infinity."""
    return json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n"


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON to a temporary file beside `path`, then rename it over `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json_text(data)
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
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ResultsError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB; not read")
        text = path.read_text(encoding="utf-8")
        data = json.loads(
            text, parse_constant=_reject_constant, object_pairs_hook=_refuse_duplicate_keys
        )
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ResultsError(f"{path}: not a readable JSON results file ({error})") from error
    check(data, str(path))
    return data


def _refuse_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object with one key twice: a reviewer reads one value in the diff, the tools
    would use the other, so the file is refused rather than read either way."""
    data: dict = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"the key {key[:80]!r} appears twice in one object")
        data[key] = value
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


def _text(value: object, where: str, limit: int = MAX_TEXT, pattern=None) -> None:
    """A string within the limit that matches pattern, or, with no pattern, plain text."""
    if not isinstance(value, str):
        raise ResultsError(f"{where}: expected text, got {type(value).__name__}")
    if len(value) > limit:
        raise ResultsError(f"{where}: longer than {limit} characters")
    if pattern is not None and not pattern.fullmatch(value):
        raise ResultsError(f"{where}: {value[:40]!r} does not match {pattern.pattern}")
    why = plain_text.problem(value) if pattern is None else None
    if why:
        raise ResultsError(f"{where}: {why}")


def _plain_values(mapping: object, where: str) -> None:
    """Every string inside an object (keys included) is plain text; numbers and flags pass."""
    if isinstance(mapping, dict):
        for key, value in mapping.items():
            _text(key, f"{where} key")
            _plain_values(value, f"{where}.{key}")
    elif isinstance(mapping, list):
        for number, value in enumerate(mapping):
            _plain_values(value, f"{where}[{number}]")
    elif isinstance(mapping, str):
        _text(mapping, where)


def _optional(check_value, value: object, where: str, *args) -> None:
    if value is not None:
        check_value(value, where, *args)


def _count(value: object, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ResultsError(f"{where}: expected a whole number >= 0 or null, got {value!r}")


def _commit(value: object, where: str) -> None:
    if not isinstance(value, str) or not COMMIT.fullmatch(value):
        raise ResultsError(
            f"{where}: expected the measured commit's full hash (40 or 64 hex digits, as "
            f"`git rev-parse HEAD` prints it) or null, got {str(value)[:50]!r}"
        )


def _at_most(value: int, where: str, limit: int) -> None:
    if value > limit:
        raise ResultsError(f"{where}: {value!r} is more than any machine has (at most {limit})")


def machine_id_problem(machine: dict) -> str | None:
    """Why machine.id does not name the machine its own block describes, or None.

    The id is what provenance.machine_id makes of the block, with a six-digit fingerprint
    of its hardware when two machines share a name (provenance.distinct_id); a file named
    for one machine but describing another would put its numbers under the wrong name.
    """
    expected, fingerprint = provenance.machine_id(machine), provenance.fingerprint(machine)
    if machine["id"] in (expected, f"{expected}-{fingerprint}"):
        return None
    return (
        f"{machine['id']!r} does not name the machine this block describes: expected "
        f"{expected!r}, or {expected!r} with its fingerprint "
        f"'-{fingerprint}' (provenance.machine_id)"
    )


def _flag(value: object, where: str) -> None:
    if not isinstance(value, bool):
        raise ResultsError(f"{where}: expected true, false or null, got {value!r}")


def check_machine(machine: object, where: str) -> None:
    _require(machine, REQUIRED_MACHINE, where)
    assert isinstance(machine, dict)
    _text(machine["id"], f"{where}.id", pattern=MACHINE_ID)
    for key in MACHINE_TEXT:
        _text(machine[key], f"{where}.{key}")
    for key, limit in MACHINE_COUNTS.items():
        _optional(_count, machine.get(key), f"{where}.{key}")
        _optional(_at_most, machine.get(key), f"{where}.{key}", limit)
    logical, physical = machine.get("logical_cores"), machine.get("physical_cores")
    if logical is not None and physical is not None and physical > logical:
        raise ResultsError(
            f"{where}.physical_cores: {physical} is more than logical_cores ({logical})"
        )
    _optional(_flag, machine["rosetta"], f"{where}.rosetta")
    for key in MACHINE_OPTIONAL_TEXT:
        _optional(_text, machine.get(key), f"{where}.{key}")
    for key in MACHINE_OPTIONAL_FLAGS:
        _optional(_flag, machine.get(key), f"{where}.{key}")
    devices = machine["tf_devices"]
    if not isinstance(devices, list) or len(devices) > 64:
        raise ResultsError(f"{where}.tf_devices: expected a list of device names")
    for number, device in enumerate(devices):
        _text(device, f"{where}.tf_devices[{number}]")
    features = machine.get("cpu_features", [])
    if not isinstance(features, list) or len(features) > 512:
        raise ResultsError(f"{where}.cpu_features: expected a list of feature names")
    for number, feature in enumerate(features):
        _text(feature, f"{where}.cpu_features[{number}]", pattern=CPU_FEATURE)
    problem = machine_id_problem(machine)
    if problem:
        raise ResultsError(f"{where}.id: {problem}")


def check_entry(key: str, entry: object, where: str) -> None:
    _require(entry, REQUIRED_ENTRY, where)
    assert isinstance(entry, dict)
    _text(entry["snippet"], f"{where}.snippet", pattern=SNIPPET_NAME)
    _text(entry["variant"], f"{where}.variant", pattern=VARIANT_NAME)
    if key != f"{entry['snippet']}:{entry['variant']}":
        raise ResultsError(f"{where}: key must be '<snippet>:<variant>'")
    _text(entry["snippet_sha256"], f"{where}.snippet_sha256", pattern=SHA256)
    _optional(_text, entry.get("snippet_path"), f"{where}.snippet_path", MAX_TEXT, SNIPPET_PATH)
    _text(entry["baseline"], f"{where}.baseline", pattern=VARIANT_NAME)
    for field in ("label", "size", "date"):
        _text(entry[field], f"{where}.{field}")
    _optional(_commit, entry["commit"], f"{where}.commit")
    _optional(_flag, entry["dirty"], f"{where}.dirty")
    _require(entry["software"], REQUIRED_SOFTWARE, f"{where}.software")
    for name, version in entry["software"].items():
        _optional(_text, version, f"{where}.software.{name}")
    if not isinstance(entry["method"], dict):
        raise ResultsError(f"{where}.method: expected an object")
    _plain_values(entry["method"], f"{where}.method")
    if "conditions" in entry:  # what the noise check read before the run (optional)
        if not isinstance(entry["conditions"], dict):
            raise ResultsError(f"{where}.conditions: expected an object")
        _plain_values(entry["conditions"], f"{where}.conditions")
    check_stats(entry["stats"], f"{where}.stats")
    check_schedule(entry, where)
    if "speedup" in entry:
        check_speedup(entry["speedup"], entry["baseline"], f"{where}.speedup")


# Entries measured with these schedules record, for each timed run, its place in its round.
INTERLEAVED_SCHEDULES = ("interleaved rounds", "alternating processes")


def check_schedule(entry: dict, where: str) -> None:
    """An interleaved entry names its run and seed and has one round position per timing."""
    method, stats = entry["method"], entry["stats"]
    schedule = method.get("schedule")
    if schedule is None:
        return  # measured before interleaving: variants were timed one after another
    if schedule not in INTERLEAVED_SCHEDULES:
        raise ResultsError(
            f"{where}.method.schedule: expected one of {', '.join(INTERLEAVED_SCHEDULES)}, "
            f"got {str(schedule)[:40]!r}"
        )
    _text(method.get("run_started"), f"{where}.method.run_started")
    seed = method.get("order_seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ResultsError(f"{where}.method.order_seed: expected a whole number, got {seed!r}")
    positions = stats.get("round_positions")
    if positions is None:
        raise ResultsError(
            f"{where}.stats.round_positions: missing; an entry timed in {schedule} records "
            "each run's place in its round's order"
        )
    if (
        not isinstance(positions, list)
        or len(positions) != stats["rounds"]
        or not all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in positions)
    ):
        raise ResultsError(
            f"{where}.stats.round_positions: expected {stats['rounds']} whole numbers >= 0 "
            "(one per round)"
        )
    times = stats.get("times_s")
    if not isinstance(times, list) or len(times) != stats["rounds"]:
        raise ResultsError(
            f"{where}.stats.times_s: expected {stats['rounds']} timings (one per round)"
        )
    for number, value in enumerate(times):
        _positive_number(value, f"{where}.stats.times_s[{number}]")


def check_speedup(speedup: object, baseline: str, where: str) -> None:
    """A stored speed-up names its baseline and its 95% interval contains its point."""
    _require(speedup, ("vs", "point", "low", "high"), where)
    assert isinstance(speedup, dict)
    if speedup["vs"] != baseline:
        raise ResultsError(f"{where}.vs: expected the entry's baseline {baseline!r}")
    point, low, high = (
        _positive_number(speedup[k], f"{where}.{k}") for k in ("point", "low", "high")
    )
    if not low <= point <= high:
        raise ResultsError(
            f"{where}: the interval {low:.4g}–{high:.4g} does not contain its point "
            f"estimate {point:.4g}"
        )


def check(data: object, name: str) -> None:
    """Check parsed results data; raise ResultsError on the first fault found."""
    _require(data, ("schema_version", "machine", "entries"), name)
    assert isinstance(data, dict)
    unknown = sorted(str(key)[:40] for key in data if key not in TOP_LEVEL)
    if unknown:
        raise ResultsError(
            f"{name}: unknown top-level field(s) {', '.join(map(repr, unknown))}; a results "
            f"file has only {', '.join(TOP_LEVEL)}"
        )
    if data["schema_version"] != SCHEMA_VERSION:
        raise ResultsError(
            f"{name}: schema_version {str(data['schema_version'])[:20]} is not {SCHEMA_VERSION}"
        )
    check_machine(data["machine"], f"{name}: machine")
    entries = data["entries"]
    if not isinstance(entries, dict):
        raise ResultsError(f"{name}: entries: expected an object keyed by 'snippet:variant'")
    for key, entry in entries.items():
        check_entry(key, entry, f"{name}: entries[{key[:80]!r}]")
    outputs = data.get("outputs", {})
    if not isinstance(outputs, dict):
        raise ResultsError(f"{name}: outputs: expected an object keyed by snippet")
    for snippet, output in outputs.items():
        where = f"{name}: outputs[{snippet[:80]!r}]"
        _require(output, ("text", "date", "snippet_sha256"), where)
        if not isinstance(output["text"], str) or len(output["text"]) > MAX_OUTPUT_TEXT:
            raise ResultsError(
                f"{where}.text: expected text of at most {MAX_OUTPUT_TEXT} characters"
            )
        why = plain_text.output_problem(output["text"])
        if why:
            raise ResultsError(f"{where}.text: {why}")
        _text(output["date"], f"{where}.date")
        _text(output["snippet_sha256"], f"{where}.snippet_sha256", pattern=SHA256)


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
        if data["entries"] and provenance.fingerprint(data["machine"]) != provenance.fingerprint(
            machine
        ):
            raise ResultsError(
                f"{path}: holds results of another machine ({data['machine']['description']}); "
                "this machine's results need their own file"
            )
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
