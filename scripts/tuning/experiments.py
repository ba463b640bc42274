"""The experiments tune runs on the reader's model: each a baseline arm (the model and data as
given) and the arms that change one thing, with the change to make and the guide's section.

Which arms apply depends on facts the first child reports (a dataset or arrays, eager or
not, XLA on or off, a GPU or not, the core count), so parent and child both ask arms().
Standard library only: the parent (tf-doctor.pyz) imports it without TensorFlow.
"""

from __future__ import annotations

from dataclasses import dataclass

BASELINE = "as_given"
ORDER = ("input", "graph", "device", "batch", "threads", "precision", "drift", "correctness")
# Experiments whose change is global to TensorFlow's runtime (thread pools are fixed when it
# starts): each of their arms runs in processes of its own, in alternating process rounds.
ISOLATED = frozenset({"threads", "device"})
# A mixed-precision arm is recommended only when its loss after STEPS_PER_RUN steps from the
# same weights and batches is within this share of float32's.
LOSS_TOLERANCE = 0.02
# Resident (or GPU) memory that grows by more than this share of where it started, and by at
# least DRIFT_MIN_GROWTH bytes, from the first third of the stretch to the last is flagged.
GROWTH_SHARE = 0.05
DRIFT_MIN_GROWTH = 16 * 2**20
DRIFT_MIN_ROUNDS = 9  # three thirds of at least three timed runs
# The GPU's loss and weights after STEPS_PER_RUN steps agree with the CPU's when
# |gpu - cpu| <= ATOL + RTOL * |cpu|: the tolerance of snippets/correctness/device_agreement.py
# (docs/gpu-correctness.md, "Why this tolerance"); a test holds the two equal.
RTOL, ATOL = 1e-3, 1e-5
# The check counts tf.function traces in each of the model's first TRACE_STEPS training steps;
# a model that traced again in RETRACING_STEPS or more of the steps after the first retraces
# (one retrace can be Keras generalising a shape once; the trap is tracing again and again).
TRACE_STEPS = 6
RETRACING_STEPS = 2
RETRACING_LINK = "docs/graph-execution.md#the-retracing-trap"
# Why the XLA arm is not run on an Apple-silicon Mac where TensorFlow lists the Metal GPU
# (the runner sets facts["metal_gpu"]): keras-team/keras v3.10.0, keras/src/trainers/
# trainer.py l.1128-1135, and the jit_compile setter falls back to False (data/sources.yml,
# keras-trainer-v3-10-0). tune has not been run on a Mac: this path is tested with a fake one.
XLA_ON_METAL = (
    "XLA not tried on a Mac with the Metal GPU: Keras 3.10's model_supports_jit returns False "
    'when TensorFlow lists a GPU there ("XLA not supported with TF on MacOS GPU"), and '
    "jit_compile=True then falls back to False, so the arm would train the model as given "
    "(docs/graph-execution.md#modelcompilejit_compile-with-fit)"
)
# tf-keras 2.16.0 switches jit_compile off on any Apple-silicon Mac, GPU or not: can_jit_compile
# (tf_keras/utils/tf_utils.py, called by compile and the jit_compile setter) returns False when
# platform.processor() says "arm": https://github.com/keras-team/tf-keras/blob/v2.16.0/tf_keras/utils/tf_utils.py
# (data/sources.yml, tf-keras-tf-utils-v2-16-0).
XLA_TF_KERAS_ON_MAC = (
    "XLA not tried with tf-keras on an Apple-silicon Mac: tf-keras 2.16's can_jit_compile "
    'returns False there ("XLA (`jit_compile`) is not yet supported on Apple M1/M2 ARM '
    'processors. Falling back to `jit_compile=False`."), so the arm would train the model as '
    "given (docs/graph-execution.md#modelcompilejit_compile-with-fit)"
)


def xla_not_tried(facts: dict) -> str | None:
    """Why the XLA arm would train the model as given here, or None when it can run: tf-keras
    on any Apple-silicon Mac, or Keras 3 where TensorFlow lists the Metal GPU (the runner sets
    facts["apple_silicon"] and facts["metal_gpu"])."""
    if facts.get("keras_package") == "tf_keras" and facts.get("apple_silicon"):
        return XLA_TF_KERAS_ON_MAC
    if facts.get("metal_gpu"):
        return XLA_ON_METAL
    return None


@dataclass(frozen=True)
class Arm:
    name: str
    label: str  # what the arm runs, in the table's words
    change: str  # what to change in the reader's code if it is faster
    link: str  # the guide's section that explains it: docs/<page>.md#<anchor>


def as_given(label: str = "the model and data as given") -> Arm:
    return Arm(BASELINE, label, "", "")


def arms(experiment: str, facts: dict) -> list[Arm]:
    """The experiment's arms, baseline first, for the model the facts describe."""
    return [as_given(), *ARMS[experiment](facts)]


