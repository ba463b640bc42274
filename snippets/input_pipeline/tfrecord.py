"""Reading TFRecord files: one file or shards, parsing per record or per batch, cache, GZIP.

Run it directly to time every variant on your machine: `python tfrecord.py` (or `small`).
The records are written locally first, outside the timing, into a temporary folder that is
removed when the program ends: 96x96x3 uint8 images stored as raw pixel bytes, with an int64
label. Nothing is downloaded.

What it measures is reading from memory, as in a second epoch: the folder is on a
memory-backed file system where there is one with room (Linux's /dev/shm), and every file is
flushed to storage and read back once before any timing, so no run waits for the disk or for
writing-back that the previous one left. A first epoch from a cold disk is slower, by how
much depends on the storage.
"""

import functools
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import tensorflow as tf

IMAGE, BATCH = 96, 32
RECORDS = {"full": 8192, "small": 64}
SHARDS = {"full": 8, "small": 2}

VARIANTS = {
    "one_file_sequential": "one file, map(parse each record), batch (as usually written)",
    "read_only": "one file, records batched but not parsed: the cost of reading alone",
    "parallel_parse": "one file, map(parse each record, num_parallel_calls=AUTOTUNE) + prefetch",
    "batch_then_parse": "one file, batch first, then parse the batch (parse_example), no prefetch",
    "interleave_shards": "shards read by interleave(num_parallel_calls=AUTOTUNE), map(parse each)",
    "all_together": "shards interleaved, batch, parse_example in map(AUTOTUNE), prefetch",
    "cached": "all_together with cache() after parsing: later passes read from memory",
    "gzip_shards": "all_together from GZIP-compressed shards",
}
BASELINE = "one_file_sequential"
# Not a way to feed a model: reading without parsing, to split reading from parsing.
REFERENCE_VARIANTS = ("read_only",)


# --8<-- [start:write]
def image_like(n: int, seed: int = 0):
    """Blocky colour patches with pixel noise: random, but with something for GZIP to find."""
    rng = np.random.default_rng(seed)
    patches = rng.integers(0, 256, size=(n, IMAGE // 8, IMAGE // 8, 3), dtype=np.uint8)
    images = patches.repeat(8, axis=1).repeat(8, axis=2) & 0xF0
    images |= rng.integers(0, 16, size=images.shape, dtype=np.uint8)
    return images, rng.integers(0, 10, size=n)


def to_example(image: np.ndarray, label: int) -> bytes:
    feature = {
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image.tobytes()])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(label)])),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def write_records(path: Path, examples: list[bytes], compression: str = "") -> str:
    with tf.io.TFRecordWriter(str(path), options=compression or None) as writer:
        for example in examples:
            writer.write(example)
    return str(path)


# --8<-- [end:write]


def memory_folder(needed_bytes: int) -> str | None:
    """Linux's memory-backed /dev/shm when it has room for the files twice over, else None
    (the system's temporary folder)."""
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        if shutil.disk_usage(shm).free > 2 * needed_bytes:
            return str(shm)
    return None


def settle(paths: list[str]) -> None:
    """Flush each file to storage and read it back whole, so the timed runs find it in memory
    and no write-back is left running under them."""
    for path in paths:
        with open(path, "rb") as handle:
            os.fsync(handle.fileno())
            while handle.read(1 << 24):
                pass


@functools.cache
def record_files(size: str) -> dict:
    """Write the records once per size: one file, the same records in shards, GZIP shards."""
    n, shards = RECORDS[size], SHARDS[size]
    examples = [to_example(x, y) for x, y in zip(*image_like(n), strict=True)]
    folder = tempfile.TemporaryDirectory(  # removed when the program ends
        prefix="tfrecord-", dir=memory_folder(3 * sum(map(len, examples)))
    )
    root = Path(folder.name)
    parts = [examples[i::shards] for i in range(shards)]
    files = {
        "folder": folder,
        "one": write_records(root / "all.tfrecord", examples),
        "shards": [write_records(root / f"shard-{i}.tfrecord", p) for i, p in enumerate(parts)],
        "gzip": [
            write_records(root / f"shard-{i}.tfrecord.gz", p, "GZIP") for i, p in enumerate(parts)
        ],
    }
    settle([files["one"], *files["shards"], *files["gzip"]])
    return files


