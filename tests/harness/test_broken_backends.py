"""Every check bites: each deliberately broken backend is caught by the check it targets."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

REF = "reference-elementwise.fkc.md"
RED = "reduce.fkc.md"
VK = "vulkan-elementwise.fkc.md"
BIN = "elementwise-binary.fkc.md"

CASES = [
    # (broken backend class, contract file, kernel, dtype, checks that may catch it)
    ("WrongNanRule", BIN, "maximum_elementwise_cpu", "F32", {"nan"}),
    ("WrongTieRule", RED, "argmax_dim_cpu", "F32", {"ties"}),
    ("ExtraUlp", REF, "sqrt", "F64", {"ulp"}),
    ("FlippedZeroSign", REF, "neg", "F32", {"signed_zero"}),
    ("FlushedSubnormals", REF, "add", "F32", {"subnormal"}),
    ("UnwrittenTail", REF, "neg", "BF16", {"unwritten"}),
    ("ModifiesInput", REF, "neg", "F16", {"input_modified"}),
    ("WrongDtype", REF, "neg", "F32", {"dtype"}),
    ("WrongShape", REF, "neg", "F64", {"shape"}),
    ("NondeterministicLastBit", REF, "sqrt", "F32", {"determinism"}),
    ("IgnoresStrides", VK, "neg", "F32", {"exact", "signed_zero", "nan", "inf"}),
    ("WrongReduceDims", RED, "sum_reduce_cpu", "F32", {"shape", "reduction_bound", "nan", "inf"}),
    ("HalfAccumulation", RED, "sum_reduce_cpu", "F16", {"reduction_bound"}),
    ("HalfAccumulation", RED, "sum_reduce_cpu", "BF16", {"reduction_bound"}),
    ("HalfAccumulation", RED, "mean_reduce_cpu", "F16", {"reduction_bound"}),
    ("HalfAccumulation", RED, "mean_reduce_cpu", "BF16", {"reduction_bound"}),
    ("ErfGelu", VK, "gelu", "F32", {"implausible"}),
]


@pytest.mark.parametrize("cls, file, kernel, dtype, checks", CASES,
                         ids=[f"{c[0]}-{c[2]}-{c[3]}" for c in CASES])
def test_broken_backend_is_caught(broken, suite, cls, file, kernel, dtype, checks):
    backend = getattr(broken, cls)()
    result = run_item(Item(suite(file, kernel), backend, dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert "minimal counterexample" in result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("file, kernel, dtype", sorted({(c[1], c[2], c[3]) for c in CASES}))
def test_correct_backend_passes(broken, suite, file, kernel, dtype):
    result = run_item(Item(suite(file, kernel), broken.MiniCpu(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
