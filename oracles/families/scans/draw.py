"""The scans' cases: operand shapes tied through the op params, the operands whose values the
contracts restrict (decays a ≤ 0; steps ≥ 0 where no softplus makes them positive; steps and
decays finite), and the long sequences where an accumulated error shows.

Sizes stay within the budget's element count. Free operands (u / x, b, c) are the harness's
edge-biased values, NaN and ±inf included; an empty axis comes one draw in sixteen.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.arrays import finite_within, signed_magnitudes
from numerics.formats import get_format
from numerics.long_rows import draw_row, rows_of
from numerics.rounding import decode_float, float_spec
from numerics.values import value_array
from oracles.drawing import operand_span
from oracles.hints import hints

LONG_SCAN = 1024  # the longest sequence of a long case: the pure oracle walks every step
CHUNKS = (16, 32, 64)  # chunk lengths of a long SsdChunkScan


@hints
def data_hints(fmt):
    """Moderate values for the drive and readout operands."""
    return [0.0, 1.0, -1.0, 0.5, 2.0, -0.25, 3.0]


@hints
def step_hints(fmt):
    """Steps: small ones (a decay near 1, a long memory), zero, and values past softplus's
    switch to the identity in common libraries (x > 20), where its error is largest."""
    return [0.0, 2.0**-6, 2.0**-3, 0.5, 1.0, -1.0, -4.0, 20.5, 24.0, 30.0]


@hints
def decay_hints(fmt):
    return [0.0, -1.0, -0.5, -(2.0**-6), -2.0, -8.0]


def _empty_flag(draw, axes: int) -> int:
    """The axis left empty (one draw in sixteen), or -1."""
    return draw(st.integers(0, axes - 1)) if draw(st.integers(0, 15)) == 15 else -1


def _side(draw, axis: int, empty: int, hi: int) -> int:
    return 0 if axis == empty else draw(st.integers(1, max(1, hi)))


@st.composite
def _selective_shapes(draw, budget):
    empty = _empty_flag(draw, 4)
    batch, dim, dstate = (_side(draw, k, empty, hi) for k, hi in ((0, 2), (1, 3), (2, 4)))
    room = budget.max_elements // max(1, batch * max(dim, dstate))
    seqlen = _side(draw, 3, empty, min(8, room))
    params = {"batch": batch, "seqlen": seqlen, "dim": dim, "dstate": dstate,
              "delta_softplus": draw(st.booleans())}
    tokens, states = (batch, seqlen, dim), (batch, seqlen, dstate)
    return [tokens, tokens, (dim, dstate), states, states], params


@st.composite
def _ssd_shapes(draw, budget):
    empty = _empty_flag(draw, 5)
    batch, heads, p, n = (_side(draw, k, empty, hi) for k, hi in ((0, 2), (1, 2), (2, 2), (3, 3)))
    chunk = draw(st.integers(1, 4))
    room = budget.max_elements // max(1, batch * heads * max(p, n) * chunk)
    seqlen = 0 if empty == 4 else chunk * draw(st.integers(1, max(1, min(3, room))))
    params = {"batch": batch, "seqlen": seqlen, "heads": heads, "head_dim": p, "state_dim": n,
              "chunk_size": chunk}
    states = (batch, seqlen, heads, n)
    return [(batch, seqlen, heads, p), (batch, seqlen, heads), (heads,), states, states], params


def draw_shapes(draw, contract, opdef, budget):
    shapes = _ssd_shapes if opdef.op_kind == "SsdChunkScan" else _selective_shapes
    return draw(shapes(budget))


def domain_values(arr: np.ndarray, dtype: str, sign: str) -> np.ndarray:
    """``arr`` within a restricted operand's domain: infinities to the largest finite value of
    their sign, then magnitudes (sign "nonneg") or negated magnitudes ("nonpos"); NaN stays."""
    s = float_spec(dtype)
    big = decode_float(s.inf_mag - 1, s)
    with np.errstate(invalid="ignore"):
        v = arr.astype(np.float64)
        v = signed_magnitudes(finite_within(v, big), sign)
        return v.astype(get_format(dtype).numpy_dtype)


def _restricted(dtype: str, shape, values_hints, sign: str):
    return value_array(dtype, tuple(shape), tuple(values_hints(dtype))).map(
        lambda arr: domain_values(arr, dtype, sign))


def draw_input(opdef, i, dtype, shapes, params):
    """The steps (delta / dt) and decays (a); the other operands are free."""
    if i == 1:  # delta / dt
        softplus = opdef.op_kind == "SelectiveScan" and params.get("delta_softplus")
        return _restricted(dtype, shapes[i], step_hints, "any" if softplus else "nonneg")
    if i == 2:  # a
        return _restricted(dtype, shapes[i], decay_hints, "nonpos")
    return None


def _uniform(rng, lo: float, hi: float, dtype: str, sign: float = 1.0):
    t = get_format(dtype).numpy_dtype
    return lambda count: (sign * rng.uniform(lo, hi, count)).astype(t)


@st.composite
def _long_scan(draw, contract, opdef, dtypes: tuple[str, ...], longest: int, operand):
    """One lane over a long sequence: the drive follows a long-row pattern (``numerics
    .long_rows``; equal values, one large value then half-ulp ones, random, cancelling pairs),
    steps small enough that the state remembers hundreds of steps, readouts near 1."""
    length, pattern, value, rng = draw_row(draw, min(longest, LONG_SCAN))
    n = draw(st.integers(1, 2))
    random = pattern == "random"
    data = lambda count: rows_of(pattern, count, length, dtypes[0], rng, value)  # noqa: E731
    readout = _uniform(rng, 0.5, 1.5, dtypes[4]) if random else _uniform(rng, 1.0, 1.0, dtypes[4])
    drive = _uniform(rng, 0.5, 1.5, dtypes[3]) if random else _uniform(rng, 1.0, 1.0, dtypes[3])
    if opdef.op_kind == "SsdChunkScan":
        chunk = draw(st.sampled_from(CHUNKS))
        shapes = [(1, length, 1, 1), (1, length, 1), (1,), (1, length, 1, n), (1, length, 1, n)]
        params = {"batch": 1, "seqlen": length, "heads": 1, "head_dim": 1, "state_dim": n,
                  "chunk_size": chunk}
        steps = _uniform(rng, 2.0**-8, 2.0**-5, dtypes[1])
    else:
        softplus = draw(st.booleans())
        shapes = [(1, length, 1), (1, length, 1), (1, n), (1, length, n), (1, length, n)]
        params = {"batch": 1, "seqlen": length, "dim": 1, "dstate": n, "delta_softplus": softplus}
        steps = _uniform(rng, -7.0, -4.0, dtypes[1]) if softplus else _uniform(rng, 2.0**-8, 2.0**-5, dtypes[1])
    fills = [data, steps, _uniform(rng, 0.25, 2.0, dtypes[2], -1.0), drive, readout]
    operands = [draw(operand_span(operand, spec, dt, shape, fill))
                for spec, dt, shape, fill in zip(contract.inputs, dtypes, shapes, fills, strict=True)]
    return operands, params


def long_case(contract, opdef, dtypes, longest, operand):
    return _long_scan(contract, opdef, dtypes, longest, operand)
