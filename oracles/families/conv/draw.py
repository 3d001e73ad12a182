"""The convolutions' cases: operand shapes tied through Fuel's op params and drawn with them
(groups, asymmetric padding, stride, dilation, a transposed convolution's output padding, a
causal convolution's pre-padded input), and the long reductions that expose a too-narrow
accumulator: a Conv2D window of 256 or 512 terms over channels and taps, a ConvTranspose2D
fed by as many input channels, a CausalConv1d kernel of 256 taps. Every side stays small
otherwise (the oracle's cost is outputs × reduction length).
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.long_rows import draw_row, row_values, rows_of
from oracles.drawing import operand_span
from oracles.families.conv.geometry import conv2d_out, transposed_out
from oracles.hints import hints

LONGEST = 512  # a long reduction's terms at most (outputs × terms stays a few hundred thousand)


def _side(draw, lo: int, room: int, extra: int = 2) -> int:
    """An extent from ``lo`` up to ``lo + extra``, as far as ``room`` allows."""
    return lo + draw(st.integers(0, max(0, min(extra, room - lo))))


@st.composite
def _conv2d(draw, contract, budget, transposed: bool):
    """(shapes, params) of a Conv2D or ConvTranspose2D case; an empty batch one draw in 16."""
    n = 0 if draw(st.integers(0, 15)) == 15 else draw(st.integers(1, 2))
    g = draw(st.integers(1, 3))
    cin, cout = g * draw(st.integers(1, 2)), g * draw(st.integers(1, 2))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    room = max(1, budget.max_elements // max(1, n * cin))
    if transposed:
        h, w = draw(st.integers(1, 3)), draw(st.integers(1, 3))
        oph, opw = draw(st.integers(0, max(sh, dh) - 1)), draw(st.integers(0, max(sw, dw) - 1))
        pads = [draw(st.integers(0, 2)) for _ in range(4)]
        # keep at least one output row and column: the crops may not eat the whole output
        natural_h, natural_w = transposed_out(h, kh, sh, (0, 0), dh, oph), transposed_out(w, kw, sw, (0, 0), dw, opw)
        pads[1] = min(pads[1], max(0, natural_h - 1 - pads[0]))
        pads[0] = min(pads[0], natural_h - 1)
        pads[3] = min(pads[3], max(0, natural_w - 1 - pads[2]))
        pads[2] = min(pads[2], natural_w - 1)
        out = (n, cout, transposed_out(h, kh, sh, tuple(pads[:2]), dh, oph),
               transposed_out(w, kw, sw, tuple(pads[2:]), dw, opw))
        w_shape = (cin, cout // g, kh, kw)
    else:
        pads = [draw(st.integers(0, 2)) for _ in range(4)]
        h = _side(draw, max(1, dh * (kh - 1) + 1 - pads[0] - pads[1]), max(1, math.isqrt(room)) + 2)
        w = _side(draw, max(1, dw * (kw - 1) + 1 - pads[2] - pads[3]), max(1, room // h) + 2)
        out = (n, cout, conv2d_out(h, kh, sh, tuple(pads[:2]), dh), conv2d_out(w, kw, sw, tuple(pads[2:]), dw))
        w_shape = (cout, cin // g, kh, kw)
    params = {"x_shape": [n, cin, h, w], "w_shape": list(w_shape), "out_shape": list(out),
              "stride": [sh, sw], "padding": pads, "dilation": [dh, dw], "groups": g}
    if transposed:
        params["output_padding"] = [oph, opw]
    shapes = [(n, cin, h, w), w_shape, (cout,)][:len(contract.inputs)]
    return shapes, params


@st.composite
def _causal(draw, contract, budget):
    """(shapes, params) of a CausalConv1d case; an empty batch or sequence one draw in 16."""
    empty = draw(st.integers(0, 15)) == 15
    batch = 0 if empty and draw(st.booleans()) else draw(st.integers(1, 2))
    channels, kernel = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    seq_out = 0 if empty and batch else draw(st.integers(1, max(1, min(6, budget.max_elements // (2 * channels)))))
    seq_in = seq_out + kernel - 1
    params = {"batch": batch, "channels": channels, "seq_in": seq_in, "seq_out": seq_out,
              "kernel": kernel, "use_silu": draw(st.booleans())}
    return [(batch, channels, seq_in), (channels, kernel), (channels,)], params


def draw_shapes(draw, contract, opdef, budget):
    if opdef.op_kind == "CausalConv1d":
        return draw(_causal(contract, budget))
    return draw(_conv2d(contract, budget, opdef.op_kind == "ConvTranspose2D"))


def _zero_prefix(stored: np.ndarray, kernel: int) -> np.ndarray:
    """The caller's left padding: the first kernel − 1 steps of every sequence are +0."""
    out = stored.copy()
    out[..., : kernel - 1] = 0
    return out


