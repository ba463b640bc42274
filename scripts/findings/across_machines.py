"""What a reader on another machine should expect: a random-effects summary of one evidence
item over the machines measured with one stack (DerSimonian and Laird), with a 95% prediction
for a new machine (Higgins, Thompson and Spiegelhalter 2009), t at m - 2 degrees of freedom.

Needs three machines or more; with fewer there is no spread between machines to estimate.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from scripts.core import pooling
from scripts.findings.pairs import Finding

LEVEL = 0.95
MIN_MACHINES = 3


@dataclass(frozen=True)
class AcrossMachines:
    """The mean speed-up over machines, its 95% interval, and where a new machine lands."""

    machines: int
    point: float
    low: float
    high: float
    new_low: float  # 95% prediction for a machine not measured (a reader's Mac among them)
    new_high: float
    tau2: float  # between-machine variance of log speed-ups


def summary(found: list[Finding]) -> AcrossMachines | None:
    """The summary over one finding per machine; None with fewer than MIN_MACHINES."""
    if len(found) < MIN_MACHINES:
        return None
    y = [math.log(f.point) for f in found]
    v = [max(f.se, 1e-9) ** 2 for f in found]
    w = [1 / vi for vi in v]
    fixed = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / sum(w)
    q = sum(wi * (yi - fixed) ** 2 for wi, yi in zip(w, y, strict=True))
    c = sum(w) - sum(wi**2 for wi in w) / sum(w)
    tau2 = max(0.0, (q - (len(y) - 1)) / c) if c > 0 else 0.0
    w_star = [1 / (vi + tau2) for vi in v]
    centre = sum(wi * yi for wi, yi in zip(w_star, y, strict=True)) / sum(w_star)
    se = math.sqrt(1 / sum(w_star))
    t_mean = pooling.t_quantile(1 - (1 - LEVEL) / 2, len(y) - 1)
    t_new = pooling.t_quantile(1 - (1 - LEVEL) / 2, len(y) - 2)
    spread = t_new * math.sqrt(tau2 + se**2)
    return AcrossMachines(
        machines=len(y),
        point=math.exp(centre),
        low=math.exp(centre - t_mean * se),
        high=math.exp(centre + t_mean * se),
        new_low=math.exp(centre - spread),
        new_high=math.exp(centre + spread),
        tau2=tau2,
    )


def unweighted_point(found: list[Finding]) -> float:
    """The geometric mean of the machines' points, for a check against summary()."""
    return math.exp(statistics.fmean(math.log(f.point) for f in found))
