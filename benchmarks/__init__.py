"""Checks of the project's own tools against known answers: benchmarks and validations that are
run by hand and committed, never part of the product."""