def draw_input(opdef, i, dtype, shapes, params):
    """CausalConv1d's x: edge-biased values behind the kernel − 1 zeros its caller puts there."""
    if opdef.op_kind != "CausalConv1d" or i != 0:
        return None
    from numerics.values import value_array

    kernel = int(params["kernel"])
    return value_array(dtype, tuple(shapes[0]), tuple(opdef.hints(dtype))).map(lambda a: _zero_prefix(a, kernel))


@hints
def conv_hints(fmt):
    """Sums' edges (half-ulp terms, a quarter of the largest finite value) and SiLU's knees."""
    from oracles.hints import saturating, summation

    return [*summation(fmt), *saturating(fmt)[:12]]


def _weights(pattern: str, dtype: str, rng) -> callable:
    """Weights of a long case: ones (the products repeat x's pattern exactly), random values
    for the random pattern."""
    return lambda count: row_values("random" if pattern == "random" else "equal", count, dtype, rng, 1.0)


@st.composite
def _long_conv(draw, contract, dtypes, longest, operand, transposed: bool):
    """One output window (two for two output channels) over 256 or 512 terms."""
    k, pattern, value, rng = draw_row(draw, min(longest, LONGEST))
    side = draw(st.sampled_from((1, 2) if transposed else (1, 2, 4)))
    cout = draw(st.integers(1, 2))
    if transposed:  # a 1×1 input: every output element reads all k input channels once
        x_shape, w_shape, hw = (1, k, 1, 1), (k, cout, side, side), (side, side)
    else:  # the kernel covers the whole input: one output element per channel
        x_shape, w_shape, hw = (1, k // (side * side), side, side), (cout, k // (side * side), side, side), (1, 1)
    shapes = [x_shape, w_shape, (cout,)]
    fills = [lambda count: rows_of(pattern, count, k, dtypes[0], rng, value), _weights(pattern, dtypes[1], rng),
             lambda count: row_values("equal", count, dtypes[-1], rng, 0.0)]
    ops = [draw(operand_span(operand, spec, dt, shape, fill))
           for spec, dt, shape, fill in zip(contract.inputs, dtypes, shapes, fills, strict=False)]
    params = {"x_shape": list(x_shape), "w_shape": list(w_shape), "out_shape": [1, cout, *hw],
              "stride": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1}
    if transposed:
        params["output_padding"] = [0, 0]
    return ops, params


@st.composite
def _long_causal(draw, contract, dtypes, longest, operand):
    """A 256-tap kernel over 256 outputs: the last window holds a whole pattern row."""
    k, pattern, value, rng = draw_row(draw, min(longest, 256))
    channels = draw(st.integers(1, 2))
    seq_out = k
    seq_in = seq_out + k - 1

    def x_values(count: int) -> np.ndarray:
        rows = rows_of(pattern, channels * seq_out, seq_out, dtypes[0], rng, value).reshape(channels, seq_out)
        x = np.zeros((channels, seq_in), rows.dtype)  # the caller's kernel - 1 zeros, then the rows
        x[:, k - 1:] = rows
        return x.reshape(-1)[:count]

    shapes = [(1, channels, seq_in), (channels, k), (channels,)]
    fills = [x_values, _weights(pattern, dtypes[1], rng), lambda count: row_values("equal", count, dtypes[2], rng, 0.0)]
    ops = [draw(operand_span(operand, spec, dt, shape, fill))
           for spec, dt, shape, fill in zip(contract.inputs, dtypes, shapes, fills, strict=True)]
    params = {"batch": 1, "channels": channels, "seq_in": seq_in, "seq_out": seq_out, "kernel": k,
              "use_silu": draw(st.booleans())}
    return ops, params


def long_case(contract, opdef, dtypes, longest, operand):
    if opdef.op_kind == "CausalConv1d":
        return _long_causal(contract, dtypes, longest, operand)
    return _long_conv(contract, dtypes, longest, operand, opdef.op_kind == "ConvTranspose2D")
