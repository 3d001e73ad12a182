"""A family is one place (SPEC §2): ``judge/`` names no family and no OpKind, and branches on
none; what it knows of a family it asks through the family's hooks (``oracles.family.Family``).

The check reads every module of ``judge/`` with ``ast``. Offenders are a string constant that is
a family's name, an OpKind's name or a shape rule a family defines (docstrings aside: prose may
mention an op), and a comparison that reads an OpKind or a family off an object
(``contract.op_kind == ...``, ``opdef.family in ...``). The names come from the oracle table, so
a family or OpKind is covered the day it lands. Each planted violation, in a copy of the tree,
makes the check fail and name it.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Attributes through which code would branch on what an OpKind is.
BRANCH_ON = frozenset({"op_kind", "op_kinds", "family"})


def vocabulary() -> dict[str, str]:
    """Every name the harness must not hold -> what it names."""
    import oracles

    names = {kind: "OpKind" for kind in oracles.op_kinds()}
    names.update({rule: "shape rule of a family" for rule in oracles.shape_rules()})
    names.update({family.name: "family" for family in oracles.all_families()})
    return names


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _names_a_family(node: ast.AST) -> bool:
    return (isinstance(node, ast.Name) and "family" in node.id
            or isinstance(node, ast.Attribute) and "family" in node.attr)


def _reads_what_an_op_is(node: ast.AST) -> bool:
    """An operand of a comparison reads an object's OpKind or family (``opdef.family``), or a
    family's name (``family.name``); asking a family's hooks (``family.size_plan is None``)
    is what the harness should do."""
    return any(isinstance(n, ast.Attribute)
               and (n.attr in BRANCH_ON or n.attr == "name" and _names_a_family(n.value))
               for n in ast.walk(node))


def offenders(root: Path, names: dict[str, str]) -> list[str]:
    """``path:line: why`` for every family or OpKind name and every branch on one in
    ``root/judge``."""
    lowered = {name.lower(): what for name, what in names.items() if what == "family"}
    found = []
    for path in sorted((root / "judge").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=where)
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                text = node.value.strip()
                what = names.get(text) or lowered.get(text.lower())
                if what:
                    found.append(f"{where}:{node.lineno}: {what} {text!r}")
            elif isinstance(node, ast.Compare) and _reads_what_an_op_is(node):
                found.append(f"{where}:{node.lineno}: a branch on what an OpKind is "
                             f"({ast.unparse(node)})")
    return found


def check_judge(root: Path) -> None:
    found = offenders(root, vocabulary())
    assert not found, "judge/ knows of families by name; ask the family's hooks instead:\n" + \
        "\n".join(found)


def test_judge_names_no_family_and_no_op_kind():
    check_judge(ROOT)


def test_the_vocabulary_holds_every_family_and_op_kind():
    import oracles

    names = vocabulary()
    assert {"MatMul", "CumSum", "SoftmaxLastDim", "Where"} <= set(names)
    assert {"elementwise", "reductions", "matmul", "cumsum", "cast", "movement", "lastdim"} <= set(names)
    assert len([n for n, what in names.items() if what == "OpKind"]) == len(oracles.op_kinds())


# (file, planted lines, what the check must name). Each goes into a function at the end of the
# file, as code that would branch on a family or an OpKind would.
PLANTED = [
    ("judge/executor.py", ['if contract.op_kind == "MatMul":', "    return 1"],
     ["OpKind 'MatMul'", "a branch on what an OpKind is"]),
    ("judge/strategies.py", ['return {"cumsum": 4, "lastdim": 4}.get(opdef.name)'],
     ["family 'cumsum'", "family 'lastdim'"]),
    ("judge/scoring/rules.py", ["if opdef.family in LONG:", "    return 2"],
     ["a branch on what an OpKind is"]),
    ("judge/contracts/outputs.py", ['return ("concat", 1)'], ["shape rule of a family 'concat'"]),
]


def plant(root: Path, file: str, lines: list[str]) -> None:
    target = root / file
    body = "".join(f"    {line}\n" for line in lines)
    target.write_text(target.read_text() + f"\n\ndef _breach(contract, opdef):\n{body}")


@pytest.mark.parametrize(("file", "lines", "named"), PLANTED, ids=[p[0] for p in PLANTED])
def test_a_planted_name_or_branch_fails_the_check(tmp_path, file, lines, named):
    shutil.copytree(ROOT / "judge", tmp_path / "judge", ignore=shutil.ignore_patterns("__pycache__"))
    check_judge(tmp_path)  # the copy holds, as the tree does
    plant(tmp_path, file, lines)
    with pytest.raises(AssertionError, match="knows of families by name"):
        check_judge(tmp_path)
    found = offenders(tmp_path, vocabulary())
    assert found and all(line.startswith(f"{file}:") for line in found), found
    for what in named:
        assert any(what in line for line in found), (what, found)
