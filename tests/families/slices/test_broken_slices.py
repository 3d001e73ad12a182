"""Every slices bug class bites: each broken backend fails at the ci seed with the check that
names it, and the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, the check that must catch it)
    ("RingForgetsModulus", "write_slice_rotating_cpu", "F32", "outside_written"),
    ("RingForgetsModulus", "write_slice_rotating_cpu", "BF16", "outside_written"),
    ("RingForgetsModulus", "write_slice_rotating_cpu", "U8", "outside_written"),
    ("RingReadsRangeStart", "write_slice_rotating_cpu", "F32", "exact"),
    ("RingReadsRangeStart", "write_slice_rotating_cpu", "U32", "exact"),
    ("WriteSliceInclusiveEnd", "write_slice_cpu", "F32", "outside_written"),
    ("WriteSliceInclusiveEnd", "write_slice_cpu", "F16", "outside_written"),
    ("WriteSliceInclusiveEnd", "write_slice_cpu", "U32", "outside_written"),
    ("CopyDropsOddTail", "copy_cpu", "F32", "unwritten"),
    ("CopyDropsOddTail", "copy_cpu", "BF16", "unwritten"),
    ("CopyDropsOddTail", "copy_cpu", "I64", "unwritten"),
]


@pytest.mark.parametrize("cls, kernel, dtype, check", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_broken_slices_backend_is_caught(broken_slices, slices_contract, cls, kernel, dtype, check):
    backend = getattr(broken_slices, cls)()
    result = run_item(Item(slices_contract(kernel), backend, dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] == check, result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel", ["write_slice_cpu", "write_slice_rotating_cpu", "copy_cpu"])
@pytest.mark.parametrize("dtype", ["F32", "F64", "BF16", "F16", "U32", "U8"])
def test_correct_slices_backend_passes(broken_slices, slices_contract, kernel, dtype):
    result = run_item(Item(slices_contract(kernel), broken_slices.MiniSlices(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
