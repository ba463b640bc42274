"""The record of what every printed install command installs (data/commands_record.json):
which commands are offered where and for which recipe, resolving them, and checking the record.

An offer is one command, for one recipe, on one platform and Python, given to one environment
(the packages already installed, as requirements). The record holds one entry per offer.
"""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from scripts.core import data_formats, project_files, symptom_readers
from scripts.installs import fix_routes, purposes, resolve
from scripts.installs.commands import Printed, commands_in, dumps, steps
from scripts.installs.purposes import WATCHED, intended_recipe, pinned, pins

RECORD = project_files.ROOT / "data" / "commands_record.json"
ABOUT = (
    "What each install command the site and the doctor print installs, by pip's own resolver "
    "(pip install --dry-run --report against PyPI, --only-binary=:all:, for the platform and "
    "Python named; a command given to an environment that holds a recipe is resolved on top of "
    "that recipe). Written by `make commands-record` (python -m scripts.commands_record); "
    "checked offline by tests/test_commands_record.py. Edit data/command_purposes.yml, not this."
)


@dataclass(frozen=True)
class Offer:
    """One command offered for one recipe on one platform and Python, to one environment."""

    command: str
    recipe: str
    platform: str
    python: str
    onto: tuple[str, ...]  # requirements already installed ("name==version"); () for none

    def key(self) -> tuple:
        return (self.command, self.recipe, self.platform, self.python, self.onto)


class MissingPurpose(ValueError):
    """A printed command that data/command_purposes.yml does not list."""


