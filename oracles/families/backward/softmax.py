"""SoftmaxLastDimBackward and LogSoftmaxLastDimBackward, per row of the last axis.

Both take the forward's output y and the upstream gradient g (any values: the formula is the
definition, whether or not y came from a forward):

- softmax:     dx_i = y_i·(g_i − s),   s = Σ_j g_j·y_j — rational, computed exactly;
- log-softmax: dx_i = g_i − e^{y_i}·G, G = Σ_j g_j — correctly rounded through the Ziv loop
  (``oracles.ziv``); exact where y_i = 0 (e^0 = 1) or G = 0, and e^{y_i}·G is irrational otherwise
  (Lindemann–Weierstrass), so g_i − e^{y_i}·G is never a rounding boundary.

Specials follow the IEEE operations of these formulas (``common``): a NaN in a row's products or
sum reaches the whole row, an infinite s or G gives ±inf or NaN (inf·0, inf − inf) element by
element, exp(+inf) = inf and exp(−inf) = 0. The contract fixes no evaluation order, so where
the sum is infinite an infinite element also admits NaN: exp(y_i) of a finite y_i may round to
0 in the accumulator (y = −3e81: 0·(−inf)), and a finite product or partial sum may overflow to
the other infinity (inf − inf). The factors' signs are exact, so never the other infinity. Where
e^{y_i}·G is infinite with a finite G (y_i = +inf, or far beyond the format), the sign of the
computed G decides: where |G| is within the sum's rounding error, (n − 1)·u·Σ|g| + n·tiny, or
its partial sums can overflow, either infinity and NaN are admitted.

Derived bounds (``terms``), u the accumulator's unit roundoff, tiny its smallest normal:
- softmax: s in any order errs by n·u·(Σ|g_j·y_j| + tiny) (products, sum, underflow); the
  subtraction and the product add u·|dx_i| each, and a distributed form y_i·g_i − y_i·s stays
  within u·|y_i|·(|g_i| + |s|) ≤ u·(|dx_i| + |y_i|·Σ|g·y|). So |error| ≤
  (n + 2)·u·(|y_i|·(Σ|g·y| + n·tiny) + |dx_i| + tiny): count n + 3.
- log-softmax: G errs by (n − 1)·u·Σ|g|; exp of the exact input by ≤ 4 ulp, the product and the
  subtraction by u each: |error| ≤ (n + 6)·u·((e^{y_i} + tiny)·Σ|g| + |dx_i| + tiny): count n + 7.
- Where Σ|g·y| (Σ|g|, e^{y_i}, e^{y_i}·Σ|g|) can reach the accumulator's overflow threshold, NaN
  and ±inf are admitted, and a row whose exponential leaves the accumulator's range is held to
  nothing finer (``common.escapes``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from mpmath.libmp import mpf_exp, mpf_mul, mpf_sub

from numerics.rounding import FloatSpec
from oracles.families.backward import common as c
from oracles.families.backward import dyadic as dy
from oracles.ziv import correctly_rounded, mpf_of_float

LOG2E = 1.4426950408889634
FAR_EXP = 1500  # beyond e^1500 no exponential is resolved: the row escapes the accumulator


def softmax_backward_row(ys: list[float], gs: list[float], s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one row: results (bits, exact[, admitted]); terms (count, abs_sum)."""
    if all(map(math.isfinite, ys)) and all(map(math.isfinite, gs)):
        return _finite_softmax_row(ys, gs, s, acc)
    n = len(ys)
    yv, gv = [c.value(y) for y in ys], [c.value(g) for g in gs]
    products = [c.mul(g, y) for g, y in zip(gv, yv, strict=True)]
    dot = c.total(products)
    abs_dot = sum((abs(p) for p in products if not c.is_special(p)), Fraction(0))
    tiny = c.tiny(acc)
    results, terms = [], []
    for y, g in zip(yv, gv, strict=True):
        dx = c.mul(y, c.sub(g, dot))
        result = c.box(dx, s)
        if c.is_special(dx):
            results.append(c.with_nan(result) if c.infinite(result, s) else result)
            terms.append((n, Fraction(0)))
            continue
        if c.escapes([abs_dot, abs(g) + abs_dot, abs(y) * (abs(g) + abs_dot)], acc, low=False):
            result = c.escaped(result)
        results.append(result)
        terms.append((n + 3, abs(y) * (abs_dot + n * tiny) + abs(dx) + tiny))
    return results, terms


