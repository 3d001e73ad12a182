"""Fast-path kernels for sin, cos, erf and gelu (erf form), each with its error analysis
(conventions in ``oracles.fast.kernels``)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from oracles.fast.binary64 import _MAGIC, _SIGN, _abs, _bits, _flip, _mag, _negative, _where_ok
from oracles.fast.exponential import exp_core

# --- sin, cos -----------------------------------------------------------------------------------
#
# |x| <= 2^17 (elsewhere the pure path). k = nearest integer to x·2/π (|k| < 2^17), π/2 split as
# P1 + P2 + P3 (P1, P2 with 33 significant bits, P3 = RN64 of the rest; |π/2 − P1 − P2 − P3| <
# 2^-119, checked in the tests), r = ((x − k·P1) − k·P2) − k·P3. k·P1 and k·P2 are exact
# (<= 50 bits); x − k·P1 is exact (Sterbenz); t2 = (x − k·P1) − k·P2 = r + k·P3 rounds by at most
# u·(|r| + |k·P3|), k·P3 by u·|k·P3|, the last subtraction by u·|r|, and the split leaves
# |k|·2^-119; with |P3| < 2^-65.9: |r̂ − r| <= 2.01u·|r̂| + |k|·2^-117 (E_r <= 2.01u +
# |k|·2^-117/|r̂|; for k = 0, r = x exactly). |r| <= π/4·(1 + 2^-30).
# sin r = r·S(s), s = r², S(s) = Σ_{n=0}^{8} (−s)^n/(2n+1)!: truncation < r^18/19! < 0.01u;
#   Horner γ_16·Σ|c_i|s^i/S(s) <= γ_16·sinh(r)/sin(r) < 16.1u·1.24, coefficient rounding 1.24u,
#   ŝ's rounding < 0.2u, the product u: < 22.5u, plus E_r (d log sin r / d log r <= 1).
# cos r = C(s) = Σ_{n=0}^{9} (−s)^n/(2n)!: truncation < r^20/20! < 0.01u; Horner
#   γ_18·cosh(r)/cos(r) < 18.1u·1.88, coefficients 1.9u, ŝ < 0.8u: < 37u, plus 0.79·E_r.
# The quadrant k mod 4 picks ±sin r or ±cos r (sign flips are exact). Claimed per element:
# 2^-46 + |k|·2^-115/|r̂| (>= 37u + 2·E_r).
TRIG_LIMIT = _bits(2.0**17)
_SIN_COEFFS = [(-1.0) ** n / math.factorial(2 * n + 1) for n in range(9)]
_COS_COEFFS = [(-1.0) ** n / math.factorial(2 * n) for n in range(10)]


@cache
def _pio2_parts() -> tuple[float, float, float]:
    """π/2 = P1 + P2 + P3 + δ, P1 and P2 truncated to 33 significant bits, P3 = RN64(rest)."""
    from fractions import Fraction

    from mpmath.libmp import mpf_pi, to_man_exp

    man, exp_ = to_man_exp(mpf_pi(400))
    half_pi = Fraction(man) * Fraction(2) ** (exp_ - 1)

    def truncate(q: Fraction, bits: int) -> float:
        e = q.numerator.bit_length() - q.denominator.bit_length()
        scale = Fraction(2) ** (bits - 1 - e)
        return float(Fraction((q * scale) // 1) / scale)  # <= 33 bits: exact as a float

    p1 = truncate(half_pi, 33)
    p2 = truncate(half_pi - Fraction(p1), 33)
    p3 = float(half_pi - Fraction(p1) - Fraction(p2))
    return p1, p2, p3


def _sin_cos_parts(x):
    ok = _mag(x) <= TRIG_LIMIT
    x = _where_ok(x, ok, 1.0)
    p1, p2, p3 = _pio2_parts()
    kf = (x * (2 / 3.141592653589793) + _MAGIC) - _MAGIC
    r = ((x - kf * p1) - kf * p2) - kf * p3
    s = r * r
    sp = np.full(s.shape, _SIN_COEFFS[8])
    for c in _SIN_COEFFS[7::-1]:
        sp = sp * s + c
    cp = np.full(s.shape, _COS_COEFFS[9])
    for c in _COS_COEFFS[8::-1]:
        cp = cp * s + c
    sin_r = r * sp
    quadrant = kf.astype(np.int64) & 3
    bound = 2.0**-46 + (_abs(kf) * 2.0**-115) / _abs(r)
    return ok, quadrant, sin_r, cp, bound


def sin(x):
    ok, q, sin_r, cos_r, bound = _sin_cos_parts(x)
    odd = (q & 1) == 1
    y = sin_r.copy()
    y[odd] = cos_r[odd]
    return _flip(y, q >= 2), bound, ok


def cos(x):
    ok, q, sin_r, cos_r, bound = _sin_cos_parts(x)
    odd = (q & 1) == 1
    y = cos_r.copy()
    y[odd] = sin_r[odd]
    return _flip(y, (q == 1) | (q == 2)), bound, ok


# --- erf, gelu (erf form) -------------------------------------------------------------------------
#
# erf(a), 0 < a <= 5.5: Kummer's series erf(a) = (2/√π)·a·e^{-a²}·M(2a²), M(v) = Σ_{n=0}^{89}
#   v^n/(2n+1)!!, all terms positive. a² and 2a² are exact (a has <= 24 significant bits); the
#   tail beyond n = 86 is below 2^-56·M for a <= 5.5 (checked in the tests). Horner with positive
#   coefficients and v >= 0: γ_178 < 178.1u, coefficients RN64 of 1/(2n+1)!! u; e^{-a²} by
#   exp_core (< 14.5u); the three products and the constant RN64(2/√π) 4u: < 198u relative.
# a > 5.5: erf = 1 within erfc(5.5) < 2^-46.9. Claimed: 2^-42 = 2048u. erf(−a) = −erf(a).
# gelu_erf(x) = x·(1 + erf(x/√2))/2 (the pure path's function, 0.5·x·erfc(−x/√2)).
#   t = |x|·RN64(1/√2) (relative 2u, which moves erf(t) by at most 2u more: t·erf'(t)/erf(t) <= 1).
#   x > 0: 1 + e (e = erf t within 200u) adds u, the product u (the halving is exact): < 203u.
#   x < 0: d = 1 − e (exact for e >= 1/2 by Sterbenz, else u) has relative error
#   200u·e/d + u, the product u. Claimed per element: 2^-42·(1 + 1.6·ê/d̂) (1.6 covers e/d against
#   the computed ê/d̂ whenever that bound is below 1/2; larger bounds certify nothing), and only
#   where ê/d̂ < 2^30 (the certifier takes bounds up to 2^-40 only: in effect x >= −0.95).
#   x > 7.78: y = x (1 − (1 + erf)/2 < erfc(5.5) < 2^-46.9); x < −7.78: pure.
ERF_BOUND = 2.0**-42
_ERF_TERMS = 90
_TWO_OVER_SQRT_PI = float.fromhex("0x1.20dd750429b6dp+0")  # RN64(2/√π), checked in the tests
_INV_SQRT2 = float.fromhex("0x1.6a09e667f3bcdp-1")  # RN64(1/√2), checked in the tests


@cache
def _erf_coeffs() -> list[float]:
    from fractions import Fraction

    out, df = [], 1
    for n in range(_ERF_TERMS):
        df *= 2 * n + 1
        out.append(float(Fraction(1, df)))  # Fraction -> float is correctly rounded
    return out


def _erf_positive(a: np.ndarray) -> np.ndarray:
    """erf(a) for 0 < a <= 5.5, relative error < 198u (see above)."""
    c = _erf_coeffs()
    a2 = a * a
    v = a2 + a2
    m = np.full(a.shape, c[-1])
    for coeff in c[-2::-1]:
        m = m * v + coeff
    return ((_TWO_OVER_SQRT_PI * a) * exp_core(0.0 - a2)) * m


def erf(x):
    a = _abs(x)
    y = np.ones(x.shape)
    calc = _mag(x) <= _bits(5.5)
    y[calc] = _erf_positive(a[calc])
    y = (_mag(y) | (np.ascontiguousarray(x).view(np.uint64) & _SIGN)).view(np.float64)
    return y, ERF_BOUND, None


def gelu_erf(x):
    neg = _negative(x)
    mx = _mag(x)
    ok = ~neg | (mx <= _bits(7.78))
    y = x.copy()
    bound = np.full(x.shape, ERF_BOUND)
    pos = ~neg & (mx <= _bits(7.78))
    xp = x[pos]
    e = _erf_positive(xp * _INV_SQRT2)
    y[pos] = (xp * (1.0 + e)) * 0.5
    negc = neg & ok
    xn = x[negc]
    e = _erf_positive((0.0 - xn) * _INV_SQRT2)
    d = 1.0 - e
    y[negc] = (xn * d) * 0.5
    ratio = e / d
    bound[negc] = ERF_BOUND + ERF_BOUND * 1.6 * ratio
    ok[negc] = _mag(ratio) < _bits(2.0**30)  # d > 0 here: e < 1 for t <= 5.5
    return y, bound, ok
