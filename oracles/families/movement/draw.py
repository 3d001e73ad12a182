"""Generated cases of the data-movement family: shapes tied to Fuel's op params, in-range
indices, masks of 0/1 and other nonzero bytes, and float data salted with NaN payloads.

Per OpKind, a ``SHAPES`` strategy draws the operands' logical shapes and the op params Fuel's
dispatch would pass for them (``draw_shapes``); ``draw_input`` draws the operands whose values are
constrained, and float data with signalling and payload NaNs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np
from hypothesis import strategies as st

from numerics.values import int_param

# Byte values a mask holds: 1 and 0 mostly, and other nonzero bytes (which must fill too).
MASK_BYTES = (1, 0, 1, 0, 2, 0x80, 0xFF)


def _rank_range(contract, budget, lo: int = 0) -> tuple[int, int]:
    rank = contract.inputs[0].rank
    low = max(rank.lo, lo)
    high = budget.max_rank if rank.hi is None else min(rank.hi, max(budget.max_rank, low))
    return low, max(low, high)


@st.composite
def _shape(draw, contract, budget, lo: int = 0) -> list[int]:
    """A shape within the contract's rank and the budget; an empty axis about one draw in 16."""
    rank = draw(st.integers(*_rank_range(contract, budget, lo)))
    dims, used = [], 1
    for _ in range(rank):
        hi = max(1, min(budget.max_side, budget.max_elements // max(used, 1)))
        side = 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, hi))
        dims.append(side)
        used *= max(side, 1)
    return dims


def _kind(contract, name: str) -> str:
    """The integer kind a contract names for op param ``name`` (i64 where it names none)."""
    found = contract.op_params.field(name)
    return found.kind if found is not None else "i64"


def _slab(shape: Sequence[int], axis: int) -> dict[str, int]:
    return {"outer_count": prod(shape[:axis]), "dim_size": shape[axis],
            "inner_count": prod(shape[axis + 1:])}


