"""Integer MatMul's oracle against sums written out by index, each store rule at the ends of
the output's range; the long rows stay within the I32 accumulator and never hold the poison."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import oracles
from numerics.long_rows import INT_PATTERNS, int_row
from numerics.rounding import store_int
from numerics.values import POISON_BITS
from oracles.families.matmul.integer import accumulator_k_limit

P = {"lhs_batch_dims": [2], "rhs_batch_dims": [1], "m": 2, "n": 3, "k": 4}


def _by_index(a: np.ndarray, b: np.ndarray, fmt: str, rule: str) -> np.ndarray:
    out = np.zeros((2, 2, 3), dtype=a.dtype)
    for bi, i, j in itertools.product(range(2), range(2), range(3)):
        total = sum(int(a[bi, i, t]) * int(b[0, t, j]) for t in range(4))
        out[bi, i, j] = store_int(total, fmt, rule)
    return out


@pytest.mark.parametrize("fmt, rule", [("I8", "saturate"), ("I8", "wrap"), ("U8", "saturate"), ("U8", "wrap")])
def test_integer_matmul_matches_the_sums_by_index(fmt, rule):
    rng = np.random.default_rng(7)
    dtype = np.int8 if fmt == "I8" else np.uint8
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (2, 2, 4), endpoint=True).astype(dtype)
    b = rng.integers(info.min, info.max, (1, 4, 3), endpoint=True).astype(dtype)
    a[0, 0] = info.max  # a row whose sum runs far past the range
    (out,) = oracles.evaluate("MatMul", [a, b], P, [fmt], {"overflow": rule})
    np.testing.assert_array_equal(out.expected, _by_index(a, b, fmt, rule))
    assert out.expected.dtype == dtype


def test_the_store_clamps_or_wraps_at_the_ends():
    assert [store_int(v, "I8", "saturate") for v in (-129, -128, 127, 128)] == [-128, -128, 127, 127]
    assert [store_int(v, "I8", "wrap") for v in (-129, 128, 256)] == [127, -128, 0]
    assert [store_int(v, "U8", "saturate") for v in (-1, 255, 256)] == [0, 255, 255]


def test_the_accumulator_limit_keeps_the_sum_in_i32():
    assert accumulator_k_limit("I8") == (2**31 - 1) // 128**2
    assert accumulator_k_limit("U8") == (2**31 - 1) // 255**2


@pytest.mark.parametrize("fmt", ["I8", "U8"])
@pytest.mark.parametrize("pattern", INT_PATTERNS)
def test_long_integer_rows_hold_no_poison(fmt, pattern):
    row = int_row(pattern, 4096, fmt, np.random.default_rng(1))
    assert len(row) == 4096
    assert not np.any(row.view(np.uint8) == POISON_BITS[fmt])


def test_a_result_that_is_the_poison_is_not_unwritten():
    """U8's poison, 0xA5, is a sum a U8 MatMul returns: only where the oracle expects another
    value does an element holding it show an unwritten output."""
    from judge.executor import Finding, poison_expected

    found = Finding("unwritten", "1 element(s) still hold the poison pattern", 0, (0,))
    observed = np.array([0xA5, 3], np.uint8)
    assert poison_expected(found, observed, np.array([0xA5, 3], np.uint8), "U8")
    assert not poison_expected(found, observed, np.array([0xA4, 3], np.uint8), "U8")
    assert not poison_expected(Finding("exact", "", 0), observed, observed, "U8")
