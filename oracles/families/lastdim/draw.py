"""The row ops' cases: one input whose last axis is drawn up to the element budget, its
op params (``outer_count``/``last_dim`` from the shape, a norm's ``eps`` from a few realistic
powers of two, exact in every format), value hints, a norm's rows around a large common offset,
and the long rows that expose a narrow accumulator or a one-pass variance.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import PATTERNS
from numerics.rounding import float_spec
from oracles.drawing import long_row_case
from oracles.hints import hints, neighbours
from oracles.opdef import ParamRule

EPS_VALUES = (2.0**-20, 2.0**-17, 2.0**-13)  # ~1e-6, ~7.6e-6, ~1.2e-4
OFFSETS = (1024.0, 4096.0, -2048.0, 512.0)
SPREADS = (1 / 4, 1 / 8, 1 / 2, 1.0)
# The long rows of the row ops also come around a large common offset (``numerics.long_rows``).
LONG_PATTERNS = (*PATTERNS, "offset")


def _row_geometry(shape: tuple[int, ...]) -> dict[str, int]:
    last = shape[-1] if shape else 1
    return {"outer_count": math.prod(shape[:-1]) if shape else 1, "last_dim": last}


def _softmax_params(draw, shape, fields, nonempty):
    return _row_geometry(shape)


def _norm_params(draw, shape, fields, nonempty):
    return {**_row_geometry(shape), "eps": draw(st.sampled_from(EPS_VALUES))}


SOFTMAX = ParamRule(_softmax_params, lambda shape, fields: _row_geometry(shape))
NORM = ParamRule(_norm_params, lambda shape, fields: {**_row_geometry(shape), "eps": 2.0**-20})


@hints
def softmax_hints(fmt):
    """Values past exp's overflow threshold of the format (a kernel that skips the max shift
    overflows there), equal values (exact 1/k results) and a -inf beside them."""
    s = float_spec(fmt)
    over = (s.emax + 1) * math.log(2)
    return [0.0, 1.0, 1.0, -1.0, 0.5, 3.0, 2 * over, -over, 1000.0, -math.inf, *neighbours(fmt, over, 2)]


@hints
def norm_hints(fmt):
    """A large common offset with a small spread (a one-pass variance cancels), values near
    sqrt(eps), squares that overflow F16 and the F32/F64 accumulators."""
    s = float_spec(fmt)
    acc = float_spec("F32" if fmt in ("F16", "BF16") else fmt)
    offset = [1024.0 + k / 4 for k in range(-4, 5)]
    square_overflow = [math.sqrt(2.0**acc.emax) * 1.5] if s.emax >= acc.emax else []
    return [*offset, 2.0**-10, -(2.0**-8), 256.0, -300.0, 3.0, *square_overflow, 2.0 ** (s.emin + 2)]


def _row_shapes_of(rule: ParamRule, contract, budget):
    spec = contract.inputs[0]
    lo = spec.rank.lo
    hi = budget.max_rank if spec.rank.hi is None else min(spec.rank.hi, budget.max_rank)

    @st.composite
    def draw(draw):
        rank = draw(st.integers(lo, max(lo, hi)))
        if rank == 0:
            shape = ()
        else:
            lead = draw(st.lists(st.integers(1, 3), min_size=rank - 1, max_size=rank - 1))
            room = max(1, budget.max_elements // max(1, math.prod(lead)))
            last = 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, room))
            shape = (*lead, last)
        return [shape], rule.draw(draw, shape, contract.op_params, False)

    return draw()


def draw_shapes(draw, contract, opdef, budget):
    """One input whose last axis is drawn up to the element budget (an empty one about one draw
    in sixteen), the leading axes short."""
    return draw(_row_shapes_of(opdef.params, contract, budget))


def _offset_rows(i, dtype, shapes, params):
    """Half the arrays as the default generator draws them, half as a large common offset plus
    small multiples of a spread: the rows where a one-pass variance E[x²] − E[x]² cancels."""
    from numerics.formats import get_format
    from numerics.values import value_array

    shape = tuple(shapes[i])
    n = math.prod(shape)
    t = get_format(dtype).numpy_dtype
    steps = st.lists(st.integers(-8, 8), min_size=n, max_size=n)
    offset = st.builds(lambda base, spread, ks: (base + spread * np.array(ks, np.float64)).astype(t).reshape(shape),
                       st.sampled_from(OFFSETS), st.sampled_from(SPREADS), steps)
    return st.one_of(value_array(dtype, shape, tuple(norm_hints(dtype))), offset)


def draw_input(opdef, i, dtype, shapes, params):
    """A norm's input: half of it around a large common offset."""
    return _offset_rows(i, dtype, shapes, params) if opdef.params is NORM else None


def long_case(contract, opdef, dtypes, longest, operand):
    """One or two long rows, the norms' also around a large common offset."""
    return long_row_case(contract, dtypes, longest, operand, patterns=LONG_PATTERNS,
                         params_for=lambda draw, shape: opdef.params.draw(draw, shape, contract.op_params, True))
