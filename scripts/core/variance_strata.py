"""The variance strata (data/variance_strata.yml): which snippets share a between-sitting
spread. Fixed before the data they move; tests check the file against the snippets' code."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

from scripts.core import yaml_files
from scripts.core.catalog import ROOT

DATA = ROOT / "data" / "variance_strata.yml"


class StrataError(ValueError):
    """data/variance_strata.yml is missing a field or lists a snippet twice."""


@dataclass(frozen=True)
class Strata:
    """{snippet: stratum id}, and the stratum of any snippet not listed."""

    listed: dict[str, str]
    default: str
    why: dict[str, str]

    def of(self, snippet: str) -> str:
        return self.listed.get(snippet, self.default)


@functools.cache
def load(path: Path = DATA) -> Strata:
    """The strata file, checked (read once per path)."""
    try:
        raw = yaml_files.safe_load(path.read_text(encoding="utf-8"))
        default, strata = raw["default"], raw["strata"]
    except (OSError, yaml.YAMLError, KeyError, TypeError) as error:
        raise StrataError(f"{path.name}: expected `default` and a `strata` list") from error
    listed: dict[str, str] = {}
    why: dict[str, str] = {}
    for number, stratum in enumerate(strata):
        where = f"{path.name}: strata[{number}]"
        if not isinstance(stratum, dict) or not str(stratum.get("id", "")).strip():
            raise StrataError(f"{where}: needs an `id`")
        if not str(stratum.get("why", "")).strip():
            raise StrataError(f"{where} ({stratum['id']}): needs `why`, decided before the data")
        why[stratum["id"]] = " ".join(stratum["why"].split())
        for snippet in stratum.get("snippets") or []:
            if snippet in listed:
                raise StrataError(f"{where}: {snippet!r} is already in {listed[snippet]!r}")
            listed[snippet] = stratum["id"]
    if default not in why:
        raise StrataError(
            f"{path.name}: default {default!r} is not one of the strata {sorted(why)}"
        )
    return Strata(listed, default, why)