def _onto(recipe: str | None, platform: str) -> tuple[str, ...]:
    if not recipe:
        return ()
    install = pins(recipe).install
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
                "not list: add it with the recipe it is for"
            )
        if isinstance(found, str):
            skipped[item.command] = found
            continue
        for use in found:
            for platform in use.platforms:
                for python in use.pythons or pins(use.recipe).pythons:
                    offer = Offer(item.command, use.recipe, platform, python,
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


def onto_of(installed: dict[str, str]) -> tuple[str, ...]:
    """An environment's packages as the record's `onto` names them."""
    return tuple(f"{name}=={version}" for name, version in sorted(installed.items()))


def offer_of(
    command: str, platform: str, python: str, installed: dict[str, str], legacy: bool
) -> Offer | None:
    """The offer of a command given to an environment: for the recipe it moves the environment
    to (Linux: this project's pins; a fix that keeps an unlisted TensorFlow: that TensorFlow),
    or None when it installs nothing (an uninstall only, resolved without pip)."""
    parts = steps(command)
    if not any(step.action == "install" for step in parts):
        return None
    requirements = [a for s in parts if s.action == "install" for a in s.args
                    if not a.startswith("-")]  # fmt: skip
    removed = [p for s in parts if s.action == "uninstall" for p in s.packages]
    if platform.startswith("linux"):
        recipe = "linux"
    else:
        recipe = intended_recipe(requirements, removed, installed, legacy)
        recipe = recipe or purposes.kept_recipe(requirements, installed)
    return Offer(command, recipe or "unlisted", platform, python, onto_of(installed))


def doctor_offers(fixes: Iterable[DoctorFix]) -> dict[Offer, set[str]]:
    """The offers of every install command in the doctor's fixes; each is for the recipe it
    moves the machine to (Linux: this project's pins), given to what the machine holds."""
    offers: dict[Offer, set[str]] = {}
    for fix in fixes:
        for command in commands_in(fix.fix):
            offer = offer_of(command, fix.platform, fix.python, fix.installed, fix.legacy)
            if offer is not None:
                offers.setdefault(offer, set()).add(fix.where)
    return offers


def symptom_offers(entries: Iterable[dict], recommended: list[str]) -> dict[Offer, set[str]]:
    """The offers of each symptom's fix code routes, given to each of its readers (`onto`);
    a route that makes a new environment first is given to none."""
    offers: dict[Offer, set[str]] = {}
    for entry in entries:
        where = f"data/symptoms.yml#{entry['id']}"
        for reader in symptom_readers.readers(entry):
            installed = dict(reader.packages)
            legacy = dict(reader.env).get("TF_USE_LEGACY_KERAS") in ("true", "True", "1")
            for route in fix_routes.from_fix_code(entry["fix_code"], recommended):
                if route.command is None or not route.applies_to(reader.python):
                    continue
                python = route.python or reader.python
                offer = offer_of(route.command, "macos-arm64", python,
                                 {} if route.fresh else installed, legacy)  # fmt: skip
                if offer is not None:
                    offers.setdefault(offer, set()).add(where)
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
    try:
        environment = resolve.apply_install(resolve.run_pip([first], platform, python, {}), {})
    except resolve.ResolveError:
        # tensorflow-macos 2.5 to 2.8 need a numpy with no macOS arm64 wheel on PyPI (a reader
        # built it): stand-ins for exactly the packages named, as the doctor would list them.
        report = resolve.run_pip(["--no-deps", *onto], platform, python, {})
        return resolve.apply_install(report, {})
    rest = [r for r in onto if r != first]
    report = resolve.run_pip(["--no-deps", *rest], platform, python, environment)
    return resolve.apply_install(report, environment)


def resolve_offer(offer: Offer, today: str) -> dict:
    """One record entry: the watched packages' versions after the command, or pip's error."""
    entry = {
        "command": offer.command, "recipe": offer.recipe, "platform": offer.platform,
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
    return (entry["command"], entry["recipe"], entry["platform"], entry["python"],
            tuple(entry["onto"]))  # fmt: skip


def problems(offers: Iterable[Offer] | dict[Offer, set[str]], record: dict) -> list[str]:
    """Every way the offers and the record disagree with the offers' purposes. Both ways: an
    entry no offer has, and an offer printed in other places than its entry says. Then an
    offer the record lacks, one that resolves to nothing, one that leaves its recipe's pins,
    one that ends with two TensorFlow distributions (purposes.two_tensorflows)."""
    entries = {entry_key(entry): entry for entry in record["entries"]}
    offered = {offer.key() for offer in offers}
    found = [
        f"`{key[0]}` for {key[1]} on {key[2]}, Python {key[3]}: in {RECORD.name}, but nothing "
        "prints it there any more (a collector lost a source, or run `make commands-record`)"
        for key in sorted(set(entries) - offered)
    ]
    for offer in sorted(set(offers), key=lambda o: o.key()):
        at = f"`{offer.command}` for {offer.recipe} on {offer.platform}, Python {offer.python}"
        if offer.onto:
            at += f", given to {' '.join(offer.onto)}"
        if offer.recipe == "unlisted":
            found.append(f"{at}: moves the environment to no recipe of data/mac_recipes.json")
            continue
        entry = entries.get(offer.key())
        where = offers.get(offer) if isinstance(offers, dict) else None
        if entry is None:
            found.append(f"{at}: not in {RECORD.name} (run `make commands-record`)")
            continue
        if (
            where is not None
            and "printed_in" in entry
            and (entry["printed_in"], entry["printed_by"]) != (len(where), sorted(where)[:3])
        ):
            said = f"{entry['printed_in']} ({', '.join(entry['printed_by'])})"
            found.append(
                f"{at}: printed in {len(where)} places ({', '.join(sorted(where)[:3])}), the "
                f"record says {said}: a collector lost or gained a source, or rerun "
                "`python -m scripts.commands_record --keep`"
            )
        if entry["resolved"] is None:
            found.append(f"{at}: resolves to nothing ({entry['error']})")
        else:
            for problem in purposes.outside_pins(entry["resolved"], offer.recipe):
                found.append(f"{at}: installs {problem}")
            two = purposes.two_tensorflows(entry["resolved"])
            if two:
                printed = "; ".join(entry.get("printed_by") or ["?"])
                found.append(f"{at}: ends with two TensorFlows, {two}, both writing "
                             f"site-packages/tensorflow/ (printed by {printed})")  # fmt: skip
    return found
