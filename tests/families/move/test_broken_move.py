"""Every data-movement check bites: each broken backend fails at the ci seed with its check,
and the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, the check that must catch it)
    ("FlipThroughFloat64", "flip_cpu", "F32", "payload"),
    ("IndexSelectCanonicalZeros", "index_select_cpu", "F32", "signed_zero"),
    ("RollWrongSign", "roll_cpu", "U8", "exact"),
    ("RollWrongSign", "roll_cpu", "F32", "exact"),
    ("TriuOffByOne", "triu_cpu", "F16", "exact"),
    ("MaskedFillThroughFloat", "masked_fill_cpu", "F32", "payload"),
    ("RollShiftI32", "roll_cpu", "F32", "exact"),  # a shift of 2^31 or more narrowed to 32 bits
    ("RollShiftI32", "roll_cpu", "U8", "exact"),
    ("MaskedFillPositiveZero", "masked_fill_cpu", "F64", "signed_zero"),  # a -0.0 fill lands +0
    ("MaskedFillPositiveZero", "masked_fill_cpu", "BF16", "signed_zero"),
]


@pytest.mark.parametrize("cls, kernel, dtype, check", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_broken_move_backend_is_caught(broken_move, move_contract, cls, kernel, dtype, check):
    backend = getattr(broken_move, cls)()
    result = run_item(Item(move_contract(kernel), backend, dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] == check, result.message
    assert result.case is not None and row.counterexample == result.case.case_id


KERNELS = ["concat_cpu", "index_select_cpu", "gather_cpu", "flip_cpu", "roll_cpu", "triu_cpu",
           "tril_cpu", "masked_fill_cpu"]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("dtype", ["F32", "BF16", "U8"])
def test_correct_move_backend_passes(broken_move, move_contract, kernel, dtype):
    result = run_item(Item(move_contract(kernel), broken_move.MiniMove(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
