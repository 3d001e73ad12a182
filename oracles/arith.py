"""Scalar semantics of the exactly computable operations.

Each function takes the operands as Python floats (every FKC float format converts to binary64
exactly) and the output ``FloatSpec``, and returns ``(bits, exact)``: the correctly rounded bit
pattern and the exact real result (``Fraction``; an ``mpf`` for irrational square roots; None
where the result is NaN or ±inf). Python's float is used only to hold and compare operands, never
to compute a result: values are combined as integers via ``float.as_integer_ratio``.

Signed zeros follow IEEE 754: an exact zero sum is +0 unless both addends are −0, products and
quotients take the xor of the signs, and a result that underflows keeps the sign of its exact
value.
"""

from __future__ import annotations

import math
from fractions import Fraction

from numerics.rounding import FloatSpec, round_dyadic, round_float, round_ratio, round_sqrt_ratio

ZERO = Fraction(0)
NAN = math.nan
INF = math.inf


def signbit(x: float) -> bool:
    return math.copysign(1.0, x) < 0


def nan(s: FloatSpec):
    return s.nan_bits, None


def infinity(negative: bool, s: FloatSpec):
    return (s.inf_mag | s.sign_bit if negative else s.inf_mag), None


def zero(negative: bool, s: FloatSpec):
    return (s.sign_bit if negative else 0), ZERO


def ratio(n: int, d: int, s: FloatSpec, zero_negative: bool = False):
    """(bits, exact) of n/d, d > 0; ``zero_negative`` is the IEEE sign of an exact zero."""
    if n == 0:
        return zero(zero_negative, s)
    return round_ratio(n < 0, -n if n < 0 else n, d, s), Fraction(n, d)


def value(x: float, s: FloatSpec):
    """(bits, exact) of an operand passed through unchanged (a select)."""
    if x != x:
        return s.nan_bits, None
    if x in (INF, -INF):
        return round_float(x, s), None
    return round_float(x, s), (Fraction(*x.as_integer_ratio()) if x else ZERO)


def integer(k: int, negative_zero: bool, s: FloatSpec):
    """(bits, exact) of an integer result; a zero takes the given sign."""
    if k == 0:
        return zero(negative_zero, s)
    return round_dyadic(k < 0, abs(k), 0, s), Fraction(k)


# --- unary -------------------------------------------------------------------------------------


def neg(x, s):
    return value(-x, s)


def absolute(x, s):
    return value(abs(x), s)


def relu(x, s, nan_rule="to_zero"):
    if x != x:
        return zero(False, s) if nan_rule == "to_zero" else nan(s)
    return value(x, s) if x > 0 else zero(False, s)


def step(x, s, nan_rule="to_zero"):
    if x != x:
        return zero(False, s) if nan_rule == "to_zero" else nan(s)
    return integer(1, False, s) if x > 0 else zero(False, s)


def sign(x, s):
    if x != x:
        return nan(s)
    if x > 0:
        return integer(1, False, s)
    if x < 0:
        return integer(-1, False, s)
    return zero(False, s)  # (x > 0) − (x < 0): both zeros give +0


def floor(x, s):
    if x != x or x in (INF, -INF):
        return value(x, s)
    return integer(math.floor(x), signbit(x), s)


def ceil(x, s):
    if x != x or x in (INF, -INF):
        return value(x, s)
    return integer(math.ceil(x), signbit(x), s)


def round_to_integer(x, s, rounding="half_to_even"):
    if x != x or x in (INF, -INF):
        return value(x, s)
    n, d = abs(x).as_integer_ratio()
    k, r = divmod(n, d)
    twice = 2 * r
    if twice > d or (twice == d and (rounding == "half_away_from_zero" or k & 1)):
        k += 1
    return integer(-k if x < 0 else k, signbit(x), s)


def sqr(x, s):
    if x != x:
        return nan(s)
    if x in (INF, -INF):
        return infinity(False, s)
    n, d = x.as_integer_ratio()
    return ratio(n * n, d * d, s)


def recip(x, s):
    if x != x:
        return nan(s)
    if x in (INF, -INF):
        return zero(x < 0, s)
    if x == 0:
        return infinity(signbit(x), s)
    n, d = x.as_integer_ratio()
    return ratio(d if n > 0 else -d, abs(n), s)


def _sqrt_exact(n: int, d: int, prec: int):
    """Exact sqrt(n/d) as a Fraction when it is rational, else an mpf with ``prec`` bits."""
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    from mpmath import mp  # loaded on first use: the table is imported while contracts load
    from mpmath.libmp import from_man_exp, mpf_div, mpf_sqrt

    t = mpf_sqrt(mpf_div(from_man_exp(n, 0), from_man_exp(d, 0), prec + 8), prec)
    return mp.make_mpf(t)


def sqrt(x, s):
    if x != x or x < 0:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    if x == INF:
        return infinity(False, s)
    n, d = x.as_integer_ratio()
    return round_sqrt_ratio(n, d, s), _sqrt_exact(n, d, s.p + 64)