@st.composite
def _concat(draw, contract, budget):
    base = draw(_shape(contract, budget, lo=1))
    axis = draw(st.integers(0, len(base) - 1))
    room = max(1, budget.max_elements // max(1, prod(base) // max(base[axis], 1)))
    sizes = [draw(st.integers(0, min(budget.max_side, room))) for _ in contract.inputs]
    shapes = [tuple(base[:axis] + [n] + base[axis + 1:]) for n in sizes]
    slab = _slab(base, axis)
    return shapes, {"outer_count": slab["outer_count"], "input_dim_sizes": sizes,
                    "inner_count": slab["inner_count"], "axis": axis}


@st.composite
def _index_select(draw, contract, budget):
    source = draw(_shape(contract, budget, lo=1))
    axis = draw(st.integers(0, len(source) - 1))
    n = draw(st.integers(0, budget.max_side + 2)) if source[axis] else 0
    slab = _slab(source, axis)
    return [tuple(source), (n,)], {"outer_count": slab["outer_count"],
                                   "source_dim_size": slab["dim_size"], "n_indices": n,
                                   "inner_count": slab["inner_count"]}


@st.composite
def _gather(draw, contract, budget):
    source = draw(_shape(contract, budget, lo=1))
    dim = draw(st.integers(0, len(source) - 1))
    source[dim] = max(source[dim], 1)  # an index needs a slot to point at
    out = list(source)
    out[dim] = draw(st.integers(0, budget.max_side))
    return [tuple(source), tuple(out)], {"source_shape": source, "output_shape": out, "dim": dim}


_MOVED_LENGTHS = (3, 5, 7, 6, 3, 5, 7, 4, 2, 1)


def _along(with_shift: bool):
    @st.composite
    def draw_it(draw, contract, budget):
        shape = draw(_shape(contract, budget, lo=1))
        axis = draw(st.integers(0, len(shape) - 1))
        if shape[axis]:  # the axis that moves: mostly a length that is no power of two, where
            # neither a reversal nor a turn can map it onto itself by accident
            room = budget.max_elements // max(1, prod(s for a, s in enumerate(shape) if a != axis))
            shape[axis] = min(draw(st.sampled_from(_MOVED_LENGTHS)), max(1, room))
        params = {**_slab(shape, axis), "axis": axis}
        if with_shift:  # within a few turns, and far beyond (a shift wraps modulo dim_size),
            # and where a shift narrowed to 32 bits wraps to another turn
            n = shape[axis]
            usual = st.one_of(st.integers(-2 * n - 1, 2 * n + 1), st.integers(-(2**40), 2**40))
            params["shift"] = draw(int_param(_kind(contract, "shift"), usual, axis=n))
        return [tuple(shape)], params

    return draw_it


@st.composite
def _triangular(draw, contract, budget):
    shape = draw(_shape(contract, budget, lo=2))
    rows, cols = shape[-2], shape[-1]
    diagonal = draw(int_param(_kind(contract, "diagonal"), st.integers(-rows - 1, cols + 1),
                              axis=max(rows, cols)))
    return [tuple(shape)], {"batch_count": prod(shape[:-2]), "rows": rows, "cols": cols,
                            "diagonal": diagonal}


@st.composite
def _masked_fill(draw, contract, budget):
    """The fill element depends on the item's dtype, which the shapes do not know: it is drawn
    with the data (``draw_input``) and written into these params there."""
    shape = tuple(draw(_shape(contract, budget)))
    return [shape, shape], {"fill_bytes": None}


SHAPES: dict[str, Callable[..., Any]] = {
    "Concat": _concat,
    "IndexSelect": _index_select,
    "Gather": _gather,
    "Flip": _along(False),
    "Roll": _along(True),
    "Triu": _triangular,
    "Tril": _triangular,
    "MaskedFill": _masked_fill,
}


def draw_shapes(draw, contract, opdef, budget):
    """``Family.draw_shapes``: the OpKind's own shapes-and-params strategy, drawn."""
    return draw(SHAPES[opdef.op_kind](contract, budget))


@st.composite
def data(draw, dtype: str, shape: tuple[int, ...]):
    """The values a kernel moves: edge-biased (``numerics.values``, which shrink towards one
    repeated value), or, three cases in four, any bit patterns, all distinct with near certainty:
    a copy to the wrong place shows only where the values differ."""
    from numerics.formats import get_format
    from numerics.values import SEED, raw_words, reserved_bits, value_array

    fmt = get_format(dtype)
    if fmt.kind == "bool" or draw(st.integers(0, 3)) == 0:
        return draw(value_array(dtype, shape))
    n = prod(shape)
    bits = raw_words(draw(SEED), n) & np.uint64((1 << fmt.bits) - 1)
    for reserved in reserved_bits(dtype):  # the poison marks unwritten outputs, never an input
        bits[bits == reserved] = 0
    return bits.astype(fmt.bits_dtype).view(fmt.numpy_dtype).reshape(shape)


@st.composite
def float_data(draw, dtype: str, shape: tuple[int, ...]):
    """Edge-biased values (``numerics.values``) with a few elements turned into signalling or
    payload NaNs or -0.0; shrinks to none."""
    from numerics.formats import get_format
    from numerics.values import nan_payload_bits

    stored = draw(data(dtype, shape))
    n = stored.size
    if n == 0:
        return stored
    fmt = get_format(dtype)
    bits = stored.reshape(-1).view(fmt.bits_dtype).copy()
    salt = (*nan_payload_bits(dtype), 1 << (fmt.bits - 1))  # and -0.0: a copy keeps its sign
    hits = st.tuples(st.integers(0, n - 1), st.sampled_from(salt))
    for i, b in draw(st.lists(hits, max_size=min(n, 4))):
        bits[i] = b
    return bits.view(fmt.numpy_dtype).reshape(shape)


def _indices(shape: Sequence[int], bound: int):
    n = prod(shape)
    values = st.lists(st.integers(0, max(bound - 1, 0)), min_size=n, max_size=n)
    return values.map(lambda v: np.array(v, dtype=np.uint32).reshape(tuple(shape)))


def _mask(shape: Sequence[int]):
    n = prod(shape)
    values = st.lists(st.sampled_from(MASK_BYTES), min_size=n, max_size=n)
    return values.map(lambda v: np.array(v, dtype=np.uint8).reshape(tuple(shape)))


def draw_input(opdef, i: int, dtype: str, shapes: Sequence[tuple[int, ...]], params: dict):
    """``Family.draw_input``: indices, masks, and float data with NaN payloads."""
    from numerics.formats import get_format

    if dtype == "U32" and i == 1 and "n_indices" in params:
        return _indices(shapes[1], params["source_dim_size"])
    if dtype == "U32" and i == 1 and "source_shape" in params:
        return _indices(shapes[1], params["source_shape"][params["dim"]])
    if dtype == "U8" and i == 1 and "fill_bytes" in params:
        return _mask(shapes[1])
    if i == 0 and "fill_bytes" in params:
        return _data_and_fill(dtype, tuple(shapes[0]), params)
    if get_format(dtype).is_float:
        return float_data(dtype, tuple(shapes[i]))
    return data(dtype, tuple(shapes[i]))


def fill_bits(dtype: str):
    """One fill element's bits: a signed zero (−0.0 first: its sign is what a memset fast path
    loses, and where shrinking leads), a NaN with a payload (what a trip through another float
    format loses), or ``numerics.values.param_bits`` (as often special as an array's elements),
    each a third of the time."""
    from numerics.formats import get_format
    from numerics.values import nan_payload_bits, param_bits

    fmt = get_format(dtype)
    if not fmt.is_float:
        return param_bits(dtype)
    return st.one_of(st.sampled_from((1 << (fmt.bits - 1), 0)), st.sampled_from(nan_payload_bits(dtype)),
                     param_bits(dtype))


@st.composite
def _data_and_fill(draw, dtype: str, shape: tuple[int, ...], params: dict):
    """MaskedFill's data, and its fill element written into ``params`` as little-endian
    ``fill_bytes`` (one element of the data dtype)."""
    from numerics.formats import get_format

    fmt = get_format(dtype)
    values = draw(float_data(dtype, shape) if fmt.is_float else data(dtype, shape))
    params["fill_bytes"] = list(draw(fill_bits(dtype)).to_bytes(fmt.itemsize, "little"))
    return values
