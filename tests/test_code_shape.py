"""Small modules, short functions: no module of the product packages over 400 lines and no
function over 60, tables excepted.

Sizes are counted with ``ast``: a function spans ``end_lineno - lineno + 1`` lines (nested
functions count inside their parent as well as on their own), a module its whole file. Lines
inside a data table (a list, tuple, dict or set display of three lines or more) do not count,
in a module or in a function. ``ALLOWED`` lists today's offenders with their size: each may only
shrink, and leaves the list once it is within the limit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "oracles", "backends")
MODULE_LIMIT = 400
FUNCTION_LIMIT = 60

# Offender -> its size today (modules by path, functions as path::qualname). Empty: none left.
ALLOWED: dict[str, int] = {}

_TABLES = (ast.List, ast.Tuple, ast.Dict, ast.Set)


def _table_lines(tree: ast.AST) -> set[int]:
    """The lines covered by data tables (outermost displays of three lines or more)."""
    lines: set[int] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, _TABLES) and node.end_lineno - node.lineno >= 2:
            lines.update(range(node.lineno, node.end_lineno + 1))
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return lines


def sizes(source: str, name: str) -> dict[str, int]:
    """``name`` -> module size, ``name::qualname`` -> function size, tables excepted."""
    tree = ast.parse(source)
    tables = _table_lines(tree)
    found = {name: len(source.splitlines()) - len(tables)}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                span = set(range(child.lineno, child.end_lineno + 1))
                found[f"{name}::{prefix}{child.name}"] = len(span - tables)
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def over_limits(found: dict[str, int]) -> dict[str, int]:
    return {key: size for key, size in found.items()
            if size > (FUNCTION_LIMIT if "::" in key else MODULE_LIMIT)}


def product_sizes() -> dict[str, int]:
    found: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found.update(sizes(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()))
    return found


def test_no_module_or_function_over_its_limit_beyond_the_allowlist():
    offenders = over_limits(product_sizes())
    new = {key: size for key, size in offenders.items() if key not in ALLOWED}
    grown = {key: (size, ALLOWED[key]) for key, size in offenders.items()
             if key in ALLOWED and size > ALLOWED[key]}
    assert not new, f"over {MODULE_LIMIT} lines (module) or {FUNCTION_LIMIT} (function): {new}"
    assert not grown, f"allowlisted offenders that grew (now, allowed): {grown}"


def test_the_allowlist_only_holds_offenders():
    found = product_sizes()
    offenders = over_limits(found)
    gone = [key for key in ALLOWED if key not in offenders]
    assert not gone, f"within the limit now (or gone): take them off ALLOWED: {gone}"
    shrunk = {key: (found[key], size) for key, size in ALLOWED.items() if found[key] < size}
    assert not shrunk, f"smaller now (size, allowed): lower their ALLOWED size: {shrunk}"


def _function(lines: int) -> str:
    return "def f():\n" + "    x = 1\n" * (lines - 1)


@pytest.mark.parametrize(("source", "offender"), [
    (_function(61), "m.py::f"),
    ("class C:\n    " + _function(61).replace("\n", "\n    "), "m.py::C.f"),
    ("x = 1\n" * 401, "m.py"),
])
def test_the_measure_catches_a_long_function_or_module(source, offender):
    assert offender in over_limits(sizes(source, "m.py"))


def test_the_measure_excepts_tables_and_nothing_else():
    table = "TABLE = {\n" + "    'k%d': 1,\n" * 500 + "}\n"
    assert over_limits(sizes(table + _function(60), "m.py")) == {}
    inner = "def f():\n    rows = [\n" + "        1,\n" * 100 + "    ]\n" + "    x = 1\n" * 58
    assert over_limits(sizes(inner, "m.py")) == {}
    assert over_limits(sizes(inner + "    x = 1\n" * 2, "m.py")) == {"m.py::f": 61}
