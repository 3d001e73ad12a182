"""Every backward mistake bites: each broken backend is caught at the ci seed by the check it
targets, and the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

VALUE = {"reduction_bound", "nan", "inf"}
CASES = [
    # (broken backend class, kernel, dtype, checks that may catch it)
    ("SoftmaxSignError", "softmax_last_dim_backward_cpu", "F32", VALUE),
    ("LayerNormSignError", "layer_norm_last_dim_backward_cpu", "F32", VALUE),
    ("LayerNormDroppedMean", "layer_norm_last_dim_backward_cpu", "F32", VALUE),
    ("PowIDividesByX", "powi_backward_cpu", "F32", {"nan"}),
    # storage-format sums also flush the smallest results to zero, which may show first
    ("HalfRowSums", "rms_norm_last_dim_backward_cpu", "F16", {"reduction_bound", "subnormal"}),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_backward, backward_contract, cls, kernel, dtype, checks):
    result = run_item(Item(backward_contract(kernel), getattr(broken_backward, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel, dtype", sorted({(c[1], c[2]) for c in CASES}))
def test_correct_backend_passes(broken_backward, backward_contract, kernel, dtype):
    result = run_item(Item(backward_contract(kernel), broken_backward.MiniBackward(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
