"""tune's intervals widened by the between-sitting spread the guide measured (issue 37).

One run's round interval says how sure that run is of its own ratio, not where the next run
lands: the guide's pages stopped using such intervals because a re-run landed inside them
about half the time. So tune does what the guide's pooling (scripts/core/pooling.py) does
for a pair with one sitting: the variance of log(speed-up) is its rounds' variance w (a
seeded paired bootstrap, as pooling.within_variance) plus the between-sitting variance tau2
of the experiment's stratum, taken from the guide's committed results. The long-run interval
is point * exp(+-t sqrt(tau2 + w)), and tune decides on it; where a second run should land is
point * exp(+-t sqrt(2 (tau2 + w))). t is Student's at the spread's degrees of freedom (at
most pooling.PRIOR_DF), as the guide's pages use it.

data/tune_spread.json holds tau2, its degrees of freedom and t per stratum; it is written from
the committed results by `python -m benchmarks.tune.tune_spread` and a test holds it equal to
what the results give. Standard library only: tf-doctor.pyz bundles this and the data file.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from pathlib import Path

from scripts.core import project_files, stats

SPREAD_JSON = project_files.ROOT / "data" / "tune_spread.json"
# The stratum (data/variance_strata.yml) of each experiment, by that file's rule: timed code
# that reads files is in `files`, other code in `compute`. Only the input experiment times a
# pipeline; it takes `files` when the pipeline has one of tf.data's file readers among its
# stages (scripts/tuning/pipeline.py) or could not be inspected. A file read inside Python
# (from_generator, numpy_function) cannot be seen from outside and stays `compute`. (The
# first version gave every input experiment `files`; it was changed before the second
# sitting was measured, on this reading of the strata's rule.)
FILES, COMPUTE = "files", "compute"
FILE_STAGES = ("TFRecord", "TextLine", "FixedLengthRecord", "ListFiles", "MatchingFiles")
HOW = (
    "intervals widened by the between-sitting spread the guide measured ({strata}): the "
    "verdict reads the widened interval, and a second run should land in the 'next run' range"
)


def load(path: Path = SPREAD_JSON) -> dict:
    """{stratum: {"tau2", "df", "t"}}; {} when the file is missing (nothing is widened)."""
    try:
        found = json.loads(project_files.read_text(path))
    except (FileNotFoundError, KeyError):  # KeyError: not a member of tf-doctor.pyz
        return {}
    strata = found.get("strata") if isinstance(found, dict) else None
    if not isinstance(strata, dict):
        raise ValueError(f"{path}: expected {{'strata': {{id: {{tau2, df, t}}}}}}")
    for name, spread in strata.items():
        values = [spread.get(key) if isinstance(spread, dict) else None for key in ("tau2", "t")]
        if not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0
            for v in values
        ):
            raise ValueError(f"{path}: strata.{name}: tau2 and t must be finite numbers >= 0")
    return strata


def stratum_of(experiment: str, facts: dict | None = None) -> str:
    """FILES or COMPUTE for an experiment on the model the facts describe."""
    if experiment != "input" or (facts or {}).get("data_kind") == "arrays":
        return COMPUTE
    pipeline = (facts or {}).get("pipeline") or {}
    if pipeline.get("error") or "stages" not in pipeline:
        return FILES
    stages = [str(stage.get("stage", "")) for stage in pipeline["stages"]]
    return FILES if any(s.startswith(FILE_STAGES) for s in stages) else COMPUTE


def within_variance(base: list[float], arm: list[float], paired: bool) -> float:
    """Seeded bootstrap variance of log(median(base) / median(arm)) over one run's rounds."""
    rng = random.Random(stats.BOOTSTRAP_SEED)
    logs = []
    for _ in range(stats.BOOTSTRAP_RESAMPLES):
        if paired:
            picks = rng.choices(range(len(arm)), k=len(arm))
            ratio = statistics.median(base[i] for i in picks) / statistics.median(
                arm[i] for i in picks
            )
        else:
            ratio = statistics.median(rng.choices(base, k=len(base))) / statistics.median(
                rng.choices(arm, k=len(arm))
            )
        logs.append(math.log(ratio))
    return statistics.variance(logs)


def widened(
    point: float, within: float, spread: dict | None
) -> tuple[float, float, float, float] | None:
    """(long-run low, high, next-run low, high), or None without a spread."""
    if not spread:
        return None
    total = spread["tau2"] + within
    mean = spread["t"] * math.sqrt(total)
    new = spread["t"] * math.sqrt(2 * total)
    return (
        point * math.exp(-mean),
        point * math.exp(mean),
        point * math.exp(-new),
        point * math.exp(new),
    )