def rsqrt(x, s):
    if x != x or x < 0:
        return nan(s)
    if x == 0:
        return infinity(signbit(x), s)
    if x == INF:
        return zero(False, s)
    n, d = x.as_integer_ratio()
    return round_sqrt_ratio(d, n, s), _sqrt_exact(d, n, s.p + 64)


# --- binary ------------------------------------------------------------------------------------


def _common(a: float, b: float) -> tuple[int, int, int]:
    """Integers A, B and a power-of-two D with a = A/D and b = B/D."""
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    if da >= db:
        return na, nb * (da // db), da
    return na * (db // da), nb, db


def add(a, b, s):
    if a != a or b != b:
        return nan(s)
    a_inf, b_inf = a in (INF, -INF), b in (INF, -INF)
    if a_inf or b_inf:
        if a_inf and b_inf and a != b:
            return nan(s)
        return infinity((a if a_inf else b) < 0, s)
    if a == 0 and b == 0:
        return zero(signbit(a) and signbit(b), s)
    na, nb, d = _common(a, b)
    return ratio(na + nb, d, s)


def sub(a, b, s):
    return add(a, -b, s)


def mul(a, b, s):
    if a != a or b != b:
        return nan(s)
    negative = signbit(a) != signbit(b)
    if a in (INF, -INF) or b in (INF, -INF):
        if a == 0 or b == 0:
            return nan(s)
        return infinity(negative, s)
    if a == 0 or b == 0:
        return zero(negative, s)
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    return ratio(na * nb, da * db, s)


def div(a, b, s):
    if a != a or b != b:
        return nan(s)
    negative = signbit(a) != signbit(b)
    a_inf, b_inf = a in (INF, -INF), b in (INF, -INF)
    if a_inf:
        return nan(s) if b_inf else infinity(negative, s)
    if b_inf:
        return zero(negative, s)
    if b == 0:
        return nan(s) if a == 0 else infinity(negative, s)
    if a == 0:
        return zero(negative, s)
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    n, d = na * db, da * nb
    return ratio(n if d > 0 else -n, abs(d), s)


def fma(a, b, c, s):
    """a·b + c exactly, rounded once (the Affine definition)."""
    if a != a or b != b or c != c:
        return nan(s)
    prod_negative = signbit(a) != signbit(b)
    prod_inf = a in (INF, -INF) or b in (INF, -INF)
    if prod_inf and (a == 0 or b == 0):
        return nan(s)
    c_inf = c in (INF, -INF)
    if prod_inf:
        if c_inf and (c < 0) != prod_negative:
            return nan(s)
        return infinity(prod_negative, s)
    if c_inf:
        return value(c, s)
    na, da = a.as_integer_ratio()
    nb, db = b.as_integer_ratio()
    nc, dc = c.as_integer_ratio()
    np_, dp = na * nb, da * db
    if np_ == 0 and nc == 0:
        return zero(prod_negative and signbit(c), s)
    d = max(dp, dc)
    return ratio(np_ * (d // dp) + nc * (d // dc), d, s)


def _ordered_max(a: float, b: float) -> float:
    if a == b:  # equal values, or +0 against −0: prefer +0
        return b if signbit(a) else a
    return a if a > b else b


def _ordered_min(a: float, b: float) -> float:
    if a == b:
        return a if signbit(a) else b
    return a if a < b else b


def maximum(a, b, s, nan_rule="propagate"):
    return value(extremum(a, b, nan_rule, largest=True), s)


def minimum(a, b, s, nan_rule="propagate"):
    return value(extremum(a, b, nan_rule, largest=False), s)


def extremum(a: float, b: float, nan_rule: str, largest: bool) -> float:
    """IEEE 754-2019 maximum/minimum (``propagate``) or maximumNumber/minimumNumber
    (``ignore``: a NaN operand is missing); −0 orders below +0."""
    if a != a or b != b:
        if nan_rule == "ignore":
            if a != a and b != b:
                return NAN
            return b if a != a else a
        return NAN
    return _ordered_max(a, b) if largest else _ordered_min(a, b)


def clamp(x, lo, hi, s):
    """min(max(x, lo), hi) with NaN propagating from x; lo > hi yields hi."""
    if x != x:
        return nan(s)
    return value(_ordered_min(_ordered_max(x, lo), hi), s)


def remainder(a, b, s, convention="floored"):
    """floored: a − floor(a/b)·b (sign of the divisor, Python's %); truncated: C fmod."""
    if a != a or b != b or a in (INF, -INF) or b == 0:
        return nan(s)
    if b in (INF, -INF):
        if convention == "truncated" or a == 0 or (a < 0) == (b < 0):
            return value(a if a != 0 or convention == "truncated" else math.copysign(0.0, b), s)
        return value(b, s)
    na, nb, d = _common(a, b)
    if convention == "truncated":
        r = abs(na) % abs(nb)
        if na < 0:
            r = -r
        return ratio(r, d, s, zero_negative=signbit(a))
    return ratio(na % nb, d, s, zero_negative=b < 0)
