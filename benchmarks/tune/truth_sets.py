"""The planted cases split in two (issue 37), fixed 2026-11-29 before the second sitting was
measured: a design set, on which tune's designs may be chosen, and a validation set, which
only checks them.

The design set holds every case a choice of tune's was made on: the four input cases chose
how dataset variants are timed (commit d53e2a2, "processes"). The thread and batch cases
already measured there are in it too, so that each set has each kind of experiment. The
validation set holds the cases no choice of tune's was made on: three measured on
2026-11-27, whose results were seen but chose nothing, and three new subtle cases (an input
pipeline that costs about as much as the step, a model near the thread crossover, a batch on
the plateau). A test checks the split's size and coverage against ground_truth.CASES.
"""

from __future__ import annotations

SPLIT_DATE = "2026-11-29"
DESIGN, VALIDATION = "design", "validation"
DESIGN_SET = (
    "truth_generator.py",
    "truth_generator_prefetch.py",
    "truth_generator_parallel_map.py",
    "truth_cached.py",
    "truth_retracing.py",
    "truth_threads_tiny.py",
    "truth_batch_small.py",
)
VALIDATION_SET = (
    "truth_small_ops_eager.py",
    "truth_threads_cnn.py",
    "truth_batch_large.py",
    "truth_input_balanced.py",
    "truth_threads_edge.py",
    "truth_batch_plateau.py",
)
MIN_CASES = 5
KINDS = ("input", "graph", "threads", "batch")


def set_of(file: str) -> str:
    """DESIGN or VALIDATION for a case's model file name."""
    if file in DESIGN_SET:
        return DESIGN
    if file in VALIDATION_SET:
        return VALIDATION
    raise ValueError(f"{file}: in neither set of benchmarks/tune/truth_sets.py")


def problems(experiments: dict[str, str]) -> list[str]:
    """What is wrong with the split, given {case file: its experiment}: a case in both sets
    or in none, a set under MIN_CASES, a set without one of KINDS."""
    found = [f"{f}: in both sets" for f in DESIGN_SET if f in VALIDATION_SET]
    found += [
        f"{f}: in neither set" for f in experiments if f not in (*DESIGN_SET, *VALIDATION_SET)
    ]
    for name, files in ((DESIGN, DESIGN_SET), (VALIDATION, VALIDATION_SET)):
        if len(files) < MIN_CASES:
            found.append(f"the {name} set has {len(files)} cases, fewer than {MIN_CASES}")
        kinds = {experiments.get(f) for f in files}
        found += [f"the {name} set has no {kind} case" for kind in KINDS if kind not in kinds]
    return found
