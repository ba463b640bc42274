"""Committed results match the snippets as they are today, and every snippet is measured."""

from __future__ import annotations

from scripts import catalog, provenance


def maintained_machines(root) -> set[str]:
    lines = (root / "results" / "MAINTAINED").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def test_maintained_machines_have_results(committed_results, root):
    ids = {data["machine"]["id"] for data in committed_results}
    assert maintained_machines(root) <= ids, "results/MAINTAINED names a machine with no file"


def test_every_entry_was_measured_on_todays_snippet(committed_results, root):
    """Results of the project's own machines must be re-measured whenever a snippet changes."""
    stale = []
    maintained = maintained_machines(root)
    for data in (d for d in committed_results if d["machine"]["id"] in maintained):
        for key, entry in data["entries"].items():
            path = root / entry["snippet_path"]
            if not path.exists() or provenance.file_sha256(path) != entry["snippet_sha256"]:
                stale.append(f"results/{data['machine']['id']}.json: {key}")
    assert not stale, (
        "these results were measured on an earlier version of their snippet:\n  "
        + "\n  ".join(stale)
        + '\nre-measure with `make measure ARGS="--only <snippet>"` and commit the results '
        "and the re-rendered docs/_generated/"
    )


def test_every_snippet_variant_has_a_committed_result(committed_results):
    measured = {key for data in committed_results for key in data["entries"]}
    missing = []
    for snippet in catalog.measurable_snippets():
        module = catalog.load(snippet)
        missing += [
            f"{snippet.name}:{v}" for v in module.VARIANTS if f"{snippet.name}:{v}" not in measured
        ]
    assert not missing, f"never measured: {missing}; run `make measure` and commit the results"


def test_every_snippet_output_is_fresh(committed_results, root):
    maintained = maintained_machines(root)
    for data in (d for d in committed_results if d["machine"]["id"] in maintained):
        for name, output in data.get("outputs", {}).items():
            path = root / "snippets" / f"{name}.py"
            assert provenance.file_sha256(path) == output["snippet_sha256"], (
                f"results/{data['machine']['id']}.json: the captured output of {name} is stale"
            )
