"""The reader's tf.data pipeline as TensorFlow serialises it: its stages in order, which of its
maps run one element at a time (no num_parallel_calls), whether it caches, whether it ends in a
prefetch, which stages run Python (from_generator, numpy_function, py_function), and the same
pipeline with num_parallel_calls=tf.data.AUTOTUNE on those maps (the input experiment's arm).

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
CACHES = frozenset({"CacheDataset", "CacheDatasetV2"})
# Ops that run Python: numpy_function (and from_generator's next()) and py_function.
PYTHON_OPS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})
GENERATOR = "GeneratorDataset"  # from_generator: a FlatMapDataset over this, in its function
# The stages' names in the report's words; another op keeps its own name, "Dataset" cut.
STAGE_NAMES = {
    SEQUENTIAL_MAP: "map",
    PARALLEL_MAP: "parallel map",
    PREFETCH: "prefetch",
    "CacheDataset": "cache",
    "CacheDatasetV2": "cache",
    "BatchDataset": "batch",
    "BatchDatasetV2": "batch",
    "PaddedBatchDatasetV2": "padded_batch",
    "ParallelBatchDataset": "batch",
    "ShuffleDatasetV3": "shuffle",
    "RepeatDataset": "repeat",
    "TensorSliceDataset": "from_tensor_slices",
    "TensorDataset": "from_tensors",
    "RangeDataset": "range",
    "FilterDataset": "filter",
    "FlatMapDataset": "flat_map",
    "ParallelInterleaveDatasetV4": "interleave",
    "InterleaveDataset": "interleave",
}
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


def chain(graph) -> list:
    """The nodes the elements pass through, from the source to the last transformation
    (each node's first input followed back from the output; wrappers left out)."""
    nodes = {node.name: node for node in graph.node}
    out = next((node for node in graph.node if node.op == "_Retval"), None)
    name = out.input[0] if out is not None and out.input else None
    found = []
    while name in nodes:
        node = nodes[name]
        if node.op.endswith("Dataset") or node.op.startswith(tuple(STAGE_NAMES)):
            if node.op not in WRAPPERS:
                found.append(node)
        inputs = [i for i in node.input if not i.startswith("^")]
        name = inputs[0].split(":")[0] if inputs else None
    return found[::-1]


def function_ops(graph, node) -> set[str]:
    """The ops of the functions a node calls (its attrs' functions), nested calls included."""
    library = {function.signature.name: function for function in graph.library.function}
    todo = [attr.func.name for attr in node.attr.values() if attr.func.name]
    seen, ops = set(), set()
    while todo:
        name = todo.pop()
        if name in seen or name not in library:
            continue
        seen.add(name)
        for inner in library[name].node_def:
            ops.add(inner.op)
            todo.append(inner.op)  # a call of another library function by name
            todo += [attr.func.name for attr in inner.attr.values() if attr.func.name]
    return ops


def stage_of(graph, node) -> dict:
    ops = function_ops(graph, node)
    name = STAGE_NAMES.get(node.op, node.op.removesuffix("Dataset"))
    if node.op == "FlatMapDataset" and GENERATOR in ops:
        name = "from_generator"
    return {"stage": name, "python": bool(ops & PYTHON_OPS)}


def inspect(tf, dataset) -> dict:
    """The pipeline's stages in order (each: its name, whether it runs Python), how many maps
    run sequentially and in parallel, whether it caches and whether it ends in a prefetch; an
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
        "cached": any(op in CACHES for op in ops),
        "stages": stages_of(graph),
    }


def stages_of(graph) -> list[dict]:
    """The chain's stages; from_generator's own from_tensors (its seed) is left out."""
    stages = [stage_of(graph, node) for node in chain(graph)]
    return [
        stage
        for index, stage in enumerate(stages)
        if not (
            stage["stage"] == "from_tensors"
            and index + 1 < len(stages)
            and stages[index + 1]["stage"] == "from_generator"
        )
    ]


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
