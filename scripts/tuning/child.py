"""Run by tune in a child process: one experiment's arms on the reader's model, in interleaved
rounds (scripts/core/rounds.py), or the first check of the model file (--experiment check).

Every arm builds its own model with the reader's build_model() and reads the reader's data;
a timed run is STEPS_PER_RUN calls of train_on_batch on the next batches. The report
(child_messages.ChildReport, JSON, --out) is rewritten after every round, so a crash or Ctrl-C
keeps what was measured; an arm that fails is reported and the others go on. Progress lines
go to stdout; TensorFlow is the reader's own, imported here and never in the parent.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path

from scripts.core import json_files, provenance, rounds, typed_json
from scripts.tuning import child_messages, experiments, model_file, pipeline, tracing
from scripts.tuning.model_file import ModelFileError, one_line

HELD_BATCHES = 32  # at most this many batches are held in memory for the in-memory arm
# Before timing, a dataset arm reads its first epoch (without training) where the dataset says
# how long one is, up to these limits: a cache() is then full, as after the reader's first
# epoch, and the rounds time the epochs that follow.
PRIME_BATCHES, PRIME_S = 2000, 10.0
PROGRESS_EVERY_S = 2.0  # a progress line at most this often
# A dataset arm reads a fresh iterator for every timed run and drops it after, so that no
# arm's pipeline produces in the background (tf.data's prefetch would keep it running) while
# another arm is timed (issue 27); its first WARM_STEPS steps on that iterator are untimed.
WARM_STEPS = 2
# How dataset arms hold their iterators: "fresh" (the above) or "kept" (one iterator per arm
# for the whole run, tune's design before issue 27, kept for benchmarks/tune/ground_truth.py
# to show what it measured).
ITERATORS = ("fresh", "kept")


def say(text: str) -> None:
    print(text, flush=True)


class Setup:
    """The reader's file loaded once in this process, and the TensorFlow it brought."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.module = model_file.load_module(path)
        self.steps = model_file.steps_per_run(self.module, path)
        self.package: str | None = None
        self._data: model_file.TrainingData | None = None
        self._batch_size: int | None = None
        import tensorflow as tf

        self.tf = tf

    def model(self, policy: str | None = None, run_eagerly=None, jit_compile=None):
        """A fresh model from build_model(), under a dtype policy and graph settings if given."""
        keras = sys.modules[self.package] if policy and self.package else None
        if policy and keras is None:
            self.model()  # the first model says which Keras it is
            keras = sys.modules[self.package]
        previous = keras.mixed_precision.global_policy() if keras else None
        if keras is not None:
            keras.mixed_precision.set_global_policy(policy)
        try:
            model, self.package = model_file.build_model(self.module, self.path)
        finally:
            if keras is not None:
                keras.mixed_precision.set_global_policy(previous)
        if run_eagerly is not None:
            model.run_eagerly = run_eagerly
        if jit_compile is not None:
            model.jit_compile = jit_compile
        if run_eagerly is not None or jit_compile is not None:
            model.make_train_function(force=True)
        return model

    def data(self) -> model_file.TrainingData:
        """training_data(), called once: every arm reads the same dataset or arrays anew."""
        if self._data is None:
            self._data = model_file.training_data(self.module, self.path)
        return self._data

    def batches(
        self,
        data: model_file.TrainingData,
        factor: int = 1,
        prefetch: bool = False,
        parallel: bool = False,
    ):
        """An endless iterator over the reader's batches (the dataset read again and again),
        with batches factor times as large, its maps made parallel or a prefetch added, when
        asked."""
        if data.kind == "dataset":
            return iter(self.arm_dataset(data, factor, prefetch, parallel))
        size = data.batch_size * factor
        if size > model_file.leading_length(data.x):
            raise ModelFileError(
                f"{self.path}: training_data() has {model_file.leading_length(data.x)} rows, "
                f"fewer than one batch of {size}; expected more data for the x{factor} batch"
            )
        # Sliced once: NumPy slices are views, converted at every step as fit's caller's
        # loop would; tensors given as arrays are not converted again.
        starts = range(0, model_file.leading_length(data.x) - size + 1, size)
        return itertools.cycle([(data.x[s : s + size], data.y[s : s + size]) for s in starts])

    def arm_dataset(
        self,
        data: model_file.TrainingData,
        factor: int = 1,
        prefetch: bool = False,
        parallel: bool = False,
    ):
        """The reader's dataset repeated without end, changed as the arm asks."""
        tf = self.tf
        dataset = pipeline.parallelized(tf, data.dataset) if parallel else data.dataset
        dataset = dataset.repeat()
        if factor > 1:
            size = self.batch_size() * factor
            dataset = dataset.rebatch(size, drop_remainder=True)
        if prefetch:
            dataset = dataset.prefetch(tf.data.AUTOTUNE)
        return dataset

    def batch_size(self) -> int:
        """The reader's batch size (a dataset's first batch read once to learn it)."""
        if self._batch_size is None:
            data = self.data()
            if data.kind == "arrays":
                self._batch_size = data.batch_size
            else:
                first = next(iter(data.dataset.take(1)), None)
                if first is None:
                    raise ModelFileError(
                        f"{self.path}: training_data() returned an empty dataset; expected batches"
                    )
                self._batch_size = int(self.tf.nest.flatten(first[0])[0].shape[0])
        return self._batch_size


