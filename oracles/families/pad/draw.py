"""Pad's and PadBackward's cases: a shape within the budget, a (before, after) pair per axis
within what the mode allows (Reflect at most n − 1, Replicate nothing on an empty axis), the
mode the contract fixes or any of the three, and Pad's fill element: a signed zero one draw in
three (a fill written as +0 for -0.0 shows there), a NaN with a payload one in three, any
element otherwise. Float data carries signalling and payload NaNs and -0.0, which a copy keeps.
The long case of PadBackward replicates one or two edge elements hundreds of times: their
gradients are long sums.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import draw_row, rows_of
from oracles.drawing import fixed_value, operand_span

MAX_PAD = 3


def fixed_mode(contract) -> int | None:
    """The mode_tag the contract's accept clause fixes (``== 0``: Constant only), or None."""
    value = fixed_value(contract.op_params, "mode_tag")
    return None if value is None else int(value)


def _pair(draw, n: int, mode: int) -> list[int]:
    hi = MAX_PAD if mode == 0 else (max(0, n - 1) if mode == 1 else (MAX_PAD if n else 0))
    hi = min(hi, MAX_PAD)
    return [draw(st.integers(0, hi)), draw(st.integers(0, hi))]


@st.composite
def _pad_case(draw, contract, budget):
    """(in shape, params without the fill): rank within the contract and the budget, an empty
    axis about one draw in 16."""
    spec = contract.inputs[0]
    hi = budget.max_rank if spec.rank.hi is None else min(spec.rank.hi, budget.max_rank)
    rank = draw(st.integers(spec.rank.lo, max(spec.rank.lo, hi)))
    mode = fixed_mode(contract)
    mode = draw(st.integers(0, 2)) if mode is None else mode
    shape, used = [], 1
    for _ in range(rank):
        top = max(1, min(budget.max_side, budget.max_elements // max(used, 1)))
        side = 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, top))
        shape.append(side)
        used *= max(side, 1)
    pads = [_pair(draw, n, mode) for n in shape]
    out = [n + b + a for n, (b, a) in zip(shape, pads, strict=True)]
    return tuple(shape), {"in_shape": shape, "out_shape": out, "padding": pads, "mode_tag": mode}


def draw_shapes(draw, contract, opdef, budget):
    shape, params = draw(_pad_case(contract, budget))
    if opdef.op_kind == "PadBackward":
        return [tuple(params["out_shape"])], params
    params["fill_bytes"] = None  # one element of the item's dtype: drawn with the data
    return [shape], params


@st.composite
def fill_element(draw, dtype: str) -> int:
    """The fill's bits: ±0, a payload NaN, or any element (never the output poison)."""
    from numerics.formats import get_format
    from numerics.values import element_bits, nan_payload_bits, reserved_bits

    fmt = get_format(dtype)
    choices = [element_bits(dtype)]
    if fmt.is_float:
        zeros = st.sampled_from((1 << (fmt.bits - 1), 0))  # -0.0 first: where shrinking leads
        choices = [zeros, st.sampled_from(nan_payload_bits(dtype)), element_bits(dtype)]
    which = draw(st.integers(0, len(choices) - 1))
    reserved = reserved_bits(dtype)
    return draw(choices[which].filter(lambda b: b not in reserved))


def _ramp(dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Every element distinct (quarters around zero; small integers), so an output that reads
    the wrong source position (a reflection that repeats the edge) shows whatever the data."""
    from numerics.formats import get_format

    n = math.prod(shape)
    fmt = get_format(dtype)
    values = (np.arange(n) - n // 2) / 4 if fmt.is_float else np.arange(n) % 251 + 1
    return values.astype(fmt.numpy_dtype).reshape(shape)


@st.composite
def _data_and_fill(draw, dtype: str, shape: tuple[int, ...], params: dict):
    """Pad's data (with NaN payloads and -0.0 where it is float; one array in three a ramp of
    distinct values) and its fill element, written into ``params`` as little-endian
    ``fill_bytes``."""
    from numerics.formats import get_format
    from numerics.values import value_array
    from oracles.families.movement.draw import float_data

    fmt = get_format(dtype)
    if draw(st.integers(0, 2)) == 2:
        data = _ramp(dtype, shape)
    else:
        data = draw(float_data(dtype, shape) if fmt.is_float else value_array(dtype, shape))
    params["fill_bytes"] = list(draw(fill_element(dtype)).to_bytes(fmt.itemsize, "little"))
    return data


def draw_input(opdef, i, dtype, shapes, params):
    if opdef.op_kind == "Pad" and i == 0:
        return _data_and_fill(dtype, tuple(shapes[0]), params)
    return None


@st.composite
def _long_replicate(draw, contract, dtypes, longest, operand):
    """PadBackward under Replicate of a row of one or two elements padded by about n on each
    side: each edge element receives about n gradients, which follow a long-row pattern."""
    n, pattern, value, rng = draw_row(draw, min(longest, 1024))
    size = draw(st.integers(1, 2))
    before = n // 2 - 1 + draw(st.integers(0, 1))
    after = n - before - size
    out = before + size + after
    grad = draw(operand_span(operand, contract.inputs[0], dtypes[0], (out,),
                             lambda count: rows_of(pattern, count, out, dtypes[0], rng, value)))
    return [grad], {"in_shape": [size], "out_shape": [out], "padding": [[before, after]], "mode_tag": 2}


def long_case(contract, opdef, dtypes, longest, operand):
    """PadBackward's long sums, where the contract admits Replicate."""
    if opdef.op_kind != "PadBackward" or fixed_mode(contract) not in (None, 2):
        return None
    return _long_replicate(contract, dtypes, longest, operand)


def size_plan(contract, opdef, n):
    """PadBackward: a gradient of n elements, the padding of a row of n - 2 by one element on
    each side, in the mode the contract fixes (Constant where it admits any). Pad has no size
    plan: its fill element is one element of the measured dtype, which ``Family.size_plan`` is
    not told."""
    if opdef.op_kind == "Pad":
        raise ValueError(f"{contract.kernel}: Pad has no size plan: its fill_bytes is one element "
                         "of the measured dtype, which the size plan is not told")
    side = 1 if n >= 3 else 0
    params = {"in_shape": [n - 2 * side], "out_shape": [n], "padding": [[side, side]],
              "mode_tag": fixed_mode(contract) or 0}
    return [(n,)], params
