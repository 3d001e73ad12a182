"""Each fused kernel's mistake is caught at the ci profile's seed by the check it breaks: a
FusedLinear that rounds the product to T before adding the bias (BF16, F16), and a cross-entropy
mean divided by n_rows instead of the rows not ignored (a mean over only ignored rows is NaN, a
mean over some is too small); the correct mini backend passes the same contracts."""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from judge.api import TensorArg, contiguous_strides
from judge.cases import Case
from judge.drivers.case import judge_case
from judge.layouts import LayoutRecipe
from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, checks that may catch it)
    ("RoundedProductLinear", "fused_linear_cpu", "BF16", {"reduction_bound"}),
    ("RoundedProductLinear", "fused_linear_cpu", "F16", {"reduction_bound"}),
    ("MeanOverAllRows", "fused_softmax_cross_entropy_cpu", "F32", {"reduction_bound", "nan"}),
    ("MeanOverAllRows", "fused_softmax_cross_entropy_cpu", "BF16", {"reduction_bound", "nan"}),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_fused, fused_contract, cls, kernel, dtype, checks):
    result = run_item(Item(fused_contract(kernel), getattr(broken_fused, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel, dtype", sorted({(c[1], c[2]) for c in CASES} | {("fused_linear_cpu", "F32")}))
def test_correct_backend_passes(broken_fused, fused_contract, kernel, dtype):
    result = run_item(Item(fused_contract(kernel), broken_fused.MiniFused(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0


def test_a_mean_over_some_ignored_rows_is_caught_by_the_bound(broken_fused, fused_contract):
    """Beside the all-ignored edge (NaN against 0), the wrong denominator itself breaks the bound."""
    logits = np.array([[1.0, 2.0, 0.5], [0.25, -1.0, 3.0], [2.0, 2.0, 2.0]], np.float32)
    targets = np.array([1, -100, 0], np.int64)
    views = tuple(TensorArg(v.reshape(-1), v.shape, contiguous_strides(v.shape), 0, d)
                  for v, d in ((logits, "F32"), (targets, "I64")))
    recipe = LayoutRecipe()
    case = Case("F32", views, (logits, targets), (recipe, recipe),
                {"n_rows": 3, "vocab": 3, "reduction": "mean", "ignore_index": -100})
    contract = fused_contract("fused_softmax_cross_entropy_cpu")
    opdef = oracles.get("FusedSoftmaxCrossEntropy")
    bad = judge_case(contract, broken_fused.MeanOverAllRows(), case, opdef, repeats=0)
    good = judge_case(contract, broken_fused.MiniFused(), case, opdef, repeats=0)
    assert [f.check for f in bad.findings] == ["reduction_bound"] and not good.findings
