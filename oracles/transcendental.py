"""Scalar semantics of the transcendental operations, correctly rounded.

Same calling convention as ``oracles.arith``: Python-float operands, an output ``FloatSpec``,
result ``(bits, exact)``. Special values follow C99 Annex F (IEEE 754); limits at ±inf are taken
as the mathematical limits (silu(−inf) = −0, gelu(−inf) = −0). Exact cases (exp(0) = 1, log(1) = 0,
sin(±0) = ±0, sigmoid(0) = 1/2, exact powers, ...) are settled before any approximation; all
other values go through the Ziv loop in ``oracles.ziv`` with mpmath's raw ``libmp`` functions.

Arguments so large that the result is certainly ±inf, ±0, ±1 or x itself in every format here
are short-cut (the thresholds are spelled out beside each one); there the "exact" value reported is
that limit, which differs from the true value by far less than 2^-1000 relative.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache, wraps

from mpmath import mp
from mpmath.libmp import (
    fone,
    from_int,
    from_rational,
    mpf_add,
    mpf_cos,
    mpf_div,
    mpf_erf,
    mpf_erfc,
    mpf_exp,
    mpf_log,
    mpf_mul,
    mpf_neg,
    mpf_pi,
    mpf_pow_int,
    mpf_shift,
    mpf_sin,
    mpf_sqrt,
    mpf_tanh,
    to_float,
)

from numerics.rounding import FloatSpec
from oracles.arith import INF, infinity, integer, nan, ratio, signbit, value, zero
from oracles.ziv import correctly_rounded, mpf_of_float


def _memoized(fn):
    """Cache results per (operands, output format): generated cases repeat edge values and hints
    over and over. The sign of each operand is part of the key (−0.0 == 0.0 as dict keys)."""

    @lru_cache(maxsize=1 << 16)
    def cached(args: tuple[float, ...], signs: tuple[bool, ...], s: FloatSpec):
        return fn(*args, s)

    @wraps(fn)
    def wrapper(*args):
        *operands, s = args
        return cached(tuple(operands), tuple(math.copysign(1.0, v) < 0 for v in operands), s)

    wrapper.cache_clear = cached.cache_clear
    return wrapper


def _ziv(approx, s: FloatSpec, slack: int = 8, negate: bool = False):
    bits, t = correctly_rounded(approx, s, slack)
    if negate:
        return bits ^ s.sign_bit, mp.make_mpf(mpf_neg(t))
    return bits, mp.make_mpf(t)


def _one(negative: bool, s: FloatSpec):
    return integer(-1 if negative else 1, False, s)


def _identity(x: float, s: FloatSpec):
    """x itself, rounded into s (the limit of f(x) = x·(1 − tiny) for large x, +inf at +inf)."""
    return value(x, s)


# --- unary -------------------------------------------------------------------------------------


@_memoized
def exp(x, s):
    if x != x:
        return nan(s)
    if x == 0:
        return _one(False, s)
    # e^2000 > 2^2885 overflows and e^-2000 < 2^-2885 underflows every format here
    if x > 2000:
        return infinity(False, s)
    if x < -2000:
        return zero(False, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_exp(X, w), s, slack=4)


@_memoized
def log(x, s):
    if x != x or x < 0:
        return nan(s)
    if x == 0:
        return infinity(True, s)
    if x == INF:
        return infinity(False, s)
    if x == 1:
        return zero(False, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_log(X, w), s, slack=4)


@_memoized
def sin(x, s):
    if x != x or x in (INF, -INF):
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_sin(X, w), s, slack=4)


@_memoized
def cos(x, s):
    if x != x or x in (INF, -INF):
        return nan(s)
    if x == 0:
        return _one(False, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_cos(X, w), s, slack=4)


@_memoized
def tanh(x, s):
    if x != x:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    # 1 − tanh(40) < 2^-114: rounds to ±1 in every format here
    if abs(x) > 40:
        return _one(x < 0, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_tanh(X, w), s, slack=4)


def _sigmoid_mpf(t: tuple, w: int) -> tuple:
    """1 / (1 + e^-t): no cancellation for either sign of t."""
    e = mpf_exp(mpf_neg(t), w + 8)
    return mpf_div(fone, mpf_add(fone, e, w + 8), w)


@_memoized
def sigmoid(x, s):
    if x != x:
        return nan(s)
    if x == 0:
        return ratio(1, 2, s)
    # e^-2000 < 2^-2885: sigmoid is 1 (rounded) above 2000 and 0 (rounded) below −2000
    if x > 2000:
        return _one(False, s)
    if x < -2000:
        return zero(False, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: _sigmoid_mpf(X, w), s)


@_memoized
def silu(x, s):
    if x != x:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    if x > 2000:
        return _identity(x, s)
    if x < -2000:  # |x|·e^x < 2^-2800, also the limit at −inf
        return zero(True, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_mul(X, _sigmoid_mpf(X, w + 4), w), s)


_GELU_C = from_rational(44715, 1000000, 256)  # exactly enough for any w <= 256; see _gelu_t


def _gelu_t(X: tuple, w: int) -> tuple:
    """2·sqrt(2/π)·(x + 0.044715·x³) with relative error below 2^-(w+1)."""
    c = _GELU_C if w <= 200 else from_rational(44715, 1000000, w + 56)
    k = mpf_sqrt(mpf_div(from_int(2), mpf_pi(w + 16), w + 16), w + 16)
    x3 = mpf_mul(mpf_mul(X, X, w + 16), X, w + 16)
    inner = mpf_add(X, mpf_mul(c, x3, w + 16), w + 16)  # same signs: no cancellation
    return mpf_shift(mpf_mul(k, inner, w + 16), 1)


@_memoized
def gelu_tanh(x, s):
    """0.5·x·(1 + tanh(u)) = x·sigmoid(2u), u = sqrt(2/π)(x + 0.044715x³): the sigmoid form
    avoids the cancellation of 1 + tanh(u) for negative x."""
    if x != x:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    # |2u| > 4600 beyond ±40: the factor is 1 or 0 to within e^-4600
    if x > 40:
        return _identity(x, s)
    if x < -40:
        return zero(True, s)
    X = mpf_of_float(x)

    def approx(w):
        # e^-t amplifies the relative error of t by |t| <= 2^13: carry 16 more bits
        t = _gelu_t(X, w + 16)
        return mpf_mul(X, _sigmoid_mpf(t, w + 4), w)

    return _ziv(approx, s)


@_memoized
def gelu_erf(x, s):
    """0.5·x·(1 + erf(x/√2)) = 0.5·x·erfc(−x/√2), cancellation-free for negative x."""
    if x != x:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    if x > 12:  # erfc(−12/√2) = 2 − 2e-33
        return _identity(x, s)
    if x < -40:  # 20·erfc(28.28) < 2^-1150
        return zero(True, s)
    X = mpf_of_float(x)

    def approx(w):
        # erfc(v) amplifies the relative error of v by about 2v² <= 2^11
        v = mpf_neg(mpf_div(X, mpf_sqrt(from_int(2), w + 24), w + 24))
        return mpf_shift(mpf_mul(X, mpf_erfc(v, w + 4), w), -1)

    return _ziv(approx, s)


@_memoized
def erf(x, s):
    if x != x:
        return nan(s)
    if x == 0:
        return zero(signbit(x), s)
    if abs(x) > 10:  # erfc(10) < 2^-150
        return _one(x < 0, s)
    X = mpf_of_float(x)
    return _ziv(lambda w: mpf_erf(X, w), s, slack=4)


# --- powers ------------------------------------------------------------------------------------


def _is_odd_integer(y: float) -> bool:
    return abs(y) < 2.0**53 and y == math.floor(y) and int(y) & 1 == 1


@_memoized
def power(x, y, s):
    """pow(x, y) with the C99 Annex F special cases."""
    if y == 0 or x == 1:
        return _one(False, s)  # even for NaN operands
    if x != x or y != y:
        return nan(s)
    y_odd = y not in (INF, -INF) and _is_odd_integer(y)
    if x == 0:
        negative = signbit(x) and y_odd
        return infinity(negative, s) if y < 0 else zero(negative, s)
    if y in (INF, -INF):
        if x == -1:
            return _one(False, s)
        if (abs(x) < 1) == (y < 0):
            return infinity(False, s)
        return zero(False, s)
    if x == INF:
        return infinity(False, s) if y > 0 else zero(False, s)
    if x == -INF:
        return infinity(y_odd, s) if y > 0 else zero(y_odd, s)
    y_integer = y == math.floor(y)
    if x < 0 and not y_integer:
        return nan(s)
    return _power_positive(abs(x), y, x < 0 and y_odd, s)


def _power_positive(ax: float, y: float, negative: bool, s: FloatSpec):
    """±ax^y for finite ax > 0, finite y != 0."""
    AX, Y = mpf_of_float(ax), mpf_of_float(y)
    # log2 of the result to ~2^-30 relative: decides certain overflow and underflow
    log2_result = to_float(mpf_mul(Y, mpf_div(mpf_log(AX, 48), mpf_log(from_int(2), 48), 48), 48))
    if log2_result > s.emax + 2:
        return infinity(negative, s)
    if log2_result < s.qmin - 2:
        return zero(negative, s)
    exact = _exact_power(ax, y)
    if exact is not None:
        n, d = exact.numerator, exact.denominator
        return ratio(-n if negative else n, d, s)
    if y == math.floor(y):
        k = int(y)
        return _ziv(lambda w: mpf_pow_int(AX, k, w), s, negate=negative)
    mag_bits = int(abs(log2_result)).bit_length() + 2

    def approx(w):
        wl = w + 16 + mag_bits  # e^t amplifies the relative error of t by |t|
        return mpf_exp(mpf_mul(Y, mpf_log(AX, wl), wl), w)

    return _ziv(approx, s, negate=negative)


def _exact_power(ax: float, y: float) -> Fraction | None:
    """ax^y as a Fraction when it is rational and cheap to form, else None.

    ax = m·2^e with m odd. For integer y the power is rational; it is formed exactly when its
    numerator stays below ~4096 bits (otherwise it has far more than p + 1 significant bits, so it
    is no rounding boundary and the Ziv loop ends). For y = a/2^k (k >= 1, a odd) the result is
    rational iff m is a perfect 2^k-th power and 2^k divides e.
    """
    n, d = ax.as_integer_ratio()
    if d == 1:
        tz = (n & -n).bit_length() - 1
        m, e = n >> tz, tz
    else:
        m, e = n, 1 - d.bit_length()
    if y == math.floor(y):
        k = int(y)
        if abs(k) * m.bit_length() > 4096:
            if m == 1:
                return Fraction(2) ** (e * k) if abs(e * k) < 1 << 14 else None
            return None
        return Fraction(ax) ** k
    a, b = y.as_integer_ratio()  # b = 2^k, k >= 1
    k = b.bit_length() - 1
    if e % b:
        return None
    root = m
    for _ in range(k):
        if root == 1:
            break
        r = math.isqrt(root)
        if r * r != root:
            return None
        root = r
    base = Fraction(root) * Fraction(2) ** (e // b)
    return base**a
