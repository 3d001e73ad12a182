"""The walls of SPEC §2 are import-linter contracts in pyproject.toml: they hold on this tree, and
each of them breaks when a copy of the tree gets the import it forbids. No module imports another
that imports it back, across the four packages as well (module cycles by grimp, which
import-linter is built on); CI checks the walls before the tests."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("judge", "oracles", "backends", "numerics")

# (file to inject into, the import, the contracts that must break). Imports inside a function
# count as much as those at the top.
INJECTIONS = [
    ("backends/numpy_backend.py", "import oracles", ["backends never import oracles"]),
    ("backends/_xp_ops.py", "from judge.suite import opkind_defaults",  # reaches oracles
     ["backends never import oracles"]),
    ("oracles/arith.py", "import backends.numpy_backend",  # which imports judge.api
     ["oracles never import backends", "backends are reached only through judge.registry",
      "judge over oracles over numerics, one way"]),
    ("judge/contracts/semantics.py", "import oracles",
     ["judge.contracts never imports oracles or backends"]),
    ("judge/runner.py", "from backends.numpy_backend import NumpyBackend",
     ["backends are reached only through judge.registry"]),
    ("numerics/formats.py", "from numerics.ulp import as_fraction", ["no import cycles"]),
    # The floors depend one way: judge on oracles on numerics, never back.
    ("oracles/hints.py", "import judge.api", ["judge over oracles over numerics, one way"]),
    ("numerics/rounding.py", "import oracles.output", ["judge over oracles over numerics, one way"]),
    ("numerics/values.py", "from judge.cases import Case", ["judge over oracles over numerics, one way"]),
]


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` run in ``root`` (its packages first on the path), no cache left behind."""
    return subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()",
         "--no-cache"],
        cwd=root, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def broken(output: str) -> list[str]:
    """The names of the broken contracts: the headings of the report's "Broken contracts"."""
    _, _, section = output.partition("Broken contracts\n----------------\n")
    return [name for name, rule in re.findall(r"^(.+)\n(-+)$", section, flags=re.M)
            if len(rule) == len(name)]


# Modules that import each other, across the four packages too (acyclic_siblings looks within
# each package): the strongly connected components of grimp's module graph, larger than one.
_CYCLES = """
import json, grimp
graph = grimp.build_graph("judge", "oracles", "backends", "numerics")
edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
order, seen = [], set()
for start in edges:
    if start in seen:
        continue
    seen.add(start)
    stack = [(start, iter(edges[start]))]
    while stack:
        node, it = stack[-1]
        nxt = next((m for m in it if m not in seen), None)
        if nxt is None:
            order.append(node)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(edges[nxt])))
back = {m: [] for m in edges}
for m, targets in edges.items():
    for t in targets:
        back[t].append(m)
groups, done = [], set()
for start in reversed(order):
    if start in done:
        continue
    group, todo = [], [start]
    done.add(start)
    while todo:
        node = todo.pop()
        group.append(node)
        for m in back[node]:
            if m not in done:
                done.add(m)
                todo.append(m)
    if len(group) > 1:
        groups.append(sorted(group))
print(json.dumps(groups))
"""


def module_cycles(root: Path) -> list[list[str]]:
    result = subprocess.run([sys.executable, "-c", _CYCLES], cwd=root, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(root)})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def copy_tree(into: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, into / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.spv"))
    shutil.copy(ROOT / "pyproject.toml", into)
    return into


def inject(root: Path, file: str, line: str) -> None:
    target = root / file
    target.write_text(target.read_text() + f"\n\ndef _breach():\n    {line}\n")


def test_no_module_imports_another_that_imports_it_back():
    assert module_cycles(ROOT) == []


def test_a_cycle_across_packages_is_found(tmp_path):
    root = copy_tree(tmp_path)
    inject(root, "oracles/hints.py", "import judge.suite")  # judge.suite imports oracles
    assert any({"judge.suite", "oracles.hints"} <= set(group) for group in module_cycles(root))


def test_the_walls_hold_on_this_tree():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 6 kept, 0 broken." in result.stdout, result.stdout


@pytest.mark.parametrize(("file", "line", "contracts"), INJECTIONS,
                         ids=[f"{f}:{line}" for f, line, _ in INJECTIONS])
def test_a_forbidden_import_breaks_its_wall(tmp_path, file, line, contracts):
    inject(copy_tree(tmp_path), file, line)
    result = lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert broken(result.stdout) == contracts, result.stdout


def test_ci_checks_the_walls_before_the_tests():
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci
    steps = [line.strip() for line in (ROOT / "scripts" / "test.sh").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    lint = next(i for i, step in enumerate(steps) if step.startswith("lint-imports"))
    tests = next(i for i, step in enumerate(steps) if "pytest" in step)
    assert lint < tests, steps
    assert "import-linter" in (ROOT / "pyproject.toml").read_text().split("lint = [", 1)[1].split("]")[0]