def held(setup: Setup, stream, count: int) -> list:
    """The next count batches as tensors, to be cycled through (the in-memory arm)."""
    tf = setup.tf
    return [
        tuple(tf.nest.map_structure(tf.convert_to_tensor, b)) for b in take(setup, stream, count)
    ]


def take(setup: Setup, stream, count: int) -> list:
    found = []
    for _ in range(count):
        found.append(next_batch(setup, stream, len(found)))
    return found


def ran_out(setup: Setup, read: int) -> ModelFileError:
    return ModelFileError(
        f"{setup.path}: training_data()'s dataset ran out after {read} batches when it was "
        "read again; expected a dataset that can be read many times (from_generator given a "
        "function that makes a new generator, not a generator object)"
    )


def next_batch(setup: Setup, stream, read: int):
    try:
        return next(stream)
    except StopIteration:
        raise ran_out(setup, read) from None


class Timed:
    """One arm: a model and its batches; a call does STEPS_PER_RUN training steps.

    A dataset is read as model.fit reads it: an iterator handed to the model's own
    train_function, which takes the next batch inside the compiled step. Given its dataset,
    the arm takes a fresh iterator before every timed run and its first WARM_STEPS steps
    (prepare(), untimed), and drops it after the run (release()): between its runs its
    pipeline is stopped. Arrays are sliced into NumPy batches given to train_on_batch,
    converted at every step.
    """

    def __init__(self, setup: Setup, model, stream, samples: int, dataset=None) -> None:
        self.setup, self.model, self.stream, self.samples = setup, model, stream, samples
        self.dataset = dataset  # None: one stream for the whole run
        self.read = 0
        self.memory: dict[str, list] | None = None  # the drift experiment's samples, per run
        self.iterator = type(stream).__module__.startswith("tensorflow.")
        # The first step builds the model and its optimizer, as fit's first step would.
        train_step(model, self.next())
        if self.iterator:
            model.make_train_function()
            self.per_call = max(1, int(getattr(model, "steps_per_execution", 1) or 1))
            self.samples *= self.per_call
        self.release()

    def prepare(self) -> None:
        """Before a timed run, untimed: a fresh iterator and its first WARM_STEPS steps."""
        if self.dataset is None:
            return
        self.stream, self.read = iter(self.dataset), 0
        for _ in range(WARM_STEPS):
            self.step()

    def release(self) -> None:
        """After a timed run, untimed: the iterator is dropped, and its pipeline stops."""
        if self.dataset is not None:
            self.stream = None

    def next(self):
        batch = next_batch(self.setup, self.stream, self.read)
        self.read += 1
        return batch

    def step(self):
        """One training step (steps_per_execution of them for the model's train_function)."""
        if not self.iterator:
            return train_step(self.model, self.next())
        try:
            loss = scalar(self.model.train_function(self.stream))
        except Exception as error:
            if isinstance(error, StopIteration) or type(error).__name__ == "OutOfRangeError":
                raise ran_out(self.setup, self.read) from None
            raise
        self.read += self.per_call
        return loss

    def __call__(self):
        loss = None
        for _ in range(self.setup.steps):
            loss = self.step()
        return loss

    def sample_memory(self, runs: int) -> dict[str, list]:
        """The drift experiment's memory after each of `runs` timed runs: sampled between
        rounds, outside the timing, once for each run not sampled yet."""
        while len(self.memory["resident_bytes"]) < runs:
            self.memory["resident_bytes"].append(resident_bytes())
            self.memory["gpu_bytes"].append(gpu_bytes(self.setup.tf))
        return {key: list(found) for key, found in self.memory.items()}


