"""Every scatter bug class bites: each broken backend fails at the ci seed with the check that
names it, and the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, the check that must catch it)
    ("ScatterDropsDuplicates", "scatter_add_cpu", "F32", "reduction_bound"),
    ("ScatterDropsDuplicates", "scatter_add_cpu", "F64", "reduction_bound"),
    ("ScatterDropsDuplicates", "scatter_add_cpu", "BF16", "reduction_bound"),
    ("IndexAddStorageAccumulation", "index_add_cpu", "BF16", "reduction_bound"),
    ("IndexAddStorageAccumulation", "index_add_cpu", "F16", "reduction_bound"),
    ("ScatterDimOneBased", "scatter_add_cpu", "F32", "reduction_bound"),
    ("ScatterDimOneBased", "scatter_add_cpu", "F16", "reduction_bound"),
]


@pytest.mark.parametrize("cls, kernel, dtype, check", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_broken_scatter_backend_is_caught(broken_scatter, scatter_contract, cls, kernel, dtype, check):
    backend = getattr(broken_scatter, cls)()
    result = run_item(Item(scatter_contract(kernel), backend, dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] == check, result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel", ["scatter_add_cpu", "index_add_cpu"])
@pytest.mark.parametrize("dtype", ["F32", "F64", "BF16", "F16"])
def test_correct_scatter_backend_passes(broken_scatter, scatter_contract, kernel, dtype):
    result = run_item(Item(scatter_contract(kernel), broken_scatter.MiniScatter(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
