"""The one vocabulary of outcomes and every margin the guide decides with.

Pages, the published CSV, `make compare`, `tune` and its checks all take their words from here,
so "supported" or "no clear difference" means the same everywhere. How we measure explains
them; scripts/findings decides which applies.
"""

from __future__ import annotations

# What a claim evidence row's long-run interval says of the claim's range: the whole interval
# inside supports it, the whole interval outside contradicts it, anything else is open.
SUPPORTED, INCONCLUSIVE, CONTRADICTED = "supported", "inconclusive", "contradicted"
ROW_OUTCOMES = (SUPPORTED, INCONCLUSIVE, CONTRADICTED)

# What a speed-up's long-run interval says of the direction: above 1.00, below it, or holding it.
FASTER, SLOWER, NO_CLEAR_DIFFERENCE = "faster", "slower", "no clear difference"

# What difference counts as none (issue 18, section 5), decided for every range at once and
# before looking at which verdicts it moves: a range that says "no faster" has an upper bound
# of at least NO_DIFFERENCE, and one that says "no slower" a lower bound of at most
# 1 / NO_DIFFERENCE. A reader notices a 10% change in training time; a smaller one is within
# what the same program shows from one day to the next on these machines.
NO_DIFFERENCE = 1.10

# tune ranks a change as worth making when its point is at least MIN_GAIN and its interval
# excludes 1.00; below that it is "faster by under 5%", a gain not worth a change of code.
MIN_GAIN = 1.05

# A claim's headline verdict (data/claims/*.yml) and the admonition it is shown in.
HEADLINES = {
    "holds": "success",
    "holds with conditions": "warning",
    "wrong": "failure",
    "wrong here": "failure",
    "cannot be tested here": "info",
    "reported": "note",
}


def row_outcome(at_least: float, below: float, low: float, high: float) -> str:
    """SUPPORTED, CONTRADICTED or INCONCLUSIVE for an interval against [at_least, below)."""
    if at_least <= low and high < below:
        return SUPPORTED
    if high < at_least or low >= below:
        return CONTRADICTED
    return INCONCLUSIVE


def direction(low: float, high: float) -> str:
    """FASTER, SLOWER or NO_CLEAR_DIFFERENCE for a speed-up's interval."""
    if low > 1.0:
        return FASTER
    if high < 1.0:
        return SLOWER
    return NO_CLEAR_DIFFERENCE
