"""Edge rules where a contract admits more than one result, and the results each admits.

- ``zeros``: ``ordered`` puts −0 below +0 (one result); ``unordered`` compares the zeros equal, as
  IEEE comparisons do: an extremum may return either zero of an equal pair (every zero among its
  operands is admitted), and a clamp is two comparison-selects (x unless a strict comparison picks
  a bound), in either order of the two selects.
- ``init``: ``identity`` folds an extremum from −inf (max) / +inf (min), so an empty or all-NaN
  slice under NaN-as-missing gives that infinity instead of NaN.
- ``order``: sums and means. ``free``: the order of summation is open, so ±inf or NaN is admitted
  as soon as the partial sums of some order can reach the accumulator's overflow threshold.
  ``fixed``: a left-to-right fold in the accumulator; where that fold overflows, its ±inf or NaN
  is the one result.

An oracle result carrying alternatives is a 3-tuple ``(bits, exact, alternatives)`` with the
alternatives as Python floats (NaN meaning any NaN); ``oracles.output.float_output`` collects them into
``OracleOutput.admitted``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np

from numerics.rounding import FloatSpec, decode_float, float_spec
from oracles import arith
from oracles.output import float_output, output_spec, resolve_rule
from oracles.shapes import as_floats, broadcast

INF = math.inf
ZERO_RULES = ("ordered", "unordered")
EXTREMA_RULES = ("propagate", "ignore")


def init_rule(rules: Mapping[str, str] | None) -> str:
    """``identity`` where the contract states the fold's start, else ``unspecified``."""
    return "identity" if (rules or {}).get("init") == "identity" else "unspecified"


def other_zeros(candidates, result: float) -> tuple[float, ...]:
    """Zeros among ``candidates`` of the other sign than a zero ``result`` (unordered zeros)."""
    if result != 0:
        return ()
    sign = arith.signbit(result)
    for c in candidates:
        if c == 0 and arith.signbit(c) != sign:
            return (c,)
    return ()


def with_alternatives(result, alternatives: tuple[float, ...]):
    return (*result, alternatives) if alternatives else result


# --- extrema -----------------------------------------------------------------------------------


def extremum_pair(a: float, b: float, s: FloatSpec, nan_rule: str, zeros: str, largest: bool):
    best = arith.extremum(a, b, nan_rule, largest)
    out = arith.value(best, s)
    return with_alternatives(out, other_zeros((a, b), best) if zeros == "unordered" else ())


def extremum_elementwise(largest: bool, defaults: Mapping[str, str]):
    """MaximumElementwise / MinimumElementwise over the broadcast of the two operands."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        nan_rule = resolve_rule(rules, "nan", defaults, EXTREMA_RULES)
        zeros = resolve_rule(rules, "zeros", defaults, ZERO_RULES)
        shape, (a, b) = broadcast(inputs[:2])
        results = [extremum_pair(u, v, s, nan_rule, zeros, largest)
                   for u, v in zip(as_floats(a), as_floats(b), strict=True)]
        return [float_output(results, fmt, shape)]

    return evaluate


def fold_extremum(values: Sequence[float], nan_rule: str, largest: bool, init: str) -> float:
    """The extremum of a slice; ``init == "identity"`` starts the fold from ∓inf."""
    if init == "identity":
        best = -INF if largest else INF
        rest = values
    else:
        if not values:
            raise ValueError("an extremum of an empty set is undefined (the contract states no init)")
        best, rest = values[0], values[1:]
    for v in rest:
        best = arith.extremum(best, v, nan_rule, largest)
    return best


# --- clamp -------------------------------------------------------------------------------------


def clamp_elementwise(read_params, defaults: Mapping[str, str]):
    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        zeros = resolve_rule(rules, "zeros", defaults, ZERO_RULES)
        x = np.asarray(inputs[0])
        lo, hi = read_params(params or {})
        return [float_output([clamp(v, lo, hi, s, zeros) for v in as_floats(x)], fmt, x.shape)]

    return evaluate


def clamp(x: float, lo: float, hi: float, s: FloatSpec, zeros: str):
    """``ordered``: min(max(x, lo), hi) with −0 below +0. ``unordered``: two IEEE
    comparison-selects against the bounds, in either order (a NaN x fails both and passes)."""
    if zeros == "ordered":
        return arith.clamp(x, lo, hi, s)
    if x != x:
        return arith.nan(s)
    lo_first = lo if x < lo else x
    lo_first = hi if lo_first > hi else lo_first
    hi_first = hi if x > hi else x
    hi_first = lo if hi_first < lo else hi_first
    out = arith.value(lo_first, s)
    same = (hi_first == lo_first and arith.signbit(hi_first) == arith.signbit(lo_first))
    return with_alternatives(out, () if same else (hi_first,))


# --- sums --------------------------------------------------------------------------------------


def overflow_threshold(s: FloatSpec) -> Fraction:
    """The smallest magnitude that rounds to inf in format ``s``: max finite + half an ulp,
    (2 − 2^−p)·2^emax."""
    return Fraction((1 << (s.p + 1)) - 1, 1 << s.p) * Fraction(2) ** s.emax


def sum_alternatives(values: Sequence[float], acc: str, order: str):
    """Special results a sum (or mean) of ``values`` is admitted or fixed to by its order rule.

    Returns (fixed, admitted): ``fixed`` is the fold's ±inf / NaN where a fixed order overflows
    (None otherwise); ``admitted`` the extra floats a free order admits."""
    if any(v != v for v in values):
        return None, ()
    s = float_spec(acc)
    limit = overflow_threshold(s)
    pos_inf = any(v == INF for v in values)
    neg_inf = any(v == -INF for v in values)
    if pos_inf and neg_inf:
        return None, ()
    if order == "fixed":
        total = _fold(values, s)
        return (total if math.isinf(total) or total != total else None), ()
    finite = [Fraction(v) for v in values if not math.isinf(v)]
    up = pos_inf or sum((f for f in finite if f > 0), Fraction(0)) >= limit
    down = neg_inf or -sum((f for f in finite if f < 0), Fraction(0)) >= limit
    return None, overflowed(up, down, pos_inf, neg_inf)


def overflowed(up: bool, down: bool, pos_inf: bool, neg_inf: bool) -> tuple[float, ...]:
    """What a sum admits once some order's partial sums can overflow upwards (``up``) or
    downwards (``down``): that infinity unless an input is the opposite one, NaN if both."""
    out = []
    if up and not neg_inf:
        out.append(INF)
    if down and not pos_inf:
        out.append(-INF)
    if up and down:
        out.append(math.nan)
    return tuple(out)


def _fold(values: Sequence[float], s: FloatSpec) -> float:
    """Left-to-right sum, each partial sum rounded to nearest-even into the accumulator format."""
    acc = 0.0
    for v in values:
        if not math.isfinite(acc) or math.isinf(v):
            acc = acc + v  # inf + finite = inf; inf + -inf = NaN; NaN stays (IEEE, no rounding)
            continue
        exact = Fraction(acc) + Fraction(v)
        acc = _to_float(round_float_exact(exact, s), s) if exact else 0.0
    return acc


def round_float_exact(x: Fraction, s: FloatSpec) -> int:
    return arith.ratio(x.numerator, x.denominator, s)[0]


def _to_float(bits: int, s: FloatSpec) -> float:
    return decode_float(bits, s)


__all__ = ["EXTREMA_RULES", "ZERO_RULES", "clamp", "clamp_elementwise", "extremum_elementwise",
           "extremum_pair", "fold_extremum", "init_rule", "other_zeros", "overflow_threshold",
           "sum_alternatives"]
