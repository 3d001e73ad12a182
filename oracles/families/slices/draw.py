"""Generated cases of the slices family: destination shapes and the slabs written into them,
ring geometry whose writes wrap around the modulus, U32 positions, and data of distinct bit
patterns (a value copied to the wrong place shows only where the values differ).

A slab's range on each axis is drawn by a mode of ``RANGE_MODES``: the whole axis, a range
ending at the axis's end (where a write one element too far leaves the destination), one
starting at 0, one strictly inside, or an empty one. A ring write's position is drawn by a mode
of ``POSITION_MODES``: inside the ring, placed so the slab wraps past the modulus, several
turns of the ring further on, or near the top of U32 (where a sum narrowed to 32 bits wraps).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from hypothesis import strategies as st

RANGE_MODES = ("full", "tail", "head", "inner", "empty")
POSITION_MODES = ("wraps", "inside", "turns", "u32_top")
U32_TOP = (1 << 32) - 1


def _rank_range(contract, budget) -> tuple[int, int]:
    rank = contract.inputs[0].rank
    low = max(rank.lo, 1)
    high = budget.max_rank if rank.hi is None else min(rank.hi, max(budget.max_rank, low))
    return low, max(low, high)


@st.composite
def dest_shape(draw, contract, budget) -> list[int]:
    """A destination shape within the contract's rank and the budget."""
    rank = draw(st.integers(*_rank_range(contract, budget)))
    return draw(_sides(budget, rank, None))


@st.composite
def _sides(draw, budget, rank: int, ring: int | None) -> list[int]:
    """``rank`` sides within the budget. Without a ring an axis is empty about one draw in
    sixteen (more, as Hypothesis favours the top value); a ring's destination has no empty
    axis (its slab may still be empty), and its ring axis holds at least two slots and may be a
    little longer, so that the ring has room to wrap."""
    dims, used = [0] * rank, 1
    order = ([ring] if ring is not None else []) + [d for d in range(rank) if d != ring]
    for d in order:  # the ring's side first, so the budget leaves it room to wrap
        extra = 3 if d == ring else 0
        hi = max(1, min(budget.max_side + extra, budget.max_elements // max(used, 1)))
        empty = ring is None and draw(st.integers(0, 15)) == 15
        side = 0 if empty else draw(st.integers(2 if d == ring and hi > 1 else 1, hi))
        dims[d] = side
        used *= max(side, 1)
    return dims


@st.composite
def axis_range(draw, n: int) -> tuple[int, int]:
    """(start, end) with 0 <= start <= end <= n, by a mode of ``RANGE_MODES``."""
    mode = draw(st.sampled_from(RANGE_MODES))
    if n == 0 or mode == "full":
        return 0, n
    if mode == "tail":
        return draw(st.integers(0, n - 1)), n
    if mode == "head":
        return 0, draw(st.integers(1, n))
    if mode == "empty":
        at = draw(st.integers(0, n))
        return at, at
    start = draw(st.integers(0, n - 1))
    return start, draw(st.integers(start, n))


@st.composite
def _write_slice(draw, contract, budget):
    dest = draw(dest_shape(contract, budget))
    ranges = [draw(axis_range(n)) for n in dest]
    source = tuple(e - s for s, e in ranges)
    return [tuple(dest), source], {"dest_shape": dest, "ranges": [list(r) for r in ranges]}


@st.composite
def _rotating(draw, contract, budget):
    rank = draw(st.integers(*_rank_range(contract, budget)))
    axis = draw(st.integers(0, rank - 1))
    dest = draw(_sides(budget, rank, axis))
    n = dest[axis]
    modulus = n if draw(st.booleans()) else draw(st.integers(1, n))  # the ring fills the axis, or part of it
    width = draw(st.sampled_from(("ring", "one", "any")))
    width = modulus if width == "ring" else 1 if width == "one" else draw(st.integers(0, modulus))
    ranges = [draw(axis_range(m)) if d != axis else None for d, m in enumerate(dest)]
    ignored = draw(st.integers(0, n - width))  # the ring axis's start is not read: any value will do
    ranges[axis] = (ignored, ignored + width)
    source = tuple(e - s for s, e in ranges)
    params = {"dest_shape": dest, "axis": axis, "modulus": modulus, "ranges": [list(r) for r in ranges]}
    return [tuple(dest), source, ()], params


@st.composite
def _copy(draw, contract, budget):
    """Any shape; one case in two the element count is odd (where a kernel moving two elements
    at a time has a tail to handle)."""
    shape = draw(dest_shape(contract, budget))
    if draw(st.booleans()) and shape and math.prod(shape) % 2 == 0 and shape[-1]:
        shape = [s if s % 2 or s == 0 else s - 1 for s in shape]
    return [tuple(shape)], {}


SHAPES = {"WriteSlice": _write_slice, "WriteSliceRotating": _rotating, "Copy": _copy}


def draw_shapes(draw, contract, opdef, budget):
    """``Family.draw_shapes``: the operands' shapes and the op params Fuel's dispatch passes."""
    return draw(SHAPES[opdef.op_kind](contract, budget))


@st.composite
def position(draw, modulus: int, width: int):
    """A U32 ring position, by a mode of ``POSITION_MODES`` (shrinking to one that wraps)."""
    mode = draw(st.sampled_from(POSITION_MODES))
    if mode == "wraps" and width >= 2 and modulus >= 2:
        return draw(st.integers(modulus - width + 1, modulus - 1))
    if mode == "turns":
        return draw(st.integers(1, 1000)) * modulus + draw(st.integers(0, modulus - 1))
    if mode == "u32_top":
        return U32_TOP - draw(st.integers(0, 2 * modulus))
    return draw(st.integers(0, modulus - 1))


def draw_input(opdef, i: int, dtype: str, shapes: Sequence[tuple[int, ...]], params: dict):
    """``Family.draw_input``: the ring position (operand 2 of a rotating write), and data of
    distinct bit patterns (NaN payloads and -0.0 in float data) for the rest."""
    from numerics.formats import get_format
    from oracles.families.movement.draw import data, float_data

    if opdef.op_kind == "WriteSliceRotating" and i == 2:
        width = shapes[1][int(params["axis"])]
        return position(int(params["modulus"]), width).map(lambda p: np.array(p, dtype=np.uint32))
    shape = tuple(shapes[i])
    return float_data(dtype, shape) if get_format(dtype).is_float else data(dtype, shape)
