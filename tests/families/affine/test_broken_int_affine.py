"""Integer Affine: each broken backend is caught at the ci profile's seed by the exact check,
the correct one passes every dtype, and the oracle rounds and stores as the contract says."""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from judge.profiles import get_profile
from judge.runner import Item, run_item

KERNEL = "affine_int_cuda"
CASES = [
    # (broken backend class, dtype)
    ("Float32Affine", "I32"),
    ("Float32Affine", "I64"),
    ("TruncatingAffine", "I32"),
    ("TruncatingAffine", "U8"),
    ("WrappingAffine", "U8"),
    ("WrappingAffine", "I32"),
    ("WrappingAffine", "I64"),
]


@pytest.mark.parametrize("cls, dtype", CASES, ids=[f"{c}-{d}" for c, d in CASES])
def test_broken_backend_is_caught(broken_affine, affine_int_contract, cls, dtype):
    backend = getattr(broken_affine, cls)("cuda")
    result = run_item(Item(affine_int_contract(KERNEL), backend, dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] == "exact", result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("dtype", ["I32", "I64", "U8"])
def test_correct_backend_passes(broken_affine, affine_int_contract, dtype):
    backend = broken_affine.MiniIntAffine("cuda")
    result = run_item(Item(affine_int_contract(KERNEL), backend, dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0


RULES = {"rounding": "half_to_even", "overflow": "saturate"}


@pytest.mark.parametrize("fmt, x, mul, add, rules, want", [
    ("I32", [5, 7, -5, 3], 0.5, 0.0, RULES, [2, 4, -2, 2]),  # ties to even
    ("I32", [5, -5], 0.5, 0.0, {**RULES, "rounding": "half_away_from_zero"}, [3, -3]),
    ("I32", [2**31 - 1, -2**31], 1024.0, 0.0, RULES, [2**31 - 1, -2**31]),
    ("I32", [2**31 - 1], 2.0, 0.0, {**RULES, "overflow": "wrap"}, [-2]),
    ("I64", [2**62 + 1], 1.0, 0.25, RULES, [2**62 + 1]),  # past 2^53: exact all the same
    ("I64", [2**63 - 1], 0.5, 0.0, RULES, [2**62]),
    ("U8", [3, 255], -1.0, 0.0, RULES, [0, 0]),
    ("U8", [200], 2.0, 0.0, RULES, [255]),
])
def test_int_affine_oracle(fmt, x, mul, add, rules, want):
    from numerics.formats import get_format

    arr = np.array(x, dtype=get_format(fmt).numpy_dtype)
    (out,) = oracles.evaluate("Affine", [arr], {"mul": mul, "add": add}, [fmt], rules)
    assert out.expected.tolist() == want