def _finite_softmax_row(ys: list[float], gs: list[float], s: FloatSpec, acc: FloatSpec):
    """``softmax_backward_row`` of a finite row in integers: y_j = Y_j/2^ky, g_j = G_j/2^kg, the
    products and their sums in units of 2^-k (k = ky + kg), dx_i = Y_i·(G_i·2^ky − P)/2^(ky+k).
    The same results and terms, without a gcd per operation."""
    from oracles import arith, edges

    n = len(ys)
    (Y, ky), (G, kg) = dy.scaled(ys), dy.scaled(gs)
    k = ky + kg
    P = sum(g * y for g, y in zip(G, Y, strict=True))
    A = sum(abs(g * y) for g, y in zip(G, Y, strict=True))
    top = edges.overflow_threshold(acc) / 4  # as common.escapes
    over_k, over_yk = -(-top * (1 << k) // 1), -(-top * (1 << ky + k) // 1)  # ceil(top·2^k), ...
    e = min(acc.emin - ky, -(ky + k))  # the unit 2^e of the terms
    results, terms = [], []
    for y, g in zip(Y, G, strict=True):
        num = y * ((g << ky) - P)
        result = arith.ratio(num, 1 << ky + k, s)
        wide = (abs(g) << ky) + A
        if A >= over_k or wide >= over_k or wide * abs(y) >= over_yk:
            result = c.escaped(result)
        results.append(result)
        # |y|·(abs_dot + n·tiny) + |dx| + tiny in units of 2^e
        total = (((abs(y) * A + abs(num)) << -(ky + k) - e) + ((abs(y) * n) << acc.emin - ky - e)
                 + (1 << acc.emin - e))
        terms.append((n + 3, Fraction(total, 1 << -e) if e < 0 else Fraction(total << e)))
    return results, terms


NEAR_ZERO_EXP = -1100.0  # e^y below 2^-1586: under every format's smallest subnormal


def _exp_upper(y: float) -> Fraction:
    """A rational above e^y (finite y <= FAR_EXP), within 2^-50 relatively; for y far below
    every format's range, the bound 2^-1586 (the exact value would need 2^|y| digits)."""
    if y < NEAR_ZERO_EXP:
        return Fraction(1, 1 << 1586)
    return c.fraction_of_mpf(mpf_exp(mpf_of_float(y), 80)) * (1 + Fraction(1, 1 << 50))


def _ziv_difference(g: float, y: float, G: Fraction, s: FloatSpec):
    """(bits, exact) of g − e^y·G, y ≠ 0 and G ≠ 0 finite: the working precision grows with the
    cancellation, so each approximation's relative error stays within the loop's 2^(8 − w)."""
    Y, gm = mpf_of_float(y), mpf_of_float(g)
    Gm = c.mpf_of_fraction(G)

    def approx(w):
        wp = w + 24
        while True:
            t = mpf_mul(mpf_exp(Y, wp), Gm, wp)
            r = mpf_sub(gm, t, wp)
            if r[1]:
                lost = (t[2] + t[3]) - (r[2] + r[3])
                if lost + 12 <= wp - w:
                    return r
                wp = w + lost + 24
            else:
                wp *= 2

    bits, t = correctly_rounded(approx, s, slack=8)
    return bits, c.exact_of_mpf(t)


def _log_element(g, y: float, gf: float, G, s: FloatSpec):
    """dx = g − e^y·G as (bits, exact): exact or special where it can be, else the Ziv loop."""
    if y != y:
        return c.box(math.nan, s)
    e = math.inf if y == math.inf else Fraction(0) if y == -math.inf else Fraction(1) if y == 0 else None
    if e is not None or c.is_special(G) or c.is_special(g) or G == 0:
        # a finite nonzero e^y acts as its sign against a special, and disappears against G = 0
        return c.box(c.sub(g, c.mul(Fraction(1) if e is None else e, G)), s)
    magnitude = y * LOG2E + math.log2(abs(G.numerator)) - math.log2(G.denominator)
    if magnitude > s.emax + 4:
        return c.box(-math.copysign(math.inf, G), s)  # |e^y·G| is far beyond the format
    if magnitude < s.qmin - 64:
        # |e^y·G| is far below half the smallest subnormal and half an ulp of g: g − e^y·G rounds
        # as g − G·2^-16384 does (same side, same rounding). Its exact value would take 2^|y|
        # digits; this stand-in is off by less than 2^-16000, far below anything scored.
        return c.box(c.sub(g, G * Fraction(1, 1 << 16384)), s)
    return _ziv_difference(gf, y, G, s)


def _special_alternatives(result, G, n: int, abs_g: Fraction, s: FloatSpec, acc: FloatSpec):
    """An infinite result with what other arrangements give (module docstring)."""
    if not c.infinite(result, s):
        return result
    if c.is_special(G):
        return c.with_nan(result)
    # e^y·G is infinite (y = +inf, or far beyond the format): the computed G's sign decides it
    unsure = abs(G) <= (n - 1) * c.unit(acc) * abs_g + n * c.tiny(acc)
    return c.escaped(result) if unsure or c.escapes([abs_g], acc, low=False) else result


def log_softmax_backward_row(ys: list[float], gs: list[float], s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one row."""
    n = len(ys)
    gv = [c.value(g) for g in gs]
    G = c.total(gv)
    abs_g = sum((abs(g) for g in gv if not c.is_special(g)), Fraction(0))
    tiny = c.tiny(acc)
    results, terms = [], []
    for y, g, gf in zip(ys, gv, gs, strict=True):
        result = _log_element(g, y, gf, G, s)
        if result[1] is None or not math.isfinite(y) or c.is_special(G):
            results.append(_special_alternatives(result, G, n, abs_g, s, acc))
            terms.append((n, Fraction(0)))
            continue
        if y > FAR_EXP:
            results.append(c.escaped(result))
            terms.append(c.escaped_term(s, acc))
            continue
        e = _exp_upper(y)
        # an exact value too small for a Fraction (see common.exact_of_mpf) is below 2^-16384
        dx = abs(result[1]) if isinstance(result[1], Fraction) else Fraction(1, 1 << 16384)
        if c.escapes([e, abs_g, e * abs_g], acc, low=False):
            result = c.escaped(result)
        results.append(result)
        terms.append((n + 7, (e + tiny) * abs_g + dx + tiny))
    return results, terms
