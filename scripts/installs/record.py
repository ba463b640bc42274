"""The record of what every printed install command installs (data/commands_record.json):
which commands are offered where and for which stack, resolving them, and checking the record.

An offer is one command, for one stack, on one platform and Python, given to one environment
(the packages already installed, as requirements). The record holds one entry per offer.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from scripts.core import data_formats, project_files
from scripts.installs import purposes, resolve
from scripts.installs.commands import Printed, commands_in, dumps, steps
from scripts.installs.purposes import WATCHED, intended_stack, pinned, pins

RECORD = project_files.ROOT / "data" / "commands_record.json"
ABOUT = (
    "What each install command the site and the doctor print installs, by pip's own resolver "
    "(pip install --dry-run --report against PyPI, --only-binary=:all:, for the platform and "
    "Python named; a command given to an environment that holds a stack is resolved on top of "
    "that stack). Written by `make commands-record` (python -m scripts.commands_record); "
    "checked offline by tests/test_commands_record.py. Edit data/command_purposes.yml, not this."
)


@dataclass(frozen=True)
class Offer:
    """One command offered for one stack on one platform and Python, to one environment."""

    command: str
    stack: str
    platform: str
    python: str
    onto: tuple[str, ...]  # requirements already installed ("name==version"); () for none

    def key(self) -> tuple:
        return (self.command, self.stack, self.platform, self.python, self.onto)


class MissingPurpose(ValueError):
    """A printed command that data/command_purposes.yml does not list."""


def _onto(stack: str | None, platform: str) -> tuple[str, ...]:
    if not stack:
        return ()
    install = pins(stack).install
    if platform == "linux-aarch64":  # tensorflow-cpu has no aarch64 wheel; tensorflow is CPU there
        install = tuple(r.replace("tensorflow-cpu==", "tensorflow==") for r in install)
    return install


def printed_offers(printed: Iterable[Printed]) -> tuple[dict[Offer, set[str]], dict[str, str]]:
    """The offers of the commands the site prints, each with where it is printed; and the
    commands the purposes file says are not resolved, with why."""
    offers: dict[Offer, set[str]] = {}
    skipped: dict[str, str] = {}
    for item in printed:
        if not any(step.action in ("install", "conda") for step in steps(item.command)):
            continue  # an uninstall only
        found = purposes.purposes_of(item.command)
        if found is None:
            raise MissingPurpose(
                f"{item.where} prints `{item.command}`, which {purposes.PURPOSES.name} does "
                "not list: add it with the stack it is for"
            )
        if isinstance(found, str):
            skipped[item.command] = found
            continue
        for use in found:
            for platform in use.platforms:
                for python in pins(use.stack).pythons:
                    offer = Offer(item.command, use.stack, platform, python,
                                  _onto(use.onto, platform))  # fmt: skip
                    offers.setdefault(offer, set()).add(item.where)
    return offers, skipped


@dataclass(frozen=True)
class DoctorFix:
    """A fix the doctor printed on a faked machine, as plain data."""

    where: str  # "doctor <check>: <machine>"
    fix: str
    platform: str
    python: str
    installed: dict[str, str]
    legacy: bool  # TF_USE_LEGACY_KERAS set


def doctor_offers(fixes: Iterable[DoctorFix]) -> dict[Offer, set[str]]:
    """The offers of every install command in the doctor's fixes; each is for the stack it
    moves the machine to (Linux: this project's pins), given to what the machine holds."""
    offers: dict[Offer, set[str]] = {}
    for fix in fixes:
        onto = tuple(f"{name}=={version}" for name, version in sorted(fix.installed.items()))
        for command in commands_in(fix.fix):
            parts = steps(command)
            if not any(step.action == "install" for step in parts):
                continue
            requirements = [a for s in parts if s.action == "install" for a in s.args
                            if not a.startswith("-")]  # fmt: skip
            removed = [p for s in parts if s.action == "uninstall" for p in s.packages]
            if fix.platform.startswith("linux"):
                stack = "linux"
            else:
                stack = intended_stack(requirements, removed, fix.installed, fix.legacy)
            offer = Offer(command, stack or "unlisted", fix.platform, fix.python, onto)
            offers.setdefault(offer, set()).add(fix.where)
    return offers


# --- resolving (needs the network) ------------------------------------------------------------


_ENVIRONMENTS: dict[tuple, resolve.Environment | resolve.ResolveError] = {}
_ENVIRONMENTS_LOCK = threading.Lock()


def _environment(onto: tuple[str, ...], platform: str, python: str) -> resolve.Environment:
    """_installed, resolved once per environment, platform and Python."""
    key = (onto, platform, python)
    with _ENVIRONMENTS_LOCK:
        lock = _ENVIRONMENTS.setdefault(("lock", *key), threading.Lock())
    with lock:
        if key not in _ENVIRONMENTS:
            try:
                _ENVIRONMENTS[key] = _installed(onto, platform, python)
            except resolve.ResolveError as error:
                _ENVIRONMENTS[key] = error
    found = _ENVIRONMENTS[key]
    if isinstance(found, resolve.ResolveError):
        raise found
    return found


def _installed(onto: tuple[str, ...], platform: str, python: str) -> resolve.Environment:
    """What the reader's environment holds: the requirements together, or (when pip would
    not install them together, as a faked mismatch) TensorFlow with its dependencies and the
    rest exactly as named, without theirs."""
    if not onto:
        return {}
    try:
        return resolve.apply_install(resolve.run_pip(list(onto), platform, python, {}), {})
    except resolve.ResolveError:
        pass
    first = next((r for r in onto if pinned(r)[0] in purposes.TENSORFLOW_NAMES), onto[0])
    environment = resolve.apply_install(resolve.run_pip([first], platform, python, {}), {})
    rest = [r for r in onto if r != first]
    report = resolve.run_pip(["--no-deps", *rest], platform, python, environment)
    return resolve.apply_install(report, environment)


def resolve_offer(offer: Offer, today: str) -> dict:
    """One record entry: the watched packages' versions after the command, or pip's error."""
    entry = {
        "command": offer.command, "stack": offer.stack, "platform": offer.platform,
        "python": offer.python, "onto": list(offer.onto), "date": today,
    }  # fmt: skip
    try:
        environment = _environment(offer.onto, offer.platform, offer.python)
    except resolve.ResolveError as error:
        return {**entry, "resolved": None, "error": f"the environment it is given to: {error}"}
    try:
        after = resolve.resolve_steps(steps(offer.command), offer.platform, offer.python,
                                      environment)  # fmt: skip
    except resolve.ResolveError as error:
        return {**entry, "resolved": None, "error": str(error)}
    versions = {name: after[name].version if name in after else None for name in WATCHED}
    for name in purposes.TENSORFLOW_NAMES[1:]:
        if name in after:
            versions[name] = after[name].version
    return {**entry, "resolved": versions, "error": None}


def build(
    offers: dict[Offer, set[str]],
    skipped: dict[str, str],
    workers: int = 2,
    kept: list[dict] | None = None,
) -> dict:
    """Resolve every offer (in parallel pip processes) into the record's data; an offer with
    an entry in `kept` keeps it, with the date it was resolved."""
    today = datetime.date.today().isoformat()
    ordered = sorted(offers, key=lambda o: o.key())
    old = {entry_key(entry): entry for entry in kept or []}

    def entry(offer: Offer) -> dict:
        if offer.key() in old:
            return {k: v for k, v in old[offer.key()].items() if not k.startswith("printed_")}
        return resolve_offer(offer, today)

    with ThreadPoolExecutor(workers) as pool:
        entries = list(pool.map(entry, ordered))
    for entry, offer in zip(entries, ordered, strict=True):
        entry["printed_by"] = sorted(offers[offer])[:3]
        entry["printed_in"] = len(offers[offer])
    return {
        "about": ABOUT,
        "resolved_on": min((e["date"] for e in entries), default=today),
        "resolver": f"pip {resolve.PIP}, {resolve.INDEX}",
        "platforms": {name: spec["tags"][0] for name, spec in resolve.PLATFORMS.items()},
        "not_resolved": dict(sorted(skipped.items())),
        "entries": entries,
    }


def write(data: dict) -> None:
    """Write the record, held first to data/commands_record.schema.json."""
    data_formats.check(data, RECORD, "commands_record")
    RECORD.write_text(dumps(data), encoding="utf-8")


def load() -> dict:
    """The record, held to data/commands_record.schema.json."""
    return data_formats.read(RECORD, "commands_record")


def entry_key(entry: dict) -> tuple:
    return (entry["command"], entry["stack"], entry["platform"], entry["python"],
            tuple(entry["onto"]))  # fmt: skip


def problems(offers: Iterable[Offer], record: dict) -> list[str]:
    """Every way the offers and the record disagree with the offers' purposes: an offer the
    record lacks, one that resolves to nothing, one that leaves its stack's pins, one that
    ends with two TensorFlow distributions (purposes.two_tensorflows)."""
    entries = {entry_key(entry): entry for entry in record["entries"]}
    found = []
    for offer in sorted(set(offers), key=lambda o: o.key()):
        at = f"`{offer.command}` for {offer.stack} on {offer.platform}, Python {offer.python}"
        if offer.onto:
            at += f", given to {' '.join(offer.onto)}"
        if offer.stack == "unlisted":
            found.append(f"{at}: moves the environment to no stack of data/mac_stacks.json")
            continue
        entry = entries.get(offer.key())
        if entry is None:
            found.append(f"{at}: not in {RECORD.name} (run `make commands-record`)")
        elif entry["resolved"] is None:
            found.append(f"{at}: resolves to nothing ({entry['error']})")
        else:
            for problem in purposes.outside_pins(entry["resolved"], offer.stack):
                found.append(f"{at}: installs {problem}")
            two = purposes.two_tensorflows(entry["resolved"])
            if two:
                printed = "; ".join(entry.get("printed_by") or ["?"])
                found.append(f"{at}: ends with two TensorFlows, {two}, both writing "
                             f"site-packages/tensorflow/ (printed by {printed})")  # fmt: skip
    return found
