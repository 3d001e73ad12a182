"""The MatMul and CumSum rows of the oracle table, with their shape-and-param strategies.

MatMul operands tie their shapes together through the op params (batch axes equal or GQA
divisible, a shared k), so the OpKind draws both shapes and the params at once; CumSum draws a
shape, an axis and the counts around it. Sizes stay within the budget's element count; k = 0 and
k = 1, empty batch or row axes and GQA ratios 2 and 3 are all reachable, and shrinking leads to a
plain 1×1 product without batch axes.
"""

from __future__ import annotations

import math

from hypothesis import strategies as st

from oracles import hints
from oracles.matmul import evaluate_cumsum, evaluate_matmul, matmul_out_shape
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}


def _side(draw, hi: int, empty_ok: bool = True) -> int:
    """1..hi, and 0 about one draw in sixteen (the top value, so shrinking leaves it)."""
    if empty_ok and draw(st.integers(0, 15)) == 15:
        return 0
    return draw(st.integers(1, max(1, hi)))


@st.composite
def draw_matmul_shapes(draw, contract, budget):
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


def cumsum_params(shape: tuple[int, ...], axis: int) -> dict:
    return {"outer_count": math.prod(shape[:axis]), "dim_size": shape[axis],
            "inner_count": math.prod(shape[axis + 1:]), "axis": axis}


@st.composite
def draw_cumsum_shapes(draw, contract, budget):
    """(input shape,), params: an axis of a rank >= 1 shape and the counts around it."""
    rank = draw(st.integers(1, max(1, min(budget.max_rank, 3))))
    shape = []
    for _ in range(rank):
        room = max(1, budget.max_elements // max(1, math.prod(shape)))
        shape.append(_side(draw, min(budget.max_side + 3, room)))
    axis = draw(st.integers(0, rank - 1))
    return [tuple(shape)], cumsum_params(tuple(shape), axis)


def rows() -> list[OpDef]:
    return [
        OpDef("MatMul", "matmul", 2, False, SUMS, evaluate_matmul, hints=hints.summation,
              domain="out[b, i, j] = Σ_k lhs[b, i, k]·rhs[b', k, j]; b' = b / (lhs_dim / rhs_dim) "
                     "per batch axis; inf·0 = NaN",
              reduction_bound="sum", draw_shapes=draw_matmul_shapes, out_shape=matmul_out_shape),
        OpDef("CumSum", "scan", 1, False, SUMS, evaluate_cumsum, params="cumsum", hints=hints.summation,
              domain="inclusive prefix sum along axis", reduction_bound="sum",
              draw_shapes=draw_cumsum_shapes),
    ]
