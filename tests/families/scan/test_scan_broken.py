"""A scan that carries its state in BF16 is caught at the ci profile's seed, by the derived bound,
on both scans and on F32 as on the half formats (whose accumulator is F32); the correct mini
backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, checks that may catch it)
    ("Bf16State", "selective_scan_cpu", "F32", {"reduction_bound"}),
    ("Bf16State", "selective_scan_cpu", "F16", {"reduction_bound"}),
    ("Bf16State", "ssd_chunk_scan_cpu", "F32", {"reduction_bound"}),
    ("Bf16State", "ssd_chunk_scan_cpu", "BF16", {"reduction_bound"}),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_scan, scan_contract, cls, kernel, dtype, checks):
    result = run_item(Item(scan_contract(kernel), getattr(broken_scan, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel, dtype", sorted({(c[1], c[2]) for c in CASES}))
def test_correct_backend_passes(broken_scan, scan_contract, kernel, dtype):
    result = run_item(Item(scan_contract(kernel), broken_scan.MiniScan(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
