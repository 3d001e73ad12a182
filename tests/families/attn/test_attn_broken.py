"""Every attention bug class bites: each broken backend is caught at the ci seed by the check it
targets, and the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

VALUES = {"nan", "reduction_bound", "inf"}
CASES = [
    # (broken backend class, kernel, dtype, checks that may catch it)
    ("CausalOffsetFromSk", "flash_attn_cpu", "F32", VALUES),
    ("CausalOffsetFromSk", "flash_attn_backward_q_cpu", "BF16", VALUES),
    ("GqaModulo", "flash_attn_cpu", "F16", VALUES),
    ("GqaModulo", "paged_attn_cpu", "F32", VALUES),
    ("GqaModulo", "flash_attn_backward_k_cpu", "F64", VALUES),
    ("NoMaxShift", "flash_attn_cpu", "F32", VALUES),
    ("NoMaxShift", "flash_attn_alibi_cpu", "F64", VALUES),
    ("NoMaxShift", "paged_attn_cpu", "BF16", VALUES),
    ("BackwardSignError", "flash_attn_backward_q_cpu", "F32", VALUES),
    ("BackwardSignError", "flash_attn_backward_k_alibi_cpu", "F16", VALUES),
    ("PagedContextOffByOne", "paged_attn_cpu", "F32", VALUES),
    ("PagedContextOffByOne", "paged_attn_alibi_cpu", "F64", VALUES),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_attn, attn_contract, cls, kernel, dtype, checks):
    result = run_item(Item(attn_contract(kernel), getattr(broken_attn, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


CORRECT = sorted({(c[1], c[2]) for c in CASES} | {("flash_attn_backward_v_alibi_cpu", "BF16")})


@pytest.mark.parametrize("kernel, dtype", CORRECT)
def test_correct_backend_passes(broken_attn, attn_contract, kernel, dtype):
    result = run_item(Item(attn_contract(kernel), broken_attn.MiniAttn(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
