"""The last-axis row OpKinds: SoftmaxLastDim, LogSoftmaxLastDim, RmsNormLastDim, LayerNormLastDim.

Their table rows, op-param generators (``outer_count``/``last_dim`` from the shape, ``eps`` from a
few realistic powers of two, exact in every format), value hints and the evaluation skeleton that
cuts the input into rows and boxes the rows' results. The row semantics live in
``oracles.softmax`` (mpmath, imported on first use) and ``oracles.norms`` (exact rationals).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

from numerics.rounding import float_spec
from oracles.hints import hints, neighbours
from oracles.opdef import OpDef

EPS_VALUES = (2.0**-20, 2.0**-17, 2.0**-13)  # ~1e-6, ~7.6e-6, ~1.2e-4
ROWS = {"nan": "propagate"}


def _row_geometry(shape: tuple[int, ...]) -> dict[str, int]:
    last = shape[-1] if shape else 1
    return {"outer_count": math.prod(shape[:-1]) if shape else 1, "last_dim": last}


def _softmax_params(draw, shape, fields, nonempty):
    return _row_geometry(shape)


def _norm_params(draw, shape, fields, nonempty):
    return {**_row_geometry(shape), "eps": draw(st.sampled_from(EPS_VALUES))}


GENERATORS = {"softmax_last_dim": _softmax_params, "norm_last_dim": _norm_params}
EXAMPLES = {
    "softmax_last_dim": _row_geometry,
    "norm_last_dim": lambda shape: {**_row_geometry(shape), "eps": 2.0**-17},
}


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


OFFSETS = (1024.0, 4096.0, -2048.0, 512.0)
SPREADS = (1 / 4, 1 / 8, 1 / 2, 1.0)


def _row_shapes(kind: str):
    """draw_shapes for op-param generator ``kind``: one input whose last axis is drawn up to the
    element budget (an empty one about one draw in sixteen), the leading axes short."""
    return lambda contract, budget: _row_shapes_of(kind, contract, budget)


def _row_shapes_of(kind: str, contract, budget):
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
        return [shape], GENERATORS[kind](draw, shape, contract.op_params, False)

    return draw()


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


def _rows_of(x: np.ndarray, params: Mapping[str, Any]) -> tuple[np.ndarray, int]:
    last = x.shape[-1] if x.ndim else 1
    outer = x.size // last if last else math.prod(x.shape[:-1])
    want = (int(params.get("outer_count", outer)), int(params.get("last_dim", last)))
    if want != (outer, last):
        raise ValueError(f"params outer_count={want[0]}, last_dim={want[1]} do not match an input "
                         f"of shape {list(x.shape)} (expected {outer}, {last})")
    return x.reshape(outer, last), last


def _row_op(kind: str):
    def evaluate(inputs, params, out_dtypes, rules):
        from oracles import norms, softmax
        from oracles.families import float_output, output_spec
        from oracles.reductions import acc_format
        from oracles.shapes import as_floats, object_array

        fmt, s = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        rows, _ = _rows_of(x, params or {})
        acc_name = acc_format(x.dtype)
        acc = float_spec(acc_name)
        eps = Fraction(float((params or {}).get("eps", 0.0)))
        results, terms = [], []
        for row in rows:
            values = as_floats(row)
            if kind in ("softmax", "log_softmax"):
                r, t = softmax.softmax_row(values, s, acc, log=kind == "log_softmax")
            else:
                r, t = (norms.rms_row if kind == "rms" else norms.layer_row)(values, eps, s, acc)
            results += r
            terms += t
        return [float_output(results, fmt, x.shape, terms=object_array(terms, x.shape),
                             acc_format=acc_name)]

    evaluate.__name__ = f"{kind}_last_dim"
    return evaluate


SOFTMAX_DOMAIN = ("rows of the last axis; a NaN or +inf in a row, or a row of only -inf, makes the "
                  "row NaN; -inf beside a finite maximum gives +0 (log-softmax: -inf)")
NORM_DOMAIN = ("rows of the last axis, no affine; eps > 0 is added before the square root; a NaN "
               "makes the row NaN; ±inf: RmsNorm gives ±0 for finite x and NaN for the infinite "
               "ones, LayerNorm a NaN row; an overflowed sum of squares (±0, or NaN) is admitted "
               "where the accumulator can overflow")


def rows() -> list[OpDef]:
    def row(kind, op_kind, params, hint, domain):
        return OpDef(op_kind, "norm", 1, False, ROWS, _row_op(kind), params=params, hints=hint,
                     domain=domain, reduction_bound="sum",
                     draw_shapes=_row_shapes(params),
                     draw_input=_offset_rows if params == "norm_last_dim" else None)

    return [
        row("softmax", "SoftmaxLastDim", "softmax_last_dim", softmax_hints, SOFTMAX_DOMAIN),
        row("log_softmax", "LogSoftmaxLastDim", "softmax_last_dim", softmax_hints, SOFTMAX_DOMAIN),
        row("rms", "RmsNormLastDim", "norm_last_dim", norm_hints, NORM_DOMAIN),
        row("layer", "LayerNormLastDim", "norm_last_dim", norm_hints,
            NORM_DOMAIN + "; the population variance (divided by n)"),
    ]
