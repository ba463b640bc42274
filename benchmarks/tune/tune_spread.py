"""Write data/tune_spread.json: the between-sitting spread of each variance stratum over the
guide's committed results, which tune widens its intervals by (scripts/tuning/widening.py).

The spread is the one the guide's pages use (scripts/findings/results_views.load_all, pooled by
scripts/core/pooling.spread_of); t is Student's 97.5% quantile at the degrees of freedom the
pages give a pair with one sitting (pooling.PRIOR_DF at most). A test holds the file equal to
what the committed results give.

Usage: python -m benchmarks.tune.tune_spread
"""

from __future__ import annotations

import sys

from scripts.core import json_files, pooling
from scripts.findings import results_views
from scripts.tuning import widening


def spreads() -> dict:
    """{"strata": {id: {tau2, df, groups, t}}} from the committed results; a stratum without
    two sittings of any pair is left out (tune then does not widen that stratum's rows)."""
    found = results_views.load_all()[0]["spread"]
    strata = {}
    for name, spread in sorted(found.items()):
        if spread is None:
            continue
        df = min(pooling.PRIOR_DF, spread.df)
        strata[name] = {
            "tau2": spread.tau2,
            "df": df,
            "groups": spread.groups,
            "t": pooling.t_quantile(1 - (1 - pooling.LEVEL) / 2, df),
        }
    return {
        "about": "between-sitting variance of log speed-ups per stratum, from results/ "
        "(benchmarks/tune/tune_spread.py); read by scripts/tuning/widening.py",
        "strata": strata,
    }


def main() -> int:
    json_files.write_json_atomic(widening.SPREAD_JSON, spreads())
    print(f"wrote {widening.SPREAD_JSON}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
