"""No function in scripts/ or benchmarks/ is more complex than radon's grade C (cyclomatic
complexity above 20) unless EXCEPTIONS names it with the reason. radon is not in the locked
requirements, so this counts as radon's ComplexityVisitor does, with the standard library."""

from __future__ import annotations

import ast
from pathlib import Path

from scripts.core.project_files import ROOT

PACKAGES = ("scripts", "benchmarks")
GRADE_C = 20  # radon: A 1-5, B 6-10, C 11-20, D 21-30, E 31-40, F 41 and more
# "path:function" -> why it stays above grade C (the review of 2026-11-28 counted 1 F, 2 E and
# 14 D; these are what is left, each to split when it next changes).
EXCEPTIONS: dict[str, str] = {
    "scripts/rendering/tables.py:comparison_table": "one table whose columns depend on the "
    "entries (rate and ceiling with FLOPs, peak memory with one process per variant); its "
    "cells' branches are the column choices",
    "scripts/fix_convergence.py:judge": "applies each route of a case and files its outcome as "
    "refused, failed or converged; the branches are the outcome rules, read in one place",
    "scripts/doctor/rules_keras.py:check_keras": "a doctor rule: its cases one after another, each returning its "
    "Check (no TensorFlow, tf-keras under the legacy variable, a Keras import error, Keras 3 "
    "from TensorFlow 2.16)",
    "scripts/doctor/rules_install.py:check_metal": "a doctor rule: its cases one after another, each returning its "
    "Check (not a Mac, not arm64, no TensorFlow, no plugin, the pair in both tables)",
    "scripts/doctor/rules_runtime.py:check_import": "a doctor rule: its cases one after another, each returning its "
    "Check (nothing to import, a timeout, the AVX guard, a crash, a plugin failure)",
    "scripts/rendering/render.py:render_all": "the list of every generated file; its branches "
    "are the optional inputs (results, claims, reference figures, stack changes)",
    "scripts/rendering/notebooks.py:split_module": "one pass over a snippet's statements that "
    "cuts cells at section markers, definitions and the main block without changing a line",
    "scripts/tuning/report.py:_text": "tune's terminal report: one optional line or section "
    "per fact the run found, in the order the report prints them",
}


def complexity(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """As radon counts (radon/visitors.py, ComplexityVisitor.generic_visit): 1, plus 1 per if,
    conditional expression and assert, 1 per loop and 1 more for its else, 1 per except handler
    and per statement of a try's else, 1 per extra operand of and/or, 1 per comprehension and
    per if in it. Only the body counts; functions and classes defined inside count on their own."""
    total = 1
    pending = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(node, (ast.If, ast.IfExp, ast.Assert)):
            total += 1
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            total += 1 + bool(node.orelse)
        elif isinstance(node, ast.Try):
            total += len(node.handlers) + len(node.orelse)
        elif isinstance(node, ast.BoolOp):
            total += len(node.values) - 1
        elif isinstance(node, ast.comprehension):
            total += 1 + len(node.ifs)
        pending.extend(ast.iter_child_nodes(node))
    return total


def functions(path: Path) -> list[tuple[str, int]]:
    """(qualified name, complexity) of every function and method in a file."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, complexity(child)))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(path.read_text(encoding="utf-8")), "")
    return found


def over_grade_c(root: Path = ROOT) -> dict[str, int]:
    return {
        f"{path.relative_to(root).as_posix()}:{name}": score
        for package in PACKAGES
        for path in sorted((root / package).rglob("*.py"))
        for name, score in functions(path)
        if score > GRADE_C
    }


def test_the_count_follows_radons_rules():
    source = """
def f(a, b, items):
    if a and b or not a:          # if 1, boolean operators 2
        return [i for i in items if i]  # comprehension 1, its if 1
    for i in items:                # loop 1, its else 1
        try:
            pass
        except ValueError:         # handler 1
            pass
        except KeyError:           # handler 1
            pass
    else:
        pass
    def inner(x):                  # counted on its own
        return x if x else 0
    return 1 if a else 2           # conditional expression 1
"""
    tree = ast.parse(source)
    outer = tree.body[0]
    assert complexity(outer) == 1 + 1 + 2 + 2 + 2 + 2 + 1
    assert complexity(outer.body[2]) == 2


def test_no_function_is_above_grade_c_without_a_reason():
    found = over_grade_c()
    unexplained = {name: score for name, score in found.items() if name not in EXCEPTIONS}
    assert unexplained == {}, "split the function, or name it in EXCEPTIONS with the reason"
    stale = sorted(set(EXCEPTIONS) - set(found))
    assert stale == [], "EXCEPTIONS names a function that is back within grade C: remove it"
