"""The special-value grid: every binary and ternary elementwise item judges the cross product of
its format's special values beside the search, and a special-case bug is caught on every dtype
row of every contract of its OpKind, at the ci seed."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from judge.drivers.grid import grid_case
from judge.profiles import get_profile
from judge.runner import Item, run_item

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "suites" / "fuel"


def _plugin():
    name = "judge_test_broken_special_plugin"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "tests" / "plugins" / "broken_special.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _contracts(op_kind: str):
    from judge.suite import load_paths

    found = [c for c in load_paths([SUITE]).contracts if c.op_kind == op_kind and c.registrable]
    assert found, op_kind
    return found


def _rows(op_kind: str):
    return [(c, d) for c in _contracts(op_kind) for d in c.dtype_fan]


def _pairs(case, i: int, j: int) -> set[tuple[int, int]]:
    a, b = (np.ascontiguousarray(case.values[k]).reshape(-1) for k in (i, j))
    bits = f"u{a.itemsize}"
    return set(zip(a.view(bits).tolist(), b.view(bits).tolist(), strict=True))


@pytest.mark.parametrize("op_kind, broken", [("PowElementwise", "ExpLogPow"),
                                             ("MulElementwise", "SkipZerosMul")])
def test_special_case_bug_is_caught_on_every_row(op_kind, broken):
    cls = getattr(_plugin(), broken)
    missed = []
    for contract, dtype in _rows(op_kind):
        result = run_item(Item(contract, cls(contract.device), dtype), get_profile("ci"))
        if result.row.verdict != "fail":
            missed.append(f"{contract.kernel}[{dtype}]: {result.row.verdict} {result.row.reason}")
    assert not missed, "\n".join(missed)


@pytest.mark.parametrize("op_kind", ["PowElementwise", "MulElementwise"])
def test_the_correct_twin_passes_the_grid(op_kind):
    """The same backend without the bug conforms on the grid (so the catches above are the bugs')."""
    import oracles
    from judge.drivers.case import judge_case

    for contract in _contracts(op_kind):
        if contract.precision.declares_bound:
            continue  # numpy's own pow rounds where a declared bound may not admit it
        for dtype in contract.dtype_fan:
            case = grid_case(contract, dtype)
            outcome = judge_case(contract, _plugin().NumpyBinary(contract.device), case,
                                 oracles.get(op_kind), repeats=1)
            assert not outcome.findings, (contract.kernel, dtype, outcome.findings[0].message)


def test_the_grid_holds_the_pairs_the_issue_names():
    contract = _contracts("PowElementwise")[0]
    for dtype in contract.dtype_fan:
        case = grid_case(contract, dtype)
        fmt_bits = np.ascontiguousarray(case.values[0]).reshape(-1)[:1].view(f"u{case.values[0].itemsize}")
        nan = next(b for b in _pairs(case, 0, 0) if b[0] == b[1] and math.isnan(
            float(np.array([b[0]], fmt_bits.dtype).view(case.values[0].dtype)[0])))[0]
        assert (nan, 0) in _pairs(case, 0, 1)  # pow(NaN, +0) = 1
    mul = _contracts("MulElementwise")[0]
    case = grid_case(mul, "F32")
    inf = int(np.float32(np.inf).view(np.uint32))
    assert {(0, inf), (inf, 0), (0x80000000, inf | 0x80000000)} <= _pairs(case, 0, 1)


def test_where_crosses_both_operands_with_the_condition_both_ways():
    where = _contracts("Where")[0]
    case = grid_case(where, "F16")
    cond, a, b = (v.reshape(-1) for v in case.values)
    assert cond.dtype == np.bool_ and set(cond.tolist()) == {False, True}
    assert len(_pairs(case, 1, 2)) * 2 == cond.size  # every (a, b), once per condition


def test_the_grid_fits_the_contracts_rank():
    """A Vulkan add accepts ranks 2..=4 only: its grid is a 2-D table of the two value sets."""
    from judge.suite import load_paths

    add = next(c for c in load_paths([SUITE / "vulkan-elementwise.fkc.md"]).contracts
               if c.op_kind == "AddElementwise")
    case = grid_case(add, "F32")
    rows, cols = case.values[0].shape
    assert len(set(case.values[0][:, 0].view(np.uint32).tolist())) == rows
    assert (case.values[1][0] == case.values[1][-1]).all() or np.isnan(case.values[1][0]).any()
    assert all(t.is_contiguous() for t in case.inputs)


def test_no_grid_for_unary_or_parametrised_kernels():
    for op_kind in ("ExpElementwise", "ClampElementwise", "SumReduce", "MatMul"):
        for contract in _contracts(op_kind):
            assert grid_case(contract, contract.dtype_fan[0]) is None, contract.kernel


def test_a_grid_failure_is_narrowed_to_one_element():
    contract = _contracts("MulElementwise")[0]
    result = run_item(Item(contract, _plugin().SkipZerosMul(contract.device), "F32"), get_profile("ci"))
    assert result.row.verdict == "fail"
    assert "special-value grid" in result.message
    assert [t.size for t in result.case.inputs] == [1, 1]
