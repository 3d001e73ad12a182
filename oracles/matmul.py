"""MatMul and CumSum: exact dot products and prefix sums, rounded once into the output format.

Every input is a multiple of the smallest subnormal of its format, so a product a·b is an integer
times 2^(2·qmin) and a sum an integer times 2^qmin: both are formed exactly as Python integers.
IEEE specials follow the operations a kernel performs: a NaN operand or inf·0 gives NaN, +inf and
-inf terms give NaN, otherwise an infinite term gives that infinity.

Each element carries ``terms`` for SPEC §4's derived bound (count-1)·u_acc·abs_sum + ulp:
- MatMul: count k+1 and abs_sum Σ|a·b| + 2^emin_acc (k > 0). A dot product of length k whose
  products are rounded in the accumulator and summed in any order errs by at most k·u·Σ|a·b|
  (Higham, first order); an underflowing product adds at most half the smallest subnormal,
  k·u·2^emin in all.
- CumSum element i: count i+1 and abs_sum Σ_{j<=i}|x_j| (a sum of i+1 terms in any order).
Where some order's partial sums can reach the accumulator's overflow threshold (with a margin
for the rounding of the terms), ±inf and NaN are admitted as well (``order: free``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from numerics.formats import dtype_name
from numerics.rounding import float_spec
from oracles import arith, edges
from oracles.families import float_output, output_spec
from oracles.shapes import as_floats, object_array

INF = math.inf


def acc_format(input_dtype) -> str:
    name = dtype_name(input_dtype)
    return "F32" if name in ("F16", "BF16") else name


# --- shapes ------------------------------------------------------------------------------------


def rhs_batch_index(i: int, lhs_dim: int, rhs_dim: int) -> int:
    """The rhs batch index lhs batch index ``i`` reads: equal dims pair up; a divisor (GQA)
    serves runs of lhs_dim / rhs_dim consecutive lhs indices."""
    return i // (lhs_dim // rhs_dim)


def matmul_params(shapes: Sequence[tuple[int, ...]], params: Mapping) -> tuple:
    """(lhs batch, rhs batch, m, n, k), checked against the operand shapes."""
    lb = tuple(int(d) for d in params["lhs_batch_dims"])
    rb = tuple(int(d) for d in params["rhs_batch_dims"])
    m, n, k = (int(params[f]) for f in ("m", "n", "k"))
    lhs, rhs = (tuple(s) for s in shapes)
    if lhs != (*lb, m, k) or rhs != (*rb, k, n):
        raise ValueError(f"MatMul params {dict(params)} do not match operands {lhs} @ {rhs}")
    if len(lb) != len(rb) or any(r == 0 and ld != 0 or r and ld % r for ld, r in zip(lb, rb, strict=True)):
        raise ValueError(f"rhs batch {list(rb)} neither equals nor divides lhs batch {list(lb)}")
    return lb, rb, m, n, k


def matmul_out_shape(shapes: Sequence[tuple[int, ...]], params: Mapping) -> tuple[int, ...]:
    lhs, rhs = shapes
    return (*tuple(lhs)[:-2], int(params["m"]), int(params["n"]))


def cumsum_geometry(shape: tuple[int, ...], params: Mapping) -> tuple[int, int, int]:
    """(outer, dim, inner) of the scanned axis, checked against the op params."""
    axis = int(params["axis"])
    if not 0 <= axis < len(shape):
        raise ValueError(f"CumSum axis {axis} is outside 0..{len(shape)}")
    geo = (math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))
    given = tuple(int(params[f]) for f in ("outer_count", "dim_size", "inner_count"))
    if given != geo:
        raise ValueError(f"CumSum params {dict(params)} do not match input shape {shape}")
    return geo


# --- special values and overflow ---------------------------------------------------------------


def _special(terms_nan: bool, pos_inf: bool, neg_inf: bool) -> float | None:
    if terms_nan or (pos_inf and neg_inf):
        return math.nan
    if pos_inf or neg_inf:
        return INF if pos_inf else -INF
    return None


def overflow_admitted(pos: Fraction, neg: Fraction, pos_inf: bool, neg_inf: bool, count: int,
                      acc: str) -> tuple[float, ...]:
    """±inf / NaN that some summation order can reach: the positive (negative) terms' total,
    grown by the count·u rounding margin, at the accumulator's overflow threshold."""
    s = float_spec(acc)
    limit = edges.overflow_threshold(s)
    grow = 1 + Fraction(count + 1, 1 << s.p)
    return edges.overflowed(pos_inf or pos * grow >= limit, neg_inf or neg * grow >= limit,
                            pos_inf, neg_inf)


def _result(special, total: int, denom: int, neg_zero: bool, admitted, s):
    res = arith.value(special, s) if special is not None else arith.ratio(total, denom, s, neg_zero)
    return edges.with_alternatives(res, admitted)


# --- MatMul ------------------------------------------------------------------------------------


