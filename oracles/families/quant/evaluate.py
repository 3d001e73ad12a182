"""QMatMul and Nf4Matmul: out[b, i, j] = Σ_t A[b, i, t]·W[j, t] with W dequantized exactly from
its stored blocks (``oracles.families.quant.gguf``, the NF4 code book below), the dot product
exact, rounded once into the output format.

NF4 (bitsandbytes' 4-bit NormalFloat): W is [n, k] with k even; byte t/2 of row j holds weight t
of that row in its high nibble (bits 7..4) when t is even and in its low nibble when t is odd;
the nibble indexes ``NF4_CODE`` (binary32 values), and weight t of row j is that code value
times absmax[j, t / block_size] (binary32), exactly.

Specials: a NaN or infinite scale gives the weights IEEE arithmetic gives (the code value 0 times
an infinite absmax is NaN); in the dot product a NaN, inf·0, or +inf beside −inf is NaN and an
infinite term otherwise that infinity, as in MatMul (``oracles.families.matmul``).

The derived bound (``terms``): a kernel dequantizes each weight into the accumulator (one
rounding, or an underflow error of u·tiny, then times |a|), multiplies and sums k terms in any
order: |error| ≤ (k + 1)·u·(Σ|a·w| + tiny·(1 + Σ|a|)) + ulp, count k + 2. Where some order's
partial sums can reach the accumulator's overflow threshold, ±inf and NaN are admitted too.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from numerics.rounding import float_spec
from oracles.families.quant.gguf import dequantize_row, row_bytes
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format, overflow_admitted, result, special

# bitsandbytes' NF4 code book: the binary32 values, index 0 to 15.
NF4_CODE = (
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224,
    0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0,
)


def dims(params) -> tuple[int, int, int, int]:
    """(batch, m, n, k) of either OpKind's params."""
    batch = params["batch_count"] if "batch_count" in params else params["batch"]
    return int(batch), int(params["m"]), int(params["n"]), int(params["k"])


def quant_out_shape(shapes, params) -> tuple[int, ...]:
    batch, m, n, _ = dims(params)
    return (batch, m, n)


def _proxy(v) -> float:
    if isinstance(v, Fraction):
        return 0.0 if v == 0 else math.copysign(1.0, v)
    return v if not math.isfinite(v) or v == 0 else math.copysign(1.0, v)


def _dot(a_row: list[float], w_row: list, s, acc: str):
    """((bits, exact[, admitted]), (count, abs_sum)) of one output element."""
    k = len(a_row)
    total = pos = neg = abs_a = Fraction(0)
    nan = pos_inf = neg_inf = False
    for x, w in zip(a_row, w_row, strict=True):
        if not math.isfinite(x) or isinstance(w, float):
            p = _proxy(x) * _proxy(w)
            nan |= p != p
            pos_inf |= p == math.inf
            neg_inf |= p == -math.inf
            continue
        p = Fraction(x) * w
        total += p
        pos += max(p, 0)
        neg -= min(p, 0)
        abs_a += abs(Fraction(x))
    value = special(nan, pos_inf, neg_inf)
    admitted = () if nan else overflow_admitted(pos, neg, pos_inf, neg_inf, k + 1, acc)
    tiny = Fraction(2) ** float_spec(acc).emin
    res = result(value, total.numerator, total.denominator, False, admitted, s)
    return res, (k + 2, pos + neg + tiny * (1 + abs_a))


def _product(a: np.ndarray, weights: list[list], params, out_dtypes):
    """The boxed output of A[batch, m, k] times the dequantized rows ``weights`` (n of k)."""
    fmt, s = output_spec(out_dtypes)
    batch, m, n, k = dims(params)
    if a.shape != (batch, m, k):
        raise ValueError(f"activations of shape {a.shape}, params say {(batch, m, k)}")
    acc = acc_format(a.dtype)
    rows = np.asarray(a).reshape(-1, k) if k else np.zeros((batch * m, 0))
    results, terms = [], []
    for row in rows:
        values = as_floats(row)
        for j in range(n):
            res, term = _dot(values, weights[j], s, acc)
            results.append(res)
            terms.append(term)
    shape = (batch, m, n)
    return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=acc)]


def evaluate_qmatmul(inputs, params, out_dtypes, rules):
    a, words = np.asarray(inputs[0]), np.asarray(inputs[1])
    kind = str(params["quant_type"])
    _, _, n, k = dims(params)
    per_row = row_bytes(kind, k)
    raw = words.astype("<u4").tobytes()
    if len(raw) < n * per_row:
        raise ValueError(f"{len(raw)} weight bytes for {n} rows of {per_row} ({kind}, k={k})")
    weights = [dequantize_row(raw[j * per_row:(j + 1) * per_row], kind, k) for j in range(n)]
    return _product(a, weights, params, out_dtypes)


def nf4_weight(code: float, scale: float):
    """code·absmax exactly, or the IEEE special."""
    if math.isfinite(scale):
        return Fraction(code) * Fraction(scale)
    return code * scale


def evaluate_nf4(inputs, params, out_dtypes, rules):
    a, packed, absmax = (np.asarray(x) for x in inputs[:3])
    _, _, n, k = dims(params)
    bs = int(params["block_size"])
    packed = packed.reshape(n, k // 2)
    scales = absmax.astype(np.float32).reshape(n, k // bs)
    weights = []
    for j in range(n):
        row_bytes_ = packed[j].tolist()
        row_scales = as_floats(scales[j])
        weights.append([nf4_weight(NF4_CODE[(row_bytes_[t // 2] >> (0 if t % 2 else 4)) & 15],
                                   row_scales[t // bs]) for t in range(k)])
    return _product(a, weights, params, out_dtypes)
