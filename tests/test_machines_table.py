"""The Results page's session counts are the results files' own: the machines table counts
every session a file keeps, of every stack, and the stacks table gives each stack's sessions
with how many were unusually noisy (scripts/findings/noisy.py)."""

from __future__ import annotations

from scripts.findings import noisy, results_views
from scripts.rendering import names, stack_matrix, tables


def row_of(table: str, machine_id: str) -> list[str]:
    line = next(line for line in table.splitlines() if f"`results/{machine_id}.json`" in line)
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_the_machines_table_counts_every_session_a_file_keeps(committed_files):
    table = tables.machines_table(
        results_views.unchecked_views(committed_files), results_views.stack_views(committed_files)
    )
    assert "| Sessions (all stacks) |" in table
    for data in committed_files:
        sessions = data["sessions"]
        marked = len(noisy.unusual_sessions(sessions))
        days = len({session["id"][:10] for session in sessions})
        cell = row_of(table, data["machine"]["id"])[6]  # after the short name and description
        assert cell.startswith(f"{len(sessions)} ({days} day"), (data["machine"]["id"], cell)
        assert (f"; {marked} unusually noisy)" in cell) == bool(marked), cell


def test_a_file_with_other_stacks_counts_them_too(committed_files):
    """At least one committed file holds sessions of more than one stack, so the test above
    reads a file whose default-stack view has fewer sessions than the file."""
    assert any(len({s["stack"] for s in data["sessions"]}) > 1 for data in committed_files)


def test_the_stacks_table_says_how_many_of_each_stacks_sessions_are_unusually_noisy(
    committed_files,
):
    matrix = stack_matrix.matrix(results_views.stack_views(committed_files))
    for data in committed_files:
        row = f"| {names.of(data['machine'])} |"
        line = next(line for line in matrix.splitlines() if line.startswith(row))
        for stack in results_views.stacks_in(data):
            sessions = [s for s in data["sessions"] if s["stack"] == stack]
            marked = len(noisy.unusual_sessions(sessions))
            words = f"{len(sessions)} session{'s' if len(sessions) != 1 else ''}"
            words += f" ({marked} unusually noisy)" if marked else ","
            assert words in line, (data["machine"]["id"], stack, line)