def train_step(model, batch):
    if len(batch) == 3:
        return model.train_on_batch(batch[0], batch[1], sample_weight=batch[2])
    return model.train_on_batch(batch[0], batch[1])


def in_memory(setup: Setup, data: model_file.TrainingData, stream):
    """The next batches held in memory, read again and again: as tensors cycled through for
    arrays, as the cheapest dataset that gives them for a dataset."""
    tf = setup.tf
    batches = held(setup, stream, min(setup.steps, HELD_BATCHES))
    if data.kind == "arrays":
        return itertools.cycle(batches)
    dataset = tf.data.Dataset.from_tensors(batches[0])
    for batch in batches[1:]:
        dataset = dataset.concatenate(tf.data.Dataset.from_tensors(batch))
    return dataset.cache().repeat().prefetch(tf.data.AUTOTUNE)


def build_arm(
    setup: Setup,
    experiment: str,
    arm: str,
    prefetched: bool | None = None,
    iterators: str = "fresh",
) -> Timed:
    """The arm's model and batches (the baseline of any experiment is the model as given).
    prefetched: whether the reader's pipeline ends in a prefetch, as the check found it (the
    parallel_map arm adds one where it does not); iterators: ITERATORS."""
    data = setup.data()
    size = setup.batch_size()
    kwargs: dict = {}
    factor, prefetch, parallel = 1, False, False
    if arm.startswith("batch_x"):
        factor = int(arm[len("batch_x") :])
    elif arm == "prefetch":
        prefetch = True
    elif arm == "parallel_map":
        parallel = True
        prefetch = not prefetched
    elif arm == "graph":
        kwargs["run_eagerly"] = False
    elif arm in ("xla_on", "xla_off"):
        kwargs["jit_compile"] = arm == "xla_on"
    elif arm.startswith("mixed_"):
        kwargs["policy"] = arm
    model = setup.model(**kwargs)
    samples = setup.steps * size * factor
    if data.kind == "arrays":
        stream = setup.batches(data, factor)
        if arm == "in_memory":
            stream = in_memory(setup, data, stream)
        return Timed(setup, model, stream, samples)
    dataset = setup.arm_dataset(data, factor, prefetch, parallel)
    if arm == "in_memory":
        dataset = in_memory(setup, data, iter(dataset))
    else:  # a cache() is filled once: every iterator of the dataset reads it after
        prime(setup, iter(dataset), epoch_batches(data.dataset, factor))
    if iterators == "kept":
        return Timed(setup, model, iter(dataset), samples)
    return Timed(setup, model, iter(dataset), samples, dataset)


def epoch_batches(dataset, factor: int = 1) -> int:
    """Batches in one epoch of the dataset (of the arm's batches), 0 where it does not say."""
    count = int(dataset.cardinality())
    return count // factor if count > 0 else 0


def prime(setup: Setup, stream, count: int) -> None:
    """Read the first epoch's batches without training, within PRIME_BATCHES and PRIME_S."""
    started = time.perf_counter()
    for read in range(min(count, PRIME_BATCHES)):
        next_batch(setup, stream, read)
        if time.perf_counter() - started > PRIME_S:
            break


