"""MatMul: exact dot products, rounded once into the output format (integer operands:
``oracles.families.matmul.integer``).

Every input is a multiple of the smallest subnormal of its format, so a product a·b is an integer
times 2^(2·qmin) and a sum of them an integer times 2^(2·qmin): formed exactly as Python
integers. IEEE specials follow the operations a kernel performs: a NaN operand or inf·0 gives NaN,
+inf and -inf terms give NaN, otherwise an infinite term gives that infinity.

The operands may differ in format (an F32 lhs against a BF16 rhs): both are scaled by the finer
of their smallest subnormals, and the accumulator is the wider of the two the operands imply
(F32 for halves), so a mixed key is held to the bound of its F32 accumulation.

Each element carries ``terms`` for SPEC §4's derived bound (count-1)·u_acc·abs_sum + ulp: count
k+1 and abs_sum Σ|a·b| + 2^emin_acc (k > 0). A dot product of length k whose products are
rounded in the accumulator and summed in any order errs by at most k·u·Σ|a·b| (Higham, first
order); an underflowing product adds at most half the smallest subnormal, k·u·2^emin in all.
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
from oracles.families.matmul.integer import evaluate_int_matmul
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format, overflow_admitted, result, special

INF = math.inf
SUMS = {"nan": "propagate", "order": "free"}  # SPEC §4: the bound holds for any summation order


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
    value = special(nan, pos_inf, neg_inf)
    admitted = () if nan else overflow_admitted(Fraction(pos, denom), Fraction(neg, denom),
                                                 pos_inf, neg_inf, k, acc)
    tiny = Fraction(2) ** float_spec(acc).emin if k else Fraction(0)
    return result(value, total, denom, neg_zero, admitted, s), (k + 1, abs_sum + tiny)


def evaluate_matmul(inputs, params, out_dtypes, rules):
    lhs, rhs = (np.asarray(x) for x in inputs[:2])
    lb, rb, m, n, k = matmul_params([lhs.shape, rhs.shape], params or {})
    if lhs.dtype.kind in "iu":
        return evaluate_int_matmul(lhs, rhs, (lb, rb, m, n, k), out_dtypes, rules, SUMS)
    fmt, s = output_spec(out_dtypes)
    qmin = min(float_spec(dtype_name(x.dtype)).qmin for x in (lhs, rhs))
    denom = 1 << (-2 * qmin)
    acc = max((acc_format(x.dtype) for x in (lhs, rhs)), key=lambda f: float_spec(f).p)
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
