"""Starting a measuring child: its environment and Python (the stack's), one run of
measure_child.py for a snippet's variants, and one run of the snippet as a reader runs it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from scripts.core import catalog, measured_stacks, typed_json
from scripts.measuring.messages import ChildReport, ChildRequest, Output


def child_env(stack: measured_stacks.Stack | None = None) -> dict:
    """The children's environment: the project on PYTHONPATH, and the stack's own
    TF_USE_LEGACY_KERAS where a stack is given."""
    env = dict(os.environ, PYTHONPATH=str(catalog.ROOT), TF_CPP_MIN_LOG_LEVEL="2")
    env.setdefault("PYTHONHASHSEED", "0")
    return stack.environ(env) if stack else env


def child_python(stack: measured_stacks.Stack | None = None) -> str:
    """The stack's Python where a stack is given, else the one running this."""
    return str(stack.interpreter()) if stack else sys.executable


def run_child(
    snippet: catalog.Snippet,
    method: dict,
    timeout: float,
    snippets_dir: Path,
    variants: list[str] | None = None,
    stack: measured_stacks.Stack | None = None,
) -> ChildReport:
    """Measure one snippet (or some of its variants) in a child process, with the stack's
    Python where one is given; return its report."""
    request = ChildRequest.of(snippet.name, method, variants)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = [child_python(stack), "-m", "scripts.measuring.measure_child",
                   *request.argv(out, snippets_dir)]  # fmt: skip
        try:
            done = subprocess.run(
                command, cwd=catalog.ROOT, env=child_env(stack), timeout=timeout,
                stdout=subprocess.PIPE, stderr=None, text=True, check=False,
            )  # fmt: skip
            problem = (
                None if done.returncode == 0 else f"child exited with status {done.returncode}"
            )
        except subprocess.TimeoutExpired:
            problem = f"timed out after {timeout:.0f} s"
        report = read_report(out, snippet)
    if problem and not report.get("error"):
        report["error"] = f"{snippet.relpath}: {problem}"
    return report


def read_report(path: Path, snippet: catalog.Snippet) -> ChildReport:
    """The child's report, held to ChildReport (messages.py); none when the child stopped
    before writing one. A report that breaks the format is the snippet's error, naming the
    file and the field, so the other snippets are still measured."""
    if not path.exists():
        return {"variants": {}}
    try:
        whose = f"the measuring child's report for {snippet.name}"
        return typed_json.read(path, ChildReport, whose)
    except typed_json.MessageError as error:
        return {"variants": {}, "error": str(error)}


def capture_output(
    snippet: catalog.Snippet, size: str, timeout: float, stack: measured_stacks.Stack | None = None
) -> Output:
    """Run the snippet as a reader would (`python snippet.py SIZE`) and keep what it prints."""
    try:
        done = subprocess.run(
            [child_python(stack), str(snippet.path), size], cwd=catalog.ROOT, env=child_env(stack),
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        return {"error": f"exited with status {done.returncode}: {done.stderr[-2000:]}"}
    return {"text": done.stdout, "size": size}
