"""The findings stage: what the results say, decided once, for every page and tool to read.

Between the results (scripts/core/store.py, read as views of one stack by results_views.py)
and everything that shows them: per (machine, stack, pair) a finding (pairs.py), per claim
evidence row its outcome and per claim the headline its rows allow (claim_rows.py), moves
between stacks (stack_moves.py), what a new machine should expect (across_machines.py) and
the held-back calibration (calibration.py).
Renderers and `make compare` read findings; only this stage calls the statistics
(scripts/core/stats.py, pooling.py), which lint-imports holds (pyproject.toml).
"""
