"""FLOP counts of the batch-size, mixed-precision and transfer-learning snippets, by hand."""

from __future__ import annotations

import pytest

from scripts.core import catalog


def load(name: str):
    return catalog.load(catalog.Snippet(name, catalog.SNIPPETS_DIR / f"{name}.py"))


def test_mlp_counts_two_matmuls_for_the_first_layer_and_three_for_the_second():
    mlp = load("batch_size/mlp")
    examples = mlp.EXAMPLES_PER_RUN["full"]
    per_example = 2 * 2 * 784 * 128 + 3 * 2 * 128 * 10
    for variant in mlp.VARIANTS:  # every run holds the same examples, so the same work
        assert mlp.flops(variant, "full") == examples * per_example
    assert mlp.dense_training_flops(1, 2, 3, input_gradient=True) == 36


def test_cnn_counts_the_convolution_from_its_output_shape():
    cnn = load("batch_size/cnn")
    conv = 2 * 2 * 30 * 30 * 32 * 3 * 3 * 3  # forward + weight gradient, no image gradient
    dense = 3 * 2 * 15 * 15 * 32 * 10
    assert cnn.flops("batch_64", "full") == cnn.EXAMPLES_PER_RUN["full"] * (conv + dense)
    assert cnn.flops("batch_8", "small") == cnn.EXAMPLES_PER_RUN["small"] * (conv + dense)


def test_mixed_precision_step_flops_are_the_same_for_every_policy():
    policies = load("mixed_precision/policies")
    batch = policies.BATCH["full"]
    expected = 2 * 2 * batch * 512 * 1024 + 3 * 2 * batch * 1024 * 1024 + 3 * 2 * batch * 1024 * 10
    assert {policies.flops(v, "full") for v in policies.VARIANTS} == {expected}
    with pytest.raises(ValueError, match="float8"):
        policies.flops("float8", "full")


def test_mobilenet_v2_forward_matches_the_published_300_million_multiply_adds():
    """The MobileNetV2 paper gives about 300M multiply-adds per 224x224 image (width 1.0)."""
    mobilenet = load("batch_size/mobilenet")
    forward, first = mobilenet.forward_flops(mobilenet.build_model(224))
    assert 295e6 < forward / 2 < 305e6
    assert first == 2 * 112 * 112 * 32 * 3 * 3 * 3  # the stride-2 stem convolution
    images = mobilenet.IMAGES_PER_RUN["full"]
    assert mobilenet.flops("batch_8", "full") == images * (3 * forward - first)


def test_transfer_learning_frozen_base_skips_the_base_backward_pass():
    transfer = load("transfer_learning/frozen_base")
    size = "small"
    image, batch = transfer.IMAGE_SIZE[size], transfer.BATCH[size]
    model = transfer.build_model(image, frozen=True)
    forward, first = transfer.forward_flops(model)
    head = 2 * 1280 * transfer.CLASSES
    assert transfer.head_flops(image) == head
    assert transfer.flops("frozen_base", size) == batch * (forward + head)
    assert transfer.flops("fine_tune_all", size) == batch * (3 * forward - first)
    # Weight values do not enter the count: both fine-tuning variants do the same work.
    assert transfer.flops("fine_tune_other_weights", size) == transfer.flops("fine_tune_all", size)
    # Fine-tuning is close to three forward passes, the frozen base close to one.
    assert 2.9 < transfer.flops("fine_tune_all", size) / transfer.flops("frozen_base", size) < 3.0


def test_transfer_learning_counts_trainable_parameters():
    transfer = load("transfer_learning/frozen_base")
    frozen = transfer.build_model(96, frozen=True)
    full = transfer.build_model(96, frozen=False)
    assert transfer.trainable_parameters(frozen) == 1280 * transfer.CLASSES + transfer.CLASSES
    assert transfer.trainable_parameters(full) > 100 * transfer.trainable_parameters(frozen)
    assert frozen.count_params() == full.count_params()


def test_onednn_log_is_summarised_by_kernel():
    policies = load("mixed_precision/policies")
    log = [
        "onednn_verbose,info,oneDNN v3.3.4 (commit N/A)",
        "onednn_verbose,info,cpu,isa:Intel AVX-512 with float16, Intel DL Boost and bfloat16 support ",
        "onednn_verbose,primitive,create:cache_miss,cpu,inner_product,ref:any,src_f16::blocked:ab::f0,,",
        "onednn_verbose,primitive,create:cache_miss,cpu,inner_product,ref:any,src_f16::blocked:ab::f0,,",
        "onednn_verbose,primitive,create:cache_miss,cpu,matmul,brg:avx512_core_fp16,src_f16,,",
        "mixed_float16   100.0 ms/step   640 examples/s",
    ]
    isa, kernels = policies.onednn_kernels(log)
    assert isa == (
        "oneDNN v3.3.4 sees this CPU as: "
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support"
    )
    assert kernels == "oneDNN kernels: inner_product ref:any x2, matmul brg:avx512_core_fp16 x1"
    assert policies.onednn_kernels(["float32 1 ms/step"])[1].startswith("no oneDNN kernels")
    # oneDNN 3.7 (TensorFlow 2.21) puts "v1" after the prefix; the same log is read the same.
    newer = [line.replace("onednn_verbose,", "onednn_verbose,v1,", 1) for line in log]
    assert policies.onednn_kernels(newer) == (isa, kernels)