def resident_bytes() -> int:
    """This process's resident memory now (Linux), or its peak so far where the standard
    library offers no current figure (macOS: getrusage's high-water mark, in bytes there)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return provenance.peak_rss_bytes()


def gpu_bytes(tf, device: str = "GPU:0") -> int | None:
    """The GPU memory TensorFlow says it holds now, where it says (tensorflow-metal and a
    machine without a GPU may not: None)."""
    if not tf.config.list_physical_devices("GPU"):
        return None
    try:
        return int(tf.config.experimental.get_memory_info(device)["current"])
    except Exception:  # not supported by this device's plugin
        return None


def out_of_memory(error: BaseException) -> bool:
    return isinstance(error, MemoryError) or type(error).__name__ == "ResourceExhaustedError"


def loss_agreement(setup: Setup, policy: str) -> child_messages.LossAgreement:
    """The loss after STEPS_PER_RUN steps under the policy against float32's, from the same
    weights and the same batches."""
    data = setup.data()
    batches = held(setup, setup.batches(data), setup.steps)
    reference = setup.model()
    variant = setup.model(policy=policy)
    variant.set_weights(reference.get_weights())
    losses = []
    for model in (reference, variant):
        for batch in batches:
            loss = train_step(model, batch)
        losses.append(float(scalar(loss)))
    base, other = losses
    difference = abs(other - base) / max(abs(base), 1e-12)
    return {
        "steps": setup.steps,
        "loss_float32": base,
        "loss_variant": other,
        "relative_difference": difference,
        "tolerance": experiments.LOSS_TOLERANCE,
        "agrees": difference <= experiments.LOSS_TOLERANCE,
    }


def device_agreement(
    setup: Setup, devices: tuple[str, str] = ("/CPU:0", "/GPU:0")
) -> child_messages.DeviceAgreement:
    """The reader's model and optimizer trained STEPS_PER_RUN steps on each device from the same
    weights and batches: the first loss, else weight, that differs beyond the tolerance."""
    tf = setup.tf
    data = setup.data()
    batches = take(setup, setup.batches(data), setup.steps)
    with tf.device(devices[0]):
        initial = setup.model().get_weights()
    runs = []
    for device in devices:
        with tf.device(device):  # the variables and the steps' ops go to this device
            model = setup.model()
            model.set_weights(initial)
            losses = [float(scalar(train_step(model, batch))) for batch in batches]
        runs.append((losses, [w for w in model.get_weights()]))
    (cpu_losses, cpu_weights), (gpu_losses, gpu_weights) = runs
    found = {"devices": list(devices), "steps": setup.steps, "loss_cpu": cpu_losses[-1]}
    found["loss_gpu"] = gpu_losses[-1]
    found["first_difference"] = first_difference(cpu_losses, gpu_losses, cpu_weights, gpu_weights)
    found["agrees"] = found["first_difference"] is None
    return found


def close(a, b) -> bool:
    return abs(a - b) <= experiments.ATOL + experiments.RTOL * abs(b)


def first_difference(cpu_losses, gpu_losses, cpu_weights, gpu_weights) -> str | None:
    for number, (cpu, gpu) in enumerate(zip(cpu_losses, gpu_losses), start=1):  # noqa: B905
        if not close(gpu, cpu):
            return f"loss at step {number}: {gpu:.7g} on the GPU, {cpu:.7g} on the CPU"
    for index, (cpu, gpu) in enumerate(zip(cpu_weights, gpu_weights)):  # noqa: B905
        for at, (x, y) in enumerate(zip(gpu.ravel().tolist(), cpu.ravel().tolist())):  # noqa: B905
            if not close(x, y):
                return f"weight {index}[{at}]: {x:.7g} on the GPU, {y:.7g} on the CPU"
    return None


def scalar(loss):
    """train_on_batch gives a float, or a list (loss first) when the model has metrics."""
    while isinstance(loss, (list, tuple)):
        loss = loss[0]
    if isinstance(loss, dict):
        loss = loss.get("loss", next(iter(loss.values())))
    return loss


def facts(setup: Setup) -> child_messages.CheckedFacts:
    """What decides the experiments, from one model and its data; the first step is taken here
    so that a model that does not train says so once, before any experiment."""
    tf = setup.tf
    data = setup.data()
    model = setup.model()
    package = setup.package
    devices = provenance.tf_device_names(tf)
    found = {
        "keras_package": package,
        "keras_version": model_file.keras_version(package),
        "tensorflow_version": tf.__version__,
        "devices": devices,
        "gpu": any(d.startswith("GPU:") for d in devices),
        "data_kind": data.kind,
        "pipeline": pipeline.inspect(tf, data.dataset) if data.kind == "dataset" else None,
        "batch_size": setup.batch_size(),
        "steps_per_run": setup.steps,
        "run_eagerly": bool(getattr(model, "run_eagerly", False)),
        "jit_compile": bool(getattr(model, "jit_compile", False)),
        "policy": sys.modules[package].mixed_precision.global_policy().name,
        "logical_cores": os.cpu_count(),
        "intra_op_threads": tf.config.threading.get_intra_op_parallelism_threads(),
    }
    found["prefetched"] = (found["pipeline"] or {}).get("prefetched")
    stream = setup.batches(data)
    batch = next_batch(setup, stream, 0)
    device = "GPU" if found["gpu"] else "CPU"
    try:
        with tracing.TraceCount(tf.get_logger()) as traces:
            train_step(model, batch)
    except Exception as error:
        if out_of_memory(error):
            raise ModelFileError(
                f"{setup.path}: training_data()'s batches of {found['batch_size']} do not fit "
                f"in memory ({one_line(error)}); expected a batch size the {device} can hold"
            ) from None
        raise ModelFileError(
            f"{setup.path}: build_model()'s model could not take a training step on the "
            f"{device} with a batch from training_data() ({one_line(error)}); expected a model "
            "that trains on those batches with train_on_batch"
        ) from None
    found["traces"] = traces_per_step(setup, model, stream, traces.count)
    try:
        found["parameters"] = int(model.count_params())
    except Exception:  # a subclassed model may not say
        found["parameters"] = None
    return found


def traces_per_step(setup: Setup, model, stream, first: int) -> list[int]:
    """tf.function traces in each of the first training steps (the first one's given): a
    model that keeps tracing after its first step retraces (the retracing trap)."""
    found = [first]
    for read in range(1, experiments.TRACE_STEPS):
        batch = next_batch(setup, stream, read)
        with tracing.TraceCount(setup.tf.get_logger()) as traces:
            train_step(model, batch)
        found.append(traces.count)
    return found


def measure(setup: Setup, args, report: child_messages.ChildReport, out: Path) -> None:
    """The experiment's arms (or the one arm of an isolated child) in interleaved rounds."""
    listed = experiments.arms(args.experiment, args.facts)
    chosen = args.arm or [a.name for a in listed]
    labels = {a.name: a.label for a in listed}
    runs: dict[str, Timed] = {}
    for name in chosen:
        entry = report["arms"].setdefault(name, {"label": labels.get(name, name)})
        try:
            runs[name] = build_arm(
                setup, args.experiment, name, args.facts.get("prefetched"), args.iterators
            )
            entry["samples_per_run"] = runs[name].samples
            entry["first_call_s"] = rounds.first_calls(runs[name], args.warmup)
            if args.experiment == "drift":  # memory after each timed run, from here on
                runs[name].memory = {"resident_bytes": [], "gpu_bytes": []}
        except Exception as error:  # this arm fails alone
            runs.pop(name, None)
            entry["error"] = arm_error(error)
            say(f"  {args.experiment}: {labels.get(name, name)}: failed: {entry['error']}")
    json_files.write_json_atomic(out, report)

    shown = [0.0]

    def record(times: dict, positions: dict) -> None:
        for name, values in times.items():
            report["arms"][name].update(times_s=list(values), positions=list(positions[name]))
            if runs[name].memory is not None:
                report["arms"][name]["memory"] = runs[name].sample_memory(len(values))
        json_files.write_json_atomic(out, report)
        done = len(next(iter(times.values()), []))
        if time.perf_counter() - shown[0] < PROGRESS_EVERY_S:
            return
        shown[0] = time.perf_counter()
        medians = ", ".join(
            f"{n} {sorted(v)[len(v) // 2] * 1e3:.1f} ms" for n, v in times.items() if v
        )
        say(f"  {args.experiment}: round {done}: {medians}")

    def drop(name: str, error: Exception) -> None:
        report["arms"][name]["error"] = arm_error(error)
        report["arms"][name].pop("times_s", None)
        why = report["arms"][name]["error"]
        say(f"  {args.experiment}: {labels.get(name, name)}: stopped: {why}")
        json_files.write_json_atomic(out, report)

    rounds.interleaved_rounds(
        runs, args.min_rounds, args.max_rounds, args.budget, args.seed, record, drop
    )
    if args.experiment == "precision":
        measured = [n for n in chosen if n in runs and "error" not in report["arms"][n]]
        for name in [n for n in measured if n != experiments.BASELINE]:
            try:
                report["arms"][name]["agreement"] = loss_agreement(setup, name)
            except Exception as error:
                report["arms"][name]["agreement"] = {"error": arm_error(error), "agrees": False}
            json_files.write_json_atomic(out, report)


def keep_threads(setup: Setup, count: int) -> None:
    """The arm's intra-op threads again, where the reader's file set its own at import (as
    a script that pins its threads does): the arm measures its count, not the file's."""
    threading = setup.tf.config.threading
    if threading.get_intra_op_parallelism_threads() == count:
        return
    try:
        threading.set_intra_op_parallelism_threads(count)
    except RuntimeError as error:
        raise ModelFileError(
            f"{setup.path}: importing it set the intra-op threads and started TensorFlow's "
            f"runtime ({one_line(error)}); expected a file that runs no TensorFlow op at "
            "import, so that tune can set the threads of each variant"
        ) from None


def arm_error(error: BaseException) -> str:
    if isinstance(error, ModelFileError):
        return str(error)
    if out_of_memory(error):
        return f"did not fit in memory ({one_line(error)})"
    return one_line(error)


def facts_argument(text: str) -> dict:
    """--facts: the check's facts as the parent passes them (child_messages.Facts), or {} for the
    check itself; anything else is refused naming the field."""
    try:
        found = json.loads(text)
        return found if found == {} else typed_json.check(found, child_messages.Facts, "--facts")
    except ValueError as error:  # typed_json.MessageError is one
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--file", type=Path, required=True)
    parser.add_argument("--experiment", required=True, choices=("check", *experiments.ORDER))
    parser.add_argument("--arm", action="append", help="only this arm (repeatable)")
    parser.add_argument("--facts", type=facts_argument, default={}, help="the check's facts (JSON)")
    parser.add_argument("--intra-threads", type=int, help="set before TensorFlow starts")
    parser.add_argument("--hide-gpu", action="store_true", help="the CPU alone")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--min-rounds", type=int, default=5)
    parser.add_argument("--max-rounds", type=int, default=40)
    parser.add_argument("--budget", type=float, default=5.0, help="timed seconds per arm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--iterators", choices=ITERATORS, default="fresh", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    report: child_messages.ChildReport = {"experiment": args.experiment, "arms": {}, "error": None}
    try:
        if args.intra_threads or args.hide_gpu:  # before anything starts TensorFlow's runtime
            import tensorflow as tf

            if args.intra_threads:
                tf.config.threading.set_intra_op_parallelism_threads(args.intra_threads)
            if args.hide_gpu:
                tf.config.set_visible_devices([], "GPU")
        setup = Setup(args.file)
        if args.intra_threads:
            keep_threads(setup, args.intra_threads)
        if args.experiment == "check":
            report["facts"] = facts(setup)
        elif args.experiment == "correctness":
            report["agreement"] = device_agreement(setup)
        else:
            measure(setup, args, report, args.out)
    except ModelFileError as error:
        report["error"] = str(error)
    except KeyboardInterrupt:
        report["interrupted"] = True
    except Exception as error:
        report["error"] = f"{args.experiment}: {one_line(error)}"
    json_files.write_json_atomic(args.out, report)
    return 0 if not report["error"] else 1


if __name__ == "__main__":
    sys.exit(main())