# --8<-- [start:parse]
FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
}


def parse_one(record):
    """One serialized tf.train.Example -> (image [96, 96, 3] uint8, label)."""
    example = tf.io.parse_single_example(record, FEATURES)
    image = tf.reshape(tf.io.decode_raw(example["image"], tf.uint8), (IMAGE, IMAGE, 3))
    return image, example["label"]


def parse_batch(records):
    """A batch of serialized examples at once -> (images [n, 96, 96, 3] uint8, labels [n])."""
    examples = tf.io.parse_example(records, FEATURES)
    images = tf.reshape(tf.io.decode_raw(examples["image"], tf.uint8), (-1, IMAGE, IMAGE, 3))
    return images, examples["label"]


# --8<-- [end:parse]


# --8<-- [start:pipelines]
def one_file_sequential(files):
    dataset = tf.data.TFRecordDataset(files["one"])
    return dataset.map(parse_one).batch(BATCH)


def read_only(files):
    return tf.data.TFRecordDataset(files["one"]).batch(BATCH)


def parallel_parse(files):
    dataset = tf.data.TFRecordDataset(files["one"])
    dataset = dataset.map(parse_one, num_parallel_calls=tf.data.AUTOTUNE)
    return dataset.batch(BATCH).prefetch(tf.data.AUTOTUNE)


def batch_then_parse(files):
    dataset = tf.data.TFRecordDataset(files["one"]).batch(BATCH)
    return dataset.map(parse_batch)


def interleave_shards(files):
    dataset = tf.data.Dataset.from_tensor_slices(files["shards"]).interleave(
        tf.data.TFRecordDataset, num_parallel_calls=tf.data.AUTOTUNE
    )
    return dataset.map(parse_one).batch(BATCH)


def all_together(files, key: str = "shards", compression: str = "", cache: bool = False):
    def read_shard(path):
        return tf.data.TFRecordDataset(path, compression_type=compression)

    dataset = tf.data.Dataset.from_tensor_slices(files[key]).interleave(
        read_shard, num_parallel_calls=tf.data.AUTOTUNE
    )
    dataset = dataset.batch(BATCH).map(parse_batch, num_parallel_calls=tf.data.AUTOTUNE)
    if cache:
        dataset = dataset.cache()  # in memory: the first pass parses, later passes reuse
    return dataset.prefetch(tf.data.AUTOTUNE)


def cached(files):
    return all_together(files, cache=True)


def gzip_shards(files):
    return all_together(files, key="gzip", compression="GZIP")


# --8<-- [end:pipelines]

PIPELINES = {
    "one_file_sequential": one_file_sequential,
    "read_only": read_only,
    "parallel_parse": parallel_parse,
    "batch_then_parse": batch_then_parse,
    "interleave_shards": interleave_shards,
    "all_together": all_together,
    "cached": cached,
    "gzip_shards": gzip_shards,
}


def make_workload(variant: str, size: str = "full"):
    """Return (run, examples_per_run): run() reads every record once and returns its last batch."""
    if variant not in PIPELINES:
        raise ValueError(f"unknown variant {variant!r}; expected one of {sorted(PIPELINES)}")
    dataset = PIPELINES[variant](record_files(size))  # the files are written here, untimed

    def read_all():
        for batch in dataset:
            last = batch[0] if isinstance(batch, tuple) else batch
        return last

    return read_all, RECORDS[size]


if __name__ == "__main__":
    size = sys.argv[1] if len(sys.argv) > 1 else "full"
    for variant in VARIANTS:
        run, examples = make_workload(variant, size)
        run()  # warm-up: the first pass traces the parse function and fills the cache
        times = []
        for _ in range(5):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
        print(f"{variant:20s} {median * 1e3:9.1f} ms/run {examples / median:10.0f} examples/s")
