"""What the accumulating families share about an exact sum: the accumulator its derived bound
assumes, the IEEE special a sum of specials gives, and the ±inf / NaN some summation order can
reach (admitted under ``order: free``; ``oracles.edges``)."""

from __future__ import annotations

import math
from fractions import Fraction

from numerics.formats import dtype_name
from numerics.rounding import float_spec
from oracles import arith, edges

INF = math.inf


def acc_format(input_dtype) -> str:
    """The accumulator SPEC §4's derived bound assumes: F32 for half inputs, else the input's."""
    name = dtype_name(input_dtype)
    return "F32" if name in ("F16", "BF16") else name


def special(terms_nan: bool, pos_inf: bool, neg_inf: bool) -> float | None:
    """The sum's value where its terms hold a NaN or infinities (None: the sum is finite)."""
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


def result(special_value, total: int, denom: int, neg_zero: bool, admitted, s):
    """One element: the special value or total/denom rounded once, with what else is admitted."""
    res = arith.value(special_value, s) if special_value is not None else arith.ratio(total, denom, s, neg_zero)
    return edges.with_alternatives(res, admitted)
