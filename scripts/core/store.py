"""Results files (results/<machine-id>.json): reading, checking, merging sessions, atomic writing.

A file holds one machine and its measuring sessions, oldest first; what the findings and the
pages read of it is scripts/findings/results_views.py's. data/results.schema.json defines the
shape; this module checks it with jsonschema and adds only the rules a schema cannot say.
"""

from __future__ import annotations

import fcntl
import functools
import json
from datetime import datetime, timedelta
from pathlib import Path

import jsonschema

from scripts.core import (
    data_formats,
    json_files,
    plain_text,
    project_files,
    provenance,
    software_stack,
)
from scripts.core.json_files import write_json_atomic

SCHEMA_VERSION = 2
RESULTS_DIR = project_files.ROOT / "results"
SCHEMA_PATH = project_files.ROOT / "data" / "results.schema.json"
MAX_FILE_BYTES = 10 * 2**20
# A version-1 file (no sessions) is split into sessions where its measurements are further
# apart than this: one `make measure` never pauses that long between two snippets.
SESSION_GAP = timedelta(minutes=30)


class ResultsError(ValueError):
    """A results file that is missing, malformed or inconsistent; the message names the field."""


def read(path: Path) -> dict:
    """Load and check one results file (a version-1 file comes back as version 2); raise
    ResultsError naming the file and field. The same text is checked once per process (a
    test process reads the committed files many times); each caller gets its own parse."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ResultsError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MiB; not read")
        text = path.read_text(encoding="utf-8")
        data = json_files.loads(text)  # NaN, Infinity or a key given twice: refused
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ResultsError(f"{path}: not a readable JSON results file ({error})") from error
    _checked(text, str(path))
    return upgrade(data) if data["schema_version"] == 1 else data


@functools.lru_cache(maxsize=32)
def _checked(text: str, name: str) -> bool:
    """check() of this text under this name, made once; a failure raises and is not kept."""
    check(json_files.loads(text), name)
    return True


@functools.cache
def _validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8")))


def _where(path) -> str:
    """A JSON path as the messages name it: machine.cpu_model, sessions[0].entries['k'].stats."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif text.endswith(("entries", "outputs")):
            text += f"[{part[:80]!r}]"
        else:
            text += f".{part}" if text else part
    return text


def _schema_message(error: jsonschema.ValidationError) -> str:
    """One schema error in words (data_formats.schema_message), a machine's sizes in its own."""
    if error.validator == "maximum":
        return f"{error.instance!r} is more than any machine has (at most {error.validator_value})"
    return data_formats.schema_message(error)


def _schema_problem(data: object, name: str) -> None:
    """Raise ResultsError for a shape error data/results.schema.json finds: the deepest one,
    which names the field most precisely."""
    errors = list(_validator().iter_errors(data))
    if errors:
        error = max(errors, key=lambda e: len(e.absolute_path))
        where = _where(error.absolute_path)
        raise ResultsError(f"{name}: {where + ': ' if where else ''}{_schema_message(error)}")


def _plain_strings(value: object, where: str) -> None:
    """Every string in the file, keys included, is plain text (captured output is checked on
    its own: it is shown in a code block, where only control characters are refused)."""
    if isinstance(value, dict):
        for key, item in value.items():
            problem = plain_text.problem(key)
            if problem:
                raise ResultsError(f"{where} key {key[:40]!r}: {problem}")
            if key == "outputs" and isinstance(item, dict):
                for snippet, output in item.items():
                    _plain_output(output, f"{where}.outputs[{snippet[:80]!r}]")
                continue
            _plain_strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for number, item in enumerate(value):
            _plain_strings(item, f"{where}[{number}]")
    elif isinstance(value, str):
        problem = plain_text.problem(value)
        if problem:
            raise ResultsError(f"{where}: {problem}")


def _plain_output(output: dict, where: str) -> None:
    """A captured output: its text is shown in a code block, so only control characters are
    refused there; its other fields are plain text."""
    for key, item in output.items():
        if key == "text":
            problem = plain_text.output_problem(item)
            if problem:
                raise ResultsError(f"{where}.text: {problem}")
        else:
            _plain_strings(item, f"{where}.{key}")


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


def _machine_rules(machine: dict, where: str) -> None:
    logical, physical = machine.get("logical_cores"), machine.get("physical_cores")
    if logical is not None and physical is not None and physical > logical:
        raise ResultsError(
            f"{where}.physical_cores: {physical} is more than logical_cores ({logical})"
        )
    problem = machine_id_problem(machine)
    if problem:
        raise ResultsError(f"{where}.id: {problem}")


def check_stats(stats: dict, where: str) -> None:
    """Quartiles in order, and one timing and round position per round where recorded."""
    order = [stats[k] for k in ("min_s", "q1_s", "median_s", "q3_s", "max_s")]
    if order != sorted(order):
        raise ResultsError(
            f"{where}: expected min_s <= q1_s <= median_s <= q3_s <= max_s, got "
            + " ".join(map(str, order))
        )
    for field in ("times_s", "round_positions"):
        if field in stats and len(stats[field]) != stats["rounds"]:
            raise ResultsError(
                f"{where}.{field}: expected {stats['rounds']} values (one per round), "
                f"got {len(stats[field])}"
            )


