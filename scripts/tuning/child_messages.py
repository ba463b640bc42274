"""What tune's parent (runner.py) and its children (child.py) tell each other.

The parent asks on the child's command line: the experiment, its arms, the rounds, and the
check's Facts as JSON (--facts). The child answers with a ChildReport, written as JSON to the
file named by --out (after every round, so a crash or Ctrl-C keeps what was measured); the
parent reads it with read_report, which holds it to ChildReport and names the file and the
field of anything amiss. An isolated experiment's report is the same shape, merged by the
parent from one child per arm per process round.

Read by tf-doctor.pyz on the reader's Python, 3.9 included: the annotations are evaluated at
run time (scripts/core/typed_json.py), so they are written Optional[X] and Union[X, Y].
"""

from pathlib import Path
from typing import Literal, Optional, TypedDict, Union

from scripts.core import typed_json


class PipelineStage(TypedDict):
    stage: str  # from_generator, map, batch, prefetch, ...
    python: bool  # whether it runs Python code


class Pipeline(TypedDict):
    """A dataset's pipeline, read from its graph (pipeline.inspect)."""

    sequential_maps: int
    parallel_maps: int
    prefetched: bool
    cached: bool
    stages: list[PipelineStage]


class PipelineUnread(TypedDict):
    """A dataset TensorFlow could not serialise: why, and nothing else is said."""

    error: str


class CheckedFacts(TypedDict):
    """What the check found of the reader's model and data (child.facts)."""

    keras_package: str  # "keras" or "tf_keras"
    keras_version: Optional[str]
    tensorflow_version: str
    devices: list[str]  # "CPU:0", "GPU:0"
    gpu: bool
    data_kind: Literal["dataset", "arrays"]
    pipeline: Union[Pipeline, PipelineUnread, None]  # None for arrays
    batch_size: int
    steps_per_run: int
    run_eagerly: bool
    jit_compile: bool
    policy: str
    logical_cores: Optional[int]
    intra_op_threads: int
    prefetched: Optional[bool]
    traces: list[int]  # tf.function traces in each of the first steps
    parameters: Optional[int]


class Facts(CheckedFacts, total=False):
    """The check's facts as the parent passes them to every experiment's child (--facts),
    with what the parent adds from the machine."""

    metal_gpu: bool
    apple_silicon: bool


class Memory(TypedDict):
    """The drift experiment's memory after each timed run (None: no figure for the GPU)."""

    resident_bytes: list[int]
    gpu_bytes: list[Optional[int]]


class LossAgreement(TypedDict):
    """A mixed-precision arm's loss after the same steps against float32's."""

    steps: int
    loss_float32: float
    loss_variant: float
    relative_difference: float
    tolerance: float
    agrees: bool


class NotCompared(TypedDict):
    """The loss comparison failed: why."""

    error: str
    agrees: Literal[False]


class Arm(TypedDict, total=False):
    """One arm: its timings (one per round), or the error that stopped it. An isolated arm
    merged by the parent has one time per process, the median of that process's run_times_s."""

    label: str
    samples_per_run: int
    first_call_s: Optional[float]
    times_s: list[float]
    positions: list[int]  # each time's place in its round's order
    run_times_s: list[list[float]]  # isolated arms: each process's own runs
    memory: Memory  # the drift experiment
    agreement: Union[LossAgreement, NotCompared]  # the precision experiment
    error: str


class DeviceAgreement(TypedDict):
    """The correctness experiment: the same steps on the CPU and the GPU."""

    devices: list[str]
    steps: int
    loss_cpu: float
    loss_gpu: float
    first_difference: Optional[str]  # the first loss, else weight, that differs; None: none
    agrees: bool


class ChildBase(TypedDict):
    arms: dict[str, Arm]
    error: Optional[str]  # why the child (or the experiment) could not finish


class ChildReport(ChildBase, total=False):
    """A child's answer, or the parent's merge of an isolated experiment's children."""

    experiment: str  # the child's own (a merged report names none)
    facts: CheckedFacts  # the check
    agreement: DeviceAgreement  # the correctness experiment
    interrupted: bool  # Ctrl-C: what was measured is kept


def read_report(path: Path, experiment: str) -> ChildReport:
    """The child's report at path, held to ChildReport: a typed_json.MessageError names the
    file, the field and what was expected. A child stopped before it wrote one (killed, or
    timed out) leaves no file: an empty report, for the parent to say why."""
    if not path.exists():
        return {"experiment": experiment, "arms": {}, "error": None}
    return typed_json.read(path, ChildReport, f"tune's {experiment} child's report")
