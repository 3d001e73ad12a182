"""The cumsum family: CumSum, an inclusive prefix sum along one axis, exact and rounded once per
element, element i held to i·u_acc·Σ|x_0..x_i| + ulp (``oracles.families.cumsum.evaluate``).

A case draws a shape of rank 1 to 3, an axis and the counts around it (Fuel's
outer_count / dim_size / inner_count); its long case scans one long axis, last or first, of one
or two lanes.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import draw_row, rows_of
from oracles import hints
from oracles.drawing import operand_span
from oracles.families.cumsum.evaluate import evaluate_cumsum
from oracles.family import Family, measured_shape
from oracles.opdef import OpDef

SUMS = {"nan": "propagate", "order": "free"}  # SPEC §4: the bound holds for any summation order


def rows() -> list[OpDef]:
    return [
        OpDef("CumSum", 1, False, SUMS, evaluate_cumsum, hints=hints.summation,
              domain="inclusive prefix sum along axis", reduction_bound="sum"),
    ]


def _side(draw, hi: int) -> int:
    """1..hi, and 0 about one draw in sixteen (the top value, so shrinking leaves it)."""
    if draw(st.integers(0, 15)) == 15:
        return 0
    return draw(st.integers(1, max(1, hi)))


def scan_params(shape: tuple[int, ...], axis: int) -> dict:
    return {"outer_count": math.prod(shape[:axis]), "dim_size": shape[axis],
            "inner_count": math.prod(shape[axis + 1:]), "axis": axis}


@st.composite
def _scan_shapes(draw, contract, budget):
    """(input shape,), params: an axis of a rank >= 1 shape and the counts around it."""
    rank = draw(st.integers(1, max(1, min(budget.max_rank, 3))))
    shape = []
    for _ in range(rank):
        room = max(1, budget.max_elements // max(1, math.prod(shape)))
        shape.append(_side(draw, min(budget.max_side + 3, room)))
    axis = draw(st.integers(0, rank - 1))
    return [tuple(shape)], scan_params(tuple(shape), axis)


def draw_shapes(draw, contract, opdef, budget):
    return draw(_scan_shapes(contract, budget))


@st.composite
def _long_scan(draw, contract, dtypes: tuple[str, ...], longest: int, operand):
    n, pattern, value, rng = draw_row(draw, longest)
    lanes = draw(st.integers(1, 2))
    first = draw(st.booleans())  # scan the leading axis (lanes inner) or the last one
    shape = (n, lanes) if first else (lanes, n)

    def values(count: int) -> np.ndarray:  # each lane one pattern row
        flat = rows_of(pattern, count, n, dtypes[0], rng, value)
        return flat.reshape(lanes, n).T.reshape(-1) if first and count == n * lanes else flat

    view = draw(operand_span(operand, contract.inputs[0], dtypes[0], shape, values))
    params = {"outer_count": 1 if first else lanes, "dim_size": n,
              "inner_count": lanes if first else 1, "axis": 0 if first else 1}
    return [view], params


def long_case(contract, opdef, dtypes, longest, operand):
    return _long_scan(contract, dtypes, longest, operand)


def size_plan(contract, opdef, n):
    """Rows of the last axis, scanned along it."""
    shape = measured_shape(contract, n, rows=True)
    last = len(shape) - 1
    return [shape for _ in contract.inputs], {"outer_count": math.prod(shape[:-1]),
                                              "dim_size": shape[-1], "inner_count": 1, "axis": last}


FAMILY = Family(
    name="cumsum",
    rows=rows,
    draw_shapes=draw_shapes,
    long_case=long_case,
    size_plan=size_plan,
)
