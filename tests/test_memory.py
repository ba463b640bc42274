"""The memory page's statements hold for the peak memory every machine recorded."""

from __future__ import annotations

MiB = 2**20


def peaks(data: dict, snippet: str) -> dict[str, int]:
    return {
        entry["variant"]: entry["stats"]["peak_rss_bytes"]
        for entry in data["entries"].values()
        if entry["snippet"] == snippet and entry["method"].get("process") == "one child per variant"
    }


def test_peak_memory_grows_with_the_batch(committed_results):
    checked = 0
    for data in committed_results:
        found = peaks(data, "memory/batch_memory")
        if len(found) == 3:
            checked += 1
            assert found["batch_16"] < found["batch_128"] < found["batch_1024"], found
            assert found["batch_1024"] - found["batch_16"] > 50 * MiB, found
    assert checked


def test_an_in_memory_cache_holds_the_decoded_dataset(committed_results):
    dataset = 2048 * 64 * 64 * 3 * 4  # images x height x width x channels x float32 bytes
    checked = 0
    for data in committed_results:
        found = peaks(data, "memory/caching")
        if len(found) == 2:
            checked += 1
            assert found["cache_in_memory"] - found["no_cache"] > 0.8 * dataset, found
    assert checked
