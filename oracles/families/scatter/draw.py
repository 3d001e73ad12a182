"""Generated cases of the scatter family: shapes tied to Fuel's op params, and indices with
duplicates drawn on purpose and often (where the bugs of a scatter live).

``draw_shapes`` draws the base and src shapes and the op params Fuel's dispatch would pass;
``draw_input`` draws the U32 indices within the scattered axis in one of four modes: all equal
(every contribution into one slot per line), a pool of one or two values (long duplicate runs),
free (duplicates by chance), and distinct along the axis where it fits (single contributions).
The long case (``long_case``) piles hundreds to thousands of contributions onto a few slots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import PATTERNS, draw_row, rows_of
from oracles.drawing import operand_span

MODES = ("equal", "pool", "free", "distinct")


def _rank_range(contract, budget) -> tuple[int, int]:
    rank = contract.inputs[0].rank
    low = max(rank.lo, 1)
    high = budget.max_rank if rank.hi is None else min(rank.hi, max(budget.max_rank, low))
    return low, max(low, high)


def _side(draw, hi: int) -> int:
    """1..hi, and 0 about one draw in sixteen (the top value, so shrinking leaves it)."""
    return 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, max(1, hi)))


@st.composite
def _frame(draw, contract, budget):
    """(shape, dim): a shape of the contract's rank within the budget, and the scattered axis,
    whose extent is filled in by the caller."""
    rank = draw(st.integers(*_rank_range(contract, budget)))
    dim = draw(st.integers(0, rank - 1))
    shape, used = [], 1
    for _ in range(rank):
        side = _side(draw, min(budget.max_side, max(1, budget.max_elements // (4 * used))))
        shape.append(side)
        used *= max(side, 1)
    return shape, dim


def _room(shape: list[int], dim: int, budget) -> int:
    return max(1, budget.max_elements // max(1, math.prod(s for d, s in enumerate(shape) if d != dim)))


@st.composite
def _scatter(draw, contract, budget):
    shape, dim = draw(_frame(contract, budget))
    room = _room(shape, dim, budget)
    slots = draw(st.integers(1, max(1, min(budget.max_side, room))))  # an index needs a slot
    count = min(draw(st.integers(0, budget.max_side + 3)), room)  # often more than slots
    base, src = list(shape), list(shape)
    base[dim], src[dim] = slots, count
    return [tuple(base), tuple(src), tuple(src)], {"base_shape": base, "src_shape": src, "dim": dim}


@st.composite
def _index(draw, contract, budget):
    shape, dim = draw(_frame(contract, budget))
    room = _room(shape, dim, budget)
    shape[dim] = draw(st.integers(1, max(1, min(budget.max_side, room))))
    n = min(draw(st.integers(0, budget.max_side + 3)), room)
    src = list(shape)
    src[dim] = n
    params = {"outer_count": math.prod(shape[:dim]), "base_dim_size": shape[dim], "n_indices": n,
              "inner_count": math.prod(shape[dim + 1:])}
    return [tuple(shape), (n,), tuple(src)], params


def draw_shapes(draw, contract, opdef, budget):
    """``Family.draw_shapes``: base, indices and src shapes and the op params."""
    return draw((_scatter if opdef.op_kind == "ScatterAdd" else _index)(contract, budget))


def _along(shape: Sequence[int], dim: int) -> list[int]:
    """Each element's (C order) coordinate along ``dim``."""
    inner = math.prod(shape[dim + 1:])
    return [(j // inner) % shape[dim] for j in range(math.prod(shape))]


@st.composite
def indices(draw, shape: tuple[int, ...], dim: int, bound: int):
    """U32 indices of ``shape`` in 0..bound, by a mode of ``MODES`` (shrinking to all equal)."""
    n, hi = math.prod(shape), max(bound - 1, 0)
    mode = draw(st.sampled_from(MODES))
    if mode == "equal":
        values = [draw(st.integers(0, hi))] * n
    elif mode == "pool":
        pool = draw(st.lists(st.integers(0, hi), min_size=1, max_size=2))
        values = draw(st.lists(st.sampled_from(pool), min_size=n, max_size=n))
    elif mode == "free":
        values = draw(st.lists(st.integers(0, hi), min_size=n, max_size=n))
    else:  # distinct along the axis where it is no longer than the base's
        start = draw(st.integers(0, hi))
        values = [(start + k) % max(bound, 1) for k in _along(shape, dim)] if n else []
    return np.array(values, dtype=np.uint32).reshape(shape)


def draw_input(opdef, i: int, dtype: str, shapes: Sequence[tuple[int, ...]], params: dict):
    """``Family.draw_input``: the indices (operand 1); base and src values are the harness's."""
    if i != 1:
        return None
    if "dim" in params:
        return indices(tuple(shapes[1]), int(params["dim"]), int(params["base_shape"][params["dim"]]))
    return indices(tuple(shapes[1]), 0, int(params["base_dim_size"]))


def _long_indices(spread: bool, slots: int, rng, slot: int):
    def fill(count: int) -> np.ndarray:
        if spread:
            return rng.integers(0, slots, count).astype(np.uint32)
        return np.array([slot] * count, dtype=np.uint32)

    return fill


@st.composite
def _long(draw, contract, opdef, dtypes: tuple[str, ...], longest: int, operand):
    """A few slots (one lane or two), hundreds to thousands of contributions along the axis,
    into one slot or spread over the few: an accumulator narrower than F32 for BF16/F16 (or a
    kernel that drops duplicates) cannot hide there."""
    n, pattern, value, rng = draw_row(draw, longest, PATTERNS)
    slots = draw(st.integers(1, 3))
    lanes = draw(st.integers(1, 2))
    spread = draw(st.booleans())
    slot = draw(st.integers(0, slots - 1))
    base_shape, src_shape = (lanes, slots), (lanes, n)

    def values(count: int) -> np.ndarray:
        return rows_of(pattern, count, n, dtypes[2], rng, value)

    def base_values(count: int) -> np.ndarray:
        return rows_of(pattern, count, max(1, count), dtypes[0], rng, value)

    if opdef.op_kind == "ScatterAdd":
        idx_shape = src_shape
        params = {"base_shape": list(base_shape), "src_shape": list(src_shape), "dim": 1}
    else:
        idx_shape = (n,)
        params = {"outer_count": lanes, "base_dim_size": slots, "n_indices": n, "inner_count": 1}
    fill = _long_indices(spread, slots, rng, slot)
    specs = contract.inputs
    base = draw(operand_span(operand, specs[0], dtypes[0], base_shape, base_values))
    idx = draw(operand_span(operand, specs[1], dtypes[1], idx_shape, fill))
    src = draw(operand_span(operand, specs[2], dtypes[2], src_shape, values))
    return [base, idx, src], params


def long_case(contract, opdef, dtypes, longest, operand):
    return _long(contract, opdef, dtypes, longest, operand)
