"""The overhead / per-example split of the batch-size pages, and the CPU features table."""

from __future__ import annotations

import pytest

from scripts.rendering import batch_fit, cpu_features


def entry(snippet: str, variant: str, median_s: float, examples: int) -> dict:
    return {
        "snippet": snippet,
        "variant": variant,
        "stats": {"median_s": median_s, "examples_per_run": examples},
    }


def results_with_line(a: float, b: float, batches=(8, 32, 128), examples: int = 1024) -> dict:
    """A results file whose step times lie exactly on a + b * batch."""
    entries = {}
    for batch in batches:
        steps = examples / batch
        entries[f"batch_size/mlp:batch_{batch}"] = entry(
            "batch_size/mlp", f"batch_{batch}", (a + b * batch) * steps, examples
        )
    entries["other/x:batch_8"] = entry("other/x", "batch_8", 1.0, 8)
    entries["batch_size/mlp:notes"] = entry("batch_size/mlp", "notes", 1.0, 8)
    return {"machine": {"description": "Test machine"}, "entries": entries}


def test_step_times_divide_each_run_by_its_steps():
    data = results_with_line(0.002, 1e-5)
    points = batch_fit.step_times(data, "batch_size/mlp")
    assert [b for b, _ in points] == [8, 32, 128]
    assert points[0][1] == pytest.approx(0.002 + 8e-5)


def test_an_exact_line_is_recovered():
    a, b = batch_fit.line_fit([(1, 3.0), (2, 5.0), (4, 9.0)])
    assert a == pytest.approx(1.0) and b == pytest.approx(2.0)
    with pytest.raises(ValueError):
        batch_fit.line_fit([(8, 1.0), (8, 2.0)])


def test_the_fit_weighs_relative_errors_so_one_large_batch_cannot_dominate():
    # On a = 2, b = 0.1 except batch 1024, which is twice the line (a cache cliff, say).
    points = [(8, 2.8), (16, 3.6), (32, 5.2), (64, 8.4), (1024, 2 * 104.4)]
    a, b = batch_fit.line_fit(points)
    assert 1.2 < a < 2.5 and 0.09 < b < 0.14  # a plain least-squares fit gives a < 0, b > 0.2


def test_durations_keep_three_significant_figures():
    assert batch_fit.duration(3.04e-6) == "3.04 µs"
    assert batch_fit.duration(0.0015) == "1.5 ms"
    assert batch_fit.duration(2.5) == "2.5 s"
    assert batch_fit.duration(-0.004828) == "-4.83 ms"


def test_markdown_reports_both_numbers_and_every_batch():
    text = batch_fit.fit_markdown(results_with_line(0.002, 1e-5), "batch_size/mlp")
    assert "a = 2 ms" in text and "b = 10 µs" in text
    assert "at a batch of about 200" in text  # a / b
    assert "100,000 examples/s" in text  # 1 / b
    rows = [line for line in text.splitlines() if line.startswith("| ") and "Batch" not in line]
    assert [row.split("|")[1].strip() for row in rows] == ["8", "32", "128"]
    assert all("| 1.00 |" in row for row in rows)  # measured / fitted on an exact line
    assert rows[0].endswith("| 96% |")  # a / (a + b * 8) = 2 / 2.08


def test_a_fixed_part_below_one_examples_cost_is_said_so_not_rounded_to_a_batch_of_0():
    text = batch_fit.fit_markdown(results_with_line(0.004, 0.01), "batch_size/mlp")
    assert "less than one example's cost (a / b = 0.4)" in text
    assert "batch of about 0" not in text


def test_a_non_positive_fit_is_flagged_and_missing_data_give_nothing():
    data = results_with_line(0.1, 0.0, batches=(8,))
    steps = {8: 1.0, 64: 8.0, 512: 200.0}  # growing faster than a line: the fit gives a < 0
    data["entries"] = {
        f"batch_size/mlp:batch_{b}": entry("batch_size/mlp", f"batch_{b}", t * 1024 / b, 1024)
        for b, t in steps.items()
    }
    assert "not positive" in batch_fit.fit_markdown(data, "batch_size/mlp")
    one_batch = results_with_line(0.1, 0.0, batches=(8,))
    assert batch_fit.fit_markdown(one_batch, "batch_size/mlp") is None
    assert batch_fit.fit_fragment([results_with_line(0.002, 1e-5)], "batch_size/cnn") is None


def test_cpu_features_table_names_the_low_precision_units():
    data = [
        {"machine": {"description": "Linux box", "cpu_features": ["avx2", "avx512_bf16"]}},
        {"machine": {"description": "A Mac", "cpu_features": []}},
    ]
    text = cpu_features.table(data)
    assert "bfloat16 dot products (AVX-512): yes" in text
    assert "no float16 arithmetic (AVX-512)" in text and "no matrix tile registers (AMX)" in text
    assert "| A Mac | not recorded on this OS | – |" in text
