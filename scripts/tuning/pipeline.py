"""The reader's tf.data pipeline as TensorFlow serialises it: which of its maps run one element
at a time (no num_parallel_calls), whether it ends in a prefetch, and the same pipeline with
num_parallel_calls=tf.data.AUTOTUNE on those maps (the input experiment's arm).

The dataset is serialised with the raw op DatasetToGraphV2 (the graph tf.data itself saves in
checkpoints and ships to tf.data service) and read as a GraphDef: a `map` written without
num_parallel_calls is a MapDataset node, with it a ParallelMapDatasetV2. The rewritten graph
becomes a dataset again with DatasetFromGraph, in the same process, so the Python functions of
`py_function` and `from_generator` are still there. TensorFlow is passed in.
"""

from __future__ import annotations

SEQUENTIAL_MAP = "MapDataset"
PARALLEL_MAP = "ParallelMapDatasetV2"
PREFETCH = "PrefetchDataset"
# Nodes that wrap the last transformation without being one (with_options, the autotuning
# model tf.data adds): looked through to see whether the pipeline ends in a prefetch.
WRAPPERS = frozenset({"OptionsDataset", "ModelDataset"})
IGNORE_EXTERNAL_STATE = 1  # DatasetToGraphV2's external_state_policy: serialise, do not refuse
AUTOTUNE_NODE = "tune_autotune"


def graph_of(tf, dataset):
    """The dataset's GraphDef, device assignments cleared (a function's node may carry a
    device name that the graph's own reader refuses)."""
    serialised = tf.raw_ops.DatasetToGraphV2(
        input_dataset=tf.data.experimental.to_variant(dataset),
        external_state_policy=IGNORE_EXTERNAL_STATE,
        strip_device_assignment=True,
    )
    graph = tf.compat.v1.GraphDef()
    graph.ParseFromString(serialised.numpy())
    for node in graph.node:
        node.device = ""
    for function in graph.library.function:
        for node in function.node_def:
            node.device = ""
    return graph


def last_transformation(graph) -> str | None:
    """The op of the node the pipeline's elements come out of, wrappers looked through."""
    nodes = {node.name: node for node in graph.node}
    out = next((node for node in graph.node if node.op == "_Retval"), None)
    name = out.input[0] if out is not None and out.input else None
    while name in nodes:
        node = nodes[name]
        if node.op not in WRAPPERS:
            return node.op
        name = node.input[0] if node.input else None
    return None


def inspect(tf, dataset) -> dict:
    """How many maps run sequentially and whether the pipeline ends in a prefetch; an
    'error' instead where the dataset cannot be serialised."""
    try:
        graph = graph_of(tf, dataset)
    except Exception as error:  # a dataset TensorFlow cannot serialise: nothing is said
        return {"error": f"{type(error).__name__}: {' '.join(str(error).split())}"[:200]}
    ops = [node.op for node in graph.node]
    return {
        "sequential_maps": ops.count(SEQUENTIAL_MAP),
        "parallel_maps": ops.count(PARALLEL_MAP),
        "prefetched": last_transformation(graph) == PREFETCH,
    }


def parallelized(tf, dataset):
    """The same pipeline, every sequential map given num_parallel_calls=tf.data.AUTOTUNE."""
    graph = graph_of(tf, dataset)
    autotune = graph.node.add()
    autotune.name, autotune.op = AUTOTUNE_NODE, "Const"
    autotune.attr["dtype"].type = tf.int64.as_datatype_enum
    autotune.attr["value"].tensor.CopyFrom(tf.make_tensor_proto(tf.data.AUTOTUNE, tf.int64))
    for node in graph.node:
        if node.op != SEQUENTIAL_MAP:
            continue
        # ParallelMapDatasetV2 takes MapDataset's inputs, then num_parallel_calls.
        data = [name for name in node.input if not name.startswith("^")]
        control = [name for name in node.input if name.startswith("^")]
        del node.input[:]
        node.input.extend([*data, AUTOTUNE_NODE, *control])
        node.op = PARALLEL_MAP
        node.attr["deterministic"].s = b"default"
    variant = tf.raw_ops.DatasetFromGraph(graph_def=graph.SerializeToString())
    return tf.data.experimental.from_variant(variant, dataset.element_spec)
