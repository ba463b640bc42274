"""Every snippet, as it is today, is measured on at least one of the project's machines."""

from __future__ import annotations

from scripts.core import catalog, provenance


def project_machines(root) -> set[str]:
    lines = (root / "results" / "MAINTAINED").read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def project_files(committed_results, root) -> list[dict]:
    machines = project_machines(root)
    return [d for d in committed_results if d["machine"]["id"] in machines]


def test_project_machines_have_results(committed_results, root):
    ids = {data["machine"]["id"] for data in committed_results}
    assert project_machines(root) <= ids, "results/MAINTAINED names a machine with no file"


def test_every_variant_is_measured_on_todays_snippet(committed_results, root):
    """A changed snippet must be re-measured on whichever project machine the session has."""
    current = {
        key
        for data in project_files(committed_results, root)
        for key, entry in data["entries"].items()
        if catalog.is_current(entry, root)
    }
    missing = [
        f"{snippet.name}:{variant}"
        for snippet in catalog.measurable_snippets()
        for variant in catalog.load(snippet).VARIANTS
        if f"{snippet.name}:{variant}" not in current
    ]
    assert not missing, (
        "no project machine has measured these on the snippet as it is today:\n  "
        + "\n  ".join(missing)
        + '\nre-measure with `make measure ARGS="--only <snippet>"` and commit the results '
        "and the re-rendered docs/_generated/"
    )


def test_every_snippet_output_is_fresh_somewhere(committed_results, root):
    fresh, captured = set(), set()
    for data in project_files(committed_results, root):
        for name, output in data.get("outputs", {}).items():
            captured.add(name)
            path = root / "snippets" / f"{name}.py"
            if path.exists() and provenance.file_sha256(path) == output["snippet_sha256"]:
                fresh.add(name)
    stale = sorted(captured - fresh)
    assert not stale, f"every captured output of these snippets is stale: {stale}"
