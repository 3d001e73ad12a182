"""CumSum: exact inclusive prefix sums along one axis, each rounded once into the output format.

Every input is a multiple of the smallest subnormal of its format, so each prefix sum is an
integer times 2^qmin, formed exactly as a Python integer. IEEE specials follow the additions a
kernel performs: a NaN gives NaN from there on, +inf and -inf together give NaN, otherwise an
infinite term gives that infinity.

Element i carries ``terms`` for SPEC §4's derived bound (count-1)·u_acc·abs_sum + ulp: count i+1
and abs_sum Σ_{j<=i}|x_j| (a sum of i+1 terms in any order). Where some order's partial sums can
reach the accumulator's overflow threshold, ±inf and NaN are admitted as well (``order: free``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from numerics.formats import dtype_name
from numerics.rounding import float_spec
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, object_array
from oracles.sums import INF, acc_format, overflow_admitted, result, special


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
        value = special(nan, pos_inf, neg_inf)
        admitted = () if nan else overflow_admitted(Fraction(pos, unit), Fraction(neg, unit),
                                                     pos_inf, neg_inf, count, acc)
        results.append(result(value, total, unit, neg_zero, admitted, s))
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
