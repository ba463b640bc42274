"""The core: paths, catalog, machine identity, statistics, claims and verdicts, the results
store, plain text, the compatibility and stack tables, version order, the source ledger.
It imports no stage (measuring, results, rendering, doctor) and no command."""