def _scaled(values: list[float], qmin: int) -> list[int | float]:
    """Finite values as integers over 2^-qmin; NaN and ±inf kept as floats."""
    unit = 1 << -qmin
    return [v if not math.isfinite(v) else v.as_integer_ratio()[0] * (unit // v.as_integer_ratio()[1])
            for v in values]


def _dot(a_row: list, b_col: list, a_raw: list[float], b_raw: list[float], denom: int, acc: str, s):
    """One output element: ((bits, exact[, admitted]), (count, abs_sum))."""
    k = len(a_row)
    total = pos = neg = 0
    nan = pos_inf = neg_inf = False
    neg_zero = k > 0
    for x, y, xr, yr in zip(a_row, b_col, a_raw, b_raw, strict=True):
        if isinstance(x, float) or isinstance(y, float):  # a NaN or ±inf operand
            p = xr * yr  # Python floats: inf·0 is NaN, signs as IEEE
            nan |= p != p
            pos_inf |= p == INF
            neg_inf |= p == -INF
            continue
        p = x * y
        total += p
        pos += p if p > 0 else 0
        neg -= p if p < 0 else 0
        neg_zero &= p == 0 and (math.copysign(1.0, xr) != math.copysign(1.0, yr))
    abs_sum = Fraction(pos + neg, denom)
    special = _special(nan, pos_inf, neg_inf)
    admitted = () if nan else overflow_admitted(Fraction(pos, denom), Fraction(neg, denom),
                                                 pos_inf, neg_inf, k, acc)
    tiny = Fraction(2) ** float_spec(acc).emin if k else Fraction(0)
    return _result(special, total, denom, neg_zero, admitted, s), (k + 1, abs_sum + tiny)


def evaluate_matmul(inputs, params, out_dtypes, rules):
    fmt, s = output_spec(out_dtypes)
    lhs, rhs = (np.asarray(x) for x in inputs[:2])
    lb, rb, m, n, k = matmul_params([lhs.shape, rhs.shape], params or {})
    qmin = float_spec(dtype_name(lhs.dtype)).qmin
    denom = 1 << (-2 * qmin)
    acc = acc_format(lhs.dtype)
    a_raw = as_floats(lhs.reshape(-1, m, k)) if lhs.size else []
    b_raw = as_floats(rhs.reshape(-1, k, n)) if rhs.size else []
    a_int, b_int = _scaled(a_raw, qmin), _scaled(b_raw, qmin)
    results, terms = [], []
    for bi in np.ndindex(*lb):
        li = int(np.ravel_multi_index(bi, lb)) if lb else 0
        ri_idx = tuple(rhs_batch_index(i, ld, r) for i, ld, r in zip(bi, lb, rb, strict=True))
        ri = int(np.ravel_multi_index(ri_idx, rb)) if rb else 0
        for i in range(m):
            row = slice((li * m + i) * k, (li * m + i + 1) * k)
            for j in range(n):
                col = slice(ri * k * n + j, (ri + 1) * k * n, n)
                res, term = _dot(a_int[row], b_int[col], a_raw[row], b_raw[col], denom, acc, s)
                results.append(res)
                terms.append(term)
    shape = (*lb, m, n)
    return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=acc)]


# --- CumSum ------------------------------------------------------------------------------------


def _prefix_sums(values: list[float], qmin: int, acc: str, s):
    """Inclusive prefix sums of one lane: (results, terms)."""
    unit = 1 << -qmin
    total = pos = neg = 0
    nan = pos_inf = neg_inf = False
    neg_zero = True
    results, terms = [], []
    for count, v in enumerate(values, start=1):
        if not math.isfinite(v):
            nan |= v != v
            pos_inf |= v == INF
            neg_inf |= v == -INF
        elif v:
            q = v.as_integer_ratio()
            t = q[0] * (unit // q[1])
            total += t
            pos += t if t > 0 else 0
            neg -= t if t < 0 else 0
        neg_zero &= v == 0 and math.copysign(1.0, v) < 0
        special = _special(nan, pos_inf, neg_inf)
        admitted = () if nan else overflow_admitted(Fraction(pos, unit), Fraction(neg, unit),
                                                     pos_inf, neg_inf, count, acc)
        results.append(_result(special, total, unit, neg_zero, admitted, s))
        terms.append((count, Fraction(pos + neg, unit)))
    return results, terms


def evaluate_cumsum(inputs, params, out_dtypes, rules):
    fmt, s = output_spec(out_dtypes)
    x = np.asarray(inputs[0])
    outer, dim, inner = cumsum_geometry(x.shape, params or {})
    qmin = float_spec(dtype_name(x.dtype)).qmin
    acc = acc_format(x.dtype)
    lanes = np.asarray(as_floats(x), dtype=object).reshape(outer, dim, inner)
    results = np.empty((outer, dim, inner), dtype=object)
    terms = np.empty((outer, dim, inner), dtype=object)
    for o in range(outer):
        for i in range(inner):
            res, t = _prefix_sums(list(lanes[o, :, i]), qmin, acc, s)
            for d in range(dim):
                results[o, d, i] = res[d]
                terms[o, d, i] = t[d]
    flat_terms = terms.reshape(-1).tolist()
    return [float_output(results.reshape(-1).tolist(), fmt, x.shape,
                         terms=object_array(flat_terms, x.shape), acc_format=acc)]
