"""Conv2D, ConvTranspose2D and CausalConv1d: every output element an exact dot product (plus the
bias where the contract has one), rounded once (``oracles.families.conv.dot``); CausalConv1d's
SiLU is correctly rounded from the exact sum (``oracles.families.conv.silu``).

- Conv2D: out[n, co, i, j] = bias[co] + Σ x[n, ci, i·sh − top + kh·dh, j·sw − left + kw·dw] ·
  w[co, ci', kh, kw] over the Cin/groups channels ci of co's group, the taps inside x;
- ConvTranspose2D: out[n, co, i, j] = bias[co] + Σ x[n, ci, h, v] · w[ci, co', kh, kw] over ci
  in co's group and the taps with h·sh + kh·dh = i + top, v·sw + kw·dw = j + left;
- CausalConv1d: out[b, c, t] = bias[c] + Σ_j w[c, j]·x[b, c, t + j], SiLU applied where
  ``use_silu``.

A tap that falls on padding (or between a transposed convolution's input rows) reads an
implicit zero: a kernel may skip it or multiply it, and 0·inf or 0·NaN is NaN, so where such a
tap meets a non-finite weight NaN is admitted as well. Accumulator: F32 for BF16/F16 input, the
input format otherwise.

    >>> import numpy as np, oracles
    >>> x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    >>> w = np.ones((1, 1, 2, 2), np.float32)
    >>> p = {"x_shape": [1, 1, 3, 3], "w_shape": [1, 1, 2, 2], "out_shape": [1, 1, 2, 2],
    ...      "stride": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1}
    >>> oracles.evaluate("Conv2D", [x, w], p, ["F32"], {})[0].expected.ravel().tolist()
    [12.0, 16.0, 24.0, 28.0]
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from numerics.formats import dtype_name
from oracles.families.conv.dot import Grid
from oracles.families.conv.geometry import Conv, causal_of, conv_of
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format


class _Operands:
    """x, w and the optional bias as floats and grid integers, flat in C order."""

    def __init__(self, inputs, out_dtypes):
        fmt, _ = output_spec(out_dtypes)
        x = np.asarray(inputs[0])
        self.fmt, self.acc = fmt, acc_format(x.dtype)
        self.grid = Grid(dtype_name(x.dtype), fmt, self.acc)
        self.raw = [as_floats(a) if np.asarray(a).size else [] for a in inputs]
        self.ints = [self.grid.lift_all(r) for r in self.raw]

    def product(self, xi: int, wi: int):
        return self.ints[0][xi], self.ints[1][wi], self.raw[0][xi], self.raw[1][wi]

    def bias(self, co: int):
        return [(self.ints[2][co], self.raw[2][co])] if len(self.raw) > 2 else []

    def finite_weight(self, wi: int) -> bool:
        return math.isfinite(self.raw[1][wi])

    def box(self, results, terms, shape):
        return [float_output(results, self.fmt, shape, terms=object_array(terms, shape), acc_format=self.acc)]


def _direct_taps(c: Conv, i: int, j: int):
    """((kh, kw), x row, x column or None where the tap reads padding) of output (i, j)."""
    (_, _, h, w), (kh_n, kw_n) = c.x, c.w[2:]
    for kh, kw in itertools.product(range(kh_n), range(kw_n)):
        r = i * c.stride[0] - c.pad_h[0] + kh * c.dilation[0]
        q = j * c.stride[1] - c.pad_w[0] + kw * c.dilation[1]
        yield kh, kw, (r, q) if 0 <= r < h and 0 <= q < w else None


def _transposed_taps(c: Conv, i: int, j: int):
    """The same for a transposed convolution: the input row and column a tap scatters from."""
    (_, _, h, w), (kh_n, kw_n) = c.x, c.w[2:]
    for kh, kw in itertools.product(range(kh_n), range(kw_n)):
        r, rr = divmod(i + c.pad_h[0] - kh * c.dilation[0], c.stride[0])
        q, qr = divmod(j + c.pad_w[0] - kw * c.dilation[1], c.stride[1])
        yield kh, kw, (r, q) if rr == 0 == qr and 0 <= r < h and 0 <= q < w else None


def _conv_element(ops: _Operands, c: Conv, n: int, co: int, i: int, j: int):
    (_, cin, h, w), (_, _, kh_n, kw_n) = c.x, c.w
    group, cpg = co // c.cout_per_group, c.cin_per_group
    taps = list((_transposed_taps if c.transposed else _direct_taps)(c, i, j))
    products, phantom = [], False
    for ci in range(group * cpg, (group + 1) * cpg):
        for kh, kw, at in taps:
            if c.transposed:
                wi = ((ci * c.cout_per_group + co % c.cout_per_group) * kh_n + kh) * kw_n + kw
            else:
                wi = ((co * cpg + ci - group * cpg) * kh_n + kh) * kw_n + kw
            if at is None:
                phantom |= not ops.finite_weight(wi)
                continue
            products.append(ops.product(((n * cin + ci) * h + at[0]) * w + at[1], wi))
    return ops.grid.element(products, ops.bias(co), phantom=phantom)


def _conv(transposed: bool):
    def evaluate(inputs, params, out_dtypes, rules):
        c = conv_of(params or {}, [np.shape(a) for a in inputs], transposed=transposed)
        ops = _Operands(inputs, out_dtypes)
        results, terms = [], []
        for n, co, i, j in itertools.product(*(range(d) for d in c.out)):
            res, term = _conv_element(ops, c, n, co, i, j)
            results.append(res)
            terms.append(term)
        return ops.box(results, terms, c.out)

    evaluate.__name__ = "conv_transpose2d" if transposed else "conv2d"
    return evaluate


evaluate_conv2d = _conv(False)
evaluate_conv_transpose2d = _conv(True)


def evaluate_causal_conv1d(inputs, params, out_dtypes, rules):
    from oracles.families.conv.silu import silu_element

    c = causal_of(params or {}, [np.shape(a) for a in inputs])
    ops = _Operands(inputs, out_dtypes)
    results, terms = [], []
    for b, ch, t in itertools.product(range(c.batch), range(c.channels), range(c.seq_out)):
        base = (b * c.channels + ch) * c.seq_in + t
        products = [ops.product(base + j, ch * c.kernel + j) for j in range(c.kernel)]
        if c.silu:
            res, term = silu_element(ops.grid, ops.grid.fold(products, ops.bias(ch)))
        else:
            res, term = ops.grid.element(products, ops.bias(ch))
        results.append(res)
        terms.append(term)
    return ops.box(results, terms, (c.batch, c.channels, c.seq_out))