def check_entry(key: str, entry: dict, where: str) -> None:
    """What the schema cannot say about one entry: its key, statistics and stored speed-up."""
    if key != f"{entry['snippet']}:{entry['variant']}":
        raise ResultsError(f"{where}: key must be '<snippet>:<variant>'")
    check_stats(entry["stats"], f"{where}.stats")
    speedup = entry.get("speedup")
    if speedup is not None:
        if speedup["vs"] != entry["baseline"]:
            raise ResultsError(
                f"{where}.speedup.vs: expected the entry's baseline {entry['baseline']!r}"
            )
        if not speedup["low"] <= speedup["point"] <= speedup["high"]:
            raise ResultsError(
                f"{where}.speedup: the interval {speedup['low']:.4g}–{speedup['high']:.4g} does "
                f"not contain its point estimate {speedup['point']:.4g}"
            )


def session_counts(entries: dict) -> dict:
    """A session's variants, how many are noisy, and whether that is more than half."""
    noisy = sum(1 for e in entries.values() if e["stats"].get("noisy"))
    return {
        "variants": len(entries),
        "noisy_variants": noisy,
        "marked_noisy": noisy * 2 > len(entries),
    }


def _session_rules(session: dict, where: str) -> None:
    for key, entry in session["entries"].items():
        check_entry(key, entry, f"{where}.entries[{key[:80]!r}]")
        stack = software_stack.name(entry["software"])
        if stack != session["stack"]:
            raise ResultsError(
                f"{where}.entries[{key[:80]!r}].software: runs stack {stack!r}, not the "
                f"session's {session['stack']!r}; a session holds one stack"
            )
    counts = session_counts(session["entries"])
    for field, value in counts.items():
        if session[field] != value:
            raise ResultsError(
                f"{where}.{field}: {session[field]!r} is not what its entries give ({value!r})"
            )


def check(data: object, name: str) -> None:
    """Check parsed results data (version 1 or 2); raise ResultsError on the first fault."""
    if not isinstance(data, dict):
        raise ResultsError(f"{name}: expected an object, got {type(data).__name__}")
    _schema_problem(data, name)
    _plain_strings(data, name)
    _machine_rules(data["machine"], f"{name}: machine")
    if data["schema_version"] == 1:
        for key, entry in data["entries"].items():
            check_entry(key, entry, f"{name}: entries[{key[:80]!r}]")
        return
    ids = [s["id"] for s in data["sessions"]]
    if ids != sorted(set(ids)):
        raise ResultsError(f"{name}: sessions: expected ids in time order, none twice, got {ids}")
    for number, session in enumerate(data["sessions"]):
        _session_rules(session, f"{name}: sessions[{number}]")


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def upgrade(data: dict) -> dict:
    """A version-1 file as version 2: its entries split into sessions wherever two
    measurements are more than SESSION_GAP apart (or their software stack changes), each
    output going with the session its date falls in."""
    ordered = sorted(data["entries"].items(), key=lambda item: (item[1]["date"], item[0]))
    sessions: list[dict] = []
    last = None
    for key, entry in ordered:
        stack = software_stack.name(entry["software"])
        when = _when(entry["date"])
        if not sessions or when - last > SESSION_GAP or stack != sessions[-1]["stack"]:
            sessions.append({"id": entry["date"], "stack": stack, "entries": {}, "outputs": {}})
        sessions[-1]["entries"][key] = entry
        last = when
    for snippet, output in sorted(data.get("outputs", {}).items()):
        when = _when(output["date"])
        home = [s for s in sessions if _when(s["id"]) <= when] or sessions[:1]
        if home:
            home[-1]["outputs"][snippet] = output
    for session in sessions:
        session["origin"] = (
            "a version-1 results file, split into sessions at gaps of over 30 minutes"
        )
        session.update(session_counts(session["entries"]))
    return {"schema_version": SCHEMA_VERSION, "machine": data["machine"], "sessions": sessions}


def load_or_new(path: Path, machine: dict) -> dict:
    """The existing results for this machine, or an empty file's structure."""
    if path.exists():
        return read(path)
    return {"schema_version": SCHEMA_VERSION, "machine": machine, "sessions": []}


def merge_snippet(
    path: Path,
    machine: dict,
    session: dict,
    entries: dict[str, dict],
    output: tuple[str, dict] | None,
) -> None:
    """Put one snippet's new entries (and its output) into this run's session, keeping every
    other session as it is: a measure adds a session, it never replaces one.

    session: the run's id ("started") and stack. The file is re-read under a lock right
    before writing, so two runs writing at the same time do not overwrite each other.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = load_or_new(path, machine)
        if data["sessions"] and provenance.fingerprint(data["machine"]) != provenance.fingerprint(
            machine
        ):
            raise ResultsError(
                f"{path}: holds results of another machine ({data['machine']['description']}); "
                "this machine's results need their own file"
            )
        found = [s for s in data["sessions"] if s["id"] == session["id"]]
        if not found:
            found = [{**session, "entries": {}, "outputs": {}}]
            data["sessions"] = sorted(data["sessions"] + found, key=lambda s: s["id"])
        target = found[0]
        target["entries"].update(entries)
        if output is not None:
            target["outputs"][output[0]] = output[1]
        target.update(session_counts(target["entries"]))
        if machine.get("tf_devices") or not data["machine"].get("tf_devices"):
            data["machine"] = machine
        check(data, str(path))
        write_json_atomic(path, data)


def read_all(results_dir: Path = RESULTS_DIR) -> list[dict]:
    """Every results file in the folder, checked (read), in file-name order."""
    return [read(p) for p in sorted(results_dir.glob("*.json"))]