def input_arms(facts: dict) -> list[Arm]:
    if facts.get("data_kind") == "arrays":
        return [
            Arm(
                "in_memory",
                "the same batches converted to tensors once, held in memory",
                "convert the arrays to tensors once (tf.data.Dataset.from_tensor_slices(...)"
                ".batch(...).cache()), not NumPy slices converted every step",
                "docs/memory.md#converting-numpy-arrays-every-step-or-once",
            )
        ]
    found = [
        Arm(
            "in_memory",
            "the same batches held in memory (no input pipeline)",
            in_memory_change(facts.get("pipeline")),
            "docs/input-pipeline.md#what-to-do",
        )
    ]
    maps = (facts.get("pipeline") or {}).get("sequential_maps") or 0
    if maps:
        added = "" if facts.get("prefetched") else " and .prefetch(tf.data.AUTOTUNE) added"
        found.append(
            Arm(
                "parallel_map",
                f"the same pipeline with num_parallel_calls=tf.data.AUTOTUNE on its {maps} "
                f"map{'s' if maps > 1 else ''}{added}",
                "map(..., num_parallel_calls=tf.data.AUTOTUNE)"
                + ("" if facts.get("prefetched") else ", and end with .prefetch(tf.data.AUTOTUNE)"),
                "docs/input-pipeline.md#where-parallelism-helps-a-cpu-heavy-preprocessing-step",
            )
        )
    elif not facts.get("prefetched"):
        found.append(
            Arm(
                "prefetch",
                "the same pipeline with .prefetch(tf.data.AUTOTUNE) added",
                "end the dataset with .prefetch(tf.data.AUTOTUNE)",
                "docs/input-pipeline.md#what-to-do",
            )
        )
    return found


USUAL_FIXES = "cache(), prefetch(tf.data.AUTOTUNE), map(..., num_parallel_calls=tf.data.AUTOTUNE)"
PER_ELEMENT = frozenset({"map", "parallel map", "filter"})


def pipeline_fixes(found: dict) -> tuple[list[str], list[str]]:
    """(the usual fixes the pipeline already has, those it lacks), from pipeline.inspect."""
    has, lacks = [], []
    (has if found.get("cached") else lacks).append("cache()")
    if found.get("prefetched"):
        has.append("a prefetch at the end")
    else:
        lacks.append("prefetch(tf.data.AUTOTUNE)")
    if found.get("sequential_maps"):
        lacks.append("map(..., num_parallel_calls=tf.data.AUTOTUNE)")
    elif found.get("parallel_maps"):
        has.append("parallel maps")
    return has, lacks


def costly_stage(found: dict) -> str | None:
    """The stage the inspection says costs the time, where it can tell: of the stages that
    run at every epoch (after a cache(), which replays what comes before it), one that runs
    Python, else the per-element maps before batch; None where it cannot tell."""
    stages = found.get("stages") or []
    names = [stage["stage"] for stage in stages]
    live = stages[names.index("cache") + 1 :] if "cache" in names else stages
    python = [stage["stage"] for stage in live if stage["python"]]
    if python:
        many = len(python) > 1
        return (
            f"its {' and '.join(python)} stage{'s' if many else ''} run{'' if many else 's'} "
            "Python for every element, which holds Python's GIL: no tf.data option spreads "
            "that over cores"
        )
    before_batch = []
    for stage in live:
        if stage["stage"] in ("batch", "padded_batch"):
            break
        if stage["stage"] in PER_ELEMENT:
            before_batch.append(stage["stage"])
    if before_batch:
        count = len(before_batch)
        return (
            f"its {count} per-element stage{'s' if count > 1 else ''} before batch "
            f"({', '.join(before_batch)}) run{'' if count > 1 else 's'} once per example: "
            "after batch, the same ops run once per batch"
        )
    return None


def in_memory_change(found: dict | None) -> str:
    """What to change when batches held in memory are faster: only the usual fixes the
    pipeline lacks, what it already has named, and the costly stage where it is known."""
    if not found or found.get("error"):
        return f"make the input pipeline keep up: {USUAL_FIXES}, or prepare the data once"
    has, lacks = pipeline_fixes(found)
    stage = costly_stage(found)
    if lacks:
        text = f"make the input pipeline keep up: {', '.join(lacks)}, or prepare the data once"
        if has:
            text += f" (it already has {' and '.join(has)})"
    else:
        text = (
            f"the pipeline already has {', '.join(has)}: prepare the data once (ahead of "
            "training, or in TensorFlow ops)"
        )
    return f"{text}; {stage}" if stage else text


def retracing(facts: dict) -> bool:
    """Whether the model traced again in RETRACING_STEPS or more steps after its first."""
    later = (facts.get("traces") or [])[1:]
    return sum(1 for count in later if count) >= RETRACING_STEPS


