"""MatMul's cases: operand shapes tied together through the op params (batch axes equal or
grouped-query divisible, a shared k), drawn at once with the params, and its long case: a long k
that exposes a too-narrow accumulator (integer operands: rows of their own, ``int_row``).

Sizes stay within the budget's element count; k = 0 and k = 1, empty batch or row axes and GQA
ratios 2 and 3 are all reachable, and shrinking leads to a plain 1×1 product without batch axes.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.formats import get_format
from numerics.long_rows import draw_int_row, draw_row, int_row, row_values, rows_of
from oracles.drawing import operand_span
from oracles.families.matmul.integer import accumulator_k_limit


@st.composite
def _matmul_shapes(draw, contract, budget):
    """(lhs shape, rhs shape), params: batch axes equal or GQA-divisible, m, n, k.

    The rank and a one-in-sixteen empty flag are one choice; an empty case empties one of its
    sides (a batch axis, m, k or n), the rest are never empty (a case spent on an empty product
    exercises nothing else)."""
    code = draw(st.integers(0, 3 * 16 - 1))
    rank, empty = code // 16, -1
    if code % 16 == 15:
        empty = draw(st.integers(0, rank + 2))  # batch axes, then m, k, n
    rb, lb = [], []
    for axis in range(rank):
        r = 0 if axis == empty else draw(st.integers(1, 3))
        ratio = draw(st.sampled_from((1, 2, 3)))
        rb.append(r)
        lb.append(r * ratio)
    room = max(1, budget.max_elements // max(1, math.prod(lb)))
    m = 0 if empty == rank else draw(st.integers(1, max(1, min(4, room))))
    k = 0 if empty == rank + 1 else draw(st.integers(1, max(1, min(6, room // max(1, m)))))
    hi = min(4, max(1, budget.max_elements // max(1, math.prod(rb) * max(1, k))))
    n = 0 if empty == rank + 2 else draw(st.integers(1, hi))
    params = {"lhs_batch_dims": lb, "rhs_batch_dims": rb, "m": m, "n": n, "k": k}
    return [(*lb, m, k), (*rb, k, n)], params


def draw_shapes(draw, contract, opdef, budget):
    return draw(_matmul_shapes(contract, budget))


@st.composite
def _long_matmul(draw, contract, dtypes: tuple[str, ...], longest: int, operand):
    """One or two output rows and columns over a long k: the lhs rows follow a pattern and the
    rhs columns hold ones (so the products repeat the pattern exactly), or random values for
    the random pattern."""
    k, pattern, value, rng = draw_row(draw, longest)
    m, n = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    lhs_dtype, rhs_dtype = dtypes[0], dtypes[1]

    def lhs_values(count: int) -> np.ndarray:
        return rows_of(pattern, count, k, lhs_dtype, rng, value)

    def rhs_values(count: int) -> np.ndarray:  # ones keep the products equal to the lhs pattern
        return row_values("random" if pattern == "random" else "equal", count, rhs_dtype, rng, 1.0)

    a = draw(operand_span(operand, contract.inputs[0], lhs_dtype, (m, k), lhs_values))
    b = draw(operand_span(operand, contract.inputs[1], rhs_dtype, (k, n), rhs_values))
    return [a, b], {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}


@st.composite
def _long_int_matmul(draw, contract, dtypes: tuple[str, ...], longest: int, operand):
    """One or two output rows and columns over a long k within the I32 accumulator's reach."""
    limit = min(longest, accumulator_k_limit(dtypes[0]), accumulator_k_limit(dtypes[1]))
    k, pattern, rng = draw_int_row(draw, limit)
    m, n = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    # the cancelling pairs meet a constant column, so their products cancel too
    rhs_pattern = "extremes" if pattern == "cancelling" else pattern

    def rhs_values(count: int) -> np.ndarray:
        column = int_row(rhs_pattern, count, dtypes[1], rng)
        return column[:1].repeat(count) if pattern == "cancelling" else column

    a = draw(operand_span(operand, contract.inputs[0], dtypes[0], (m, k),
                          lambda count: int_row(pattern, count, dtypes[0], rng)))
    b = draw(operand_span(operand, contract.inputs[1], dtypes[1], (k, n), rhs_values))
    return [a, b], {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}


def long_case(contract, opdef, dtypes, longest, operand):
    if get_format(dtypes[0]).kind in ("int", "uint"):
        return _long_int_matmul(contract, dtypes, longest, operand)
    return _long_matmul(contract, dtypes, longest, operand)
