"""Every Cast promise bites: a truncating or ties-away BF16 cast and a saturating F8E4M3 cast are caught by
the check each breaks, at the CI seed and at nearly every other seed; a correct cast passes."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

CASES = [
    # (broken backend class, kernel, dtype, the checks it breaks): truncation is off by one
    # ulp (exact) or, just past the largest finite value, gives it instead of inf (inf)
    ("TruncatingBf16", "cast_to_bf16_cpu", "F32", {"exact", "inf"}),
    ("TiesAwayBf16", "cast_to_bf16_cpu", "F32", {"exact", "inf"}),  # a tie one ulp off, or
    # a tie past the largest finite value sent to inf
    ("SaturatingF8", "cast_to_f8e4m3_cpu", "F32", {"nan"}),
    ("SaturatingF8", "cast_to_f8e4m3_cpu", "F16", {"nan"}),
    ("SaturatingF8", "cast_to_f8e4m3_cuda", "BF16", {"nan"}),
]


def _check(broken_cast, cast_contract, cls, kernel, dtype, seed=0):
    row = run_item(Item(cast_contract(kernel), getattr(broken_cast, cls)(), dtype), get_profile("ci"),
                   seed=seed).row
    return row.verdict, row.reason.split(":", 1)[0]


@pytest.mark.parametrize("cls, kernel, dtype, check", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_cast_is_caught_at_the_ci_seed(broken_cast, cast_contract, cls, kernel, dtype, check):
    verdict, caught_by = _check(broken_cast, cast_contract, cls, kernel, dtype)
    assert verdict == "fail" and caught_by in check, (verdict, caught_by)


@pytest.mark.parametrize("cls, kernel, dtype, check", CASES[:3], ids=[c[0] for c in CASES[:3]])
def test_broken_cast_is_caught_at_most_seeds(broken_cast, cast_contract, cls, kernel, dtype, check):
    rows = [_check(broken_cast, cast_contract, cls, kernel, dtype, seed=s) for s in range(10)]
    caught = [verdict == "fail" and by in check for verdict, by in rows]
    print(f"{cls} {kernel}[{dtype}]: caught at {sum(caught)} of 10 seeds, by {[by for _, by in rows]}")
    assert sum(caught) >= 9


@pytest.mark.parametrize("kernel, dtype", sorted({(c[1], c[2]) for c in CASES})
                         + [("cast_to_f32_cpu", "F8E4M3"), ("cast_to_i32_cuda", "F64"),
                            ("cast_to_u8_cuda", "I64"), ("cast_to_f16_cuda", "U32")])
def test_correct_cast_passes(broken_cast, cast_contract, kernel, dtype):
    row = run_item(Item(cast_contract(kernel), broken_cast.MiniCast(), dtype), get_profile("ci")).row
    assert row.verdict == "pass", row.reason
    assert row.cases > 0