def graph_arms(facts: dict) -> list[Arm]:
    if facts.get("run_eagerly") and retracing(facts):
        # An eager step that calls a tf.function with new Python values or shapes traces it
        # at every step; the same step compiled as one graph is traced once.
        return [
            Arm(
                "graph",
                "the same model compiled as one graph (run_eagerly=False), traced once",
                "stop the retracing: pass tensors, not Python numbers, to your tf.function "
                "(tf.constant(step)) or give it an input_signature; or drop run_eagerly=True "
                "so that the whole step is traced once",
                RETRACING_LINK,
            )
        ]
    if facts.get("run_eagerly"):
        # Leaving eager mode first: XLA is a question about the compiled graph, asked once
        # the model runs as one (a run of tune after the change measures it).
        return [
            Arm(
                "graph",
                "the same model compiled as a graph (run_eagerly=False)",
                "drop run_eagerly=True from model.compile (and tf.config.run_functions_eagerly)",
                "docs/graph-execution.md#a-a-step-made-of-many-small-ops",
            )
        ]
    if xla_not_tried(facts):
        return []  # the arm would train the model as given
    jit = bool(facts.get("jit_compile"))
    return [
        Arm(
            "xla_off" if jit else "xla_on",
            f"XLA {'off' if jit else 'on'} (jit_compile={not jit})",
            f"model.compile(..., jit_compile={not jit})",
            "docs/graph-execution.md#modelcompilejit_compile-with-fit",
        )
    ]


def batch_arms(facts: dict) -> list[Arm]:
    size = facts.get("batch_size") or 0
    return [
        Arm(
            f"batch_x{factor}",
            f"batches of {size * factor} (x{factor}), in samples per second",
            f"batch_size={size * factor} (x{factor}); a larger batch changes training: retune "
            "the learning rate and check the loss",
            "docs/batch-size.md#what-to-do",
        )
        for factor in (2, 4)
    ]


def thread_counts(cores: int | None) -> list[int]:
    return sorted({n for n in (1, 2, cores or 0) if n >= 1 and n <= (cores or 2)})


def threads_arms(facts: dict) -> list[Arm]:
    cores = facts.get("logical_cores")
    return [
        Arm(
            f"intra_{n}",
            f"intra-op threads {n}" + (" (all cores)" if n == cores else ""),
            f"tf.config.threading.set_intra_op_parallelism_threads({n}) at the start",
            "docs/threads.md#what-to-do",
        )
        for n in thread_counts(cores)
    ]


def precision_arms(facts: dict) -> list[Arm]:
    if facts.get("policy") not in (None, "float32"):
        return []  # the model already runs a mixed policy
    return [
        Arm(
            f"mixed_{kind}",
            f"mixed precision, policy mixed_{kind}",
            f'keras.mixed_precision.set_global_policy("mixed_{kind}") before building the '
            "model (keep the last layer float32)",
            "docs/mixed-precision.md#what-to-do",
        )
        for kind in ("float16", "bfloat16")
    ]


def device_arms(facts: dict) -> list[Arm]:
    return [
        Arm(
            "cpu_only",
            "the CPU alone (the GPU hidden)",
            'tf.config.set_visible_devices([], "GPU") at the start: this model trains faster '
            "on the CPU",
            "docs/device-placement.md#cpu-or-gpu-for-your-model",
        )
    ]


def no_arms(facts: dict) -> list[Arm]:
    return []


def drift_arms(facts: dict) -> list[Arm]:
    return []  # the model as given alone, over a longer stretch: step time and memory


ARMS = {
    "device": device_arms,
    "correctness": no_arms,  # a check of the model as given on two devices, not a timing
    "drift": drift_arms,
    "input": input_arms,
    "graph": graph_arms,
    "batch": batch_arms,
    "threads": threads_arms,
    "precision": precision_arms,
}
TITLES = {
    "device": "GPU or CPU",
    "correctness": "GPU correctness",
    "drift": "memory and drift",
    "input": "input pipeline",
    "graph": "graph execution",
    "batch": "batch size",
    "threads": "CPU threads",
    "precision": "mixed precision",
}


def applicable(experiment: str, facts: dict) -> str | None:
    """Why an experiment does not apply to this model and machine, or None if it does."""
    if experiment == "threads" and facts.get("gpu"):
        return "a GPU is in use: thread counts are a CPU run's experiment"
    if experiment in ("device", "correctness") and not facts.get("gpu"):
        return "TensorFlow sees no GPU here"
    if experiment == "graph" and not graph_arms(facts):
        return xla_not_tried(facts)
    if experiment == "precision" and not precision_arms(facts):
        return f"the model already uses the {facts.get('policy')} policy"
    return None
