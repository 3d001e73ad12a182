"""binary64 approximations with proven relative error bounds, one kernel per OpKind.

Every kernel takes the regular operands (finite, nonzero, values of F32/F16/BF16, so at most 24
significant bits and magnitudes in [2^-149, 2^128)) as binary64 arrays and returns
``(y, bound, ok)``: approximations y, a relative error bound (scalar or per element) with
|v − y| <= bound·|y| for the exact value v wherever ``ok`` (None: everywhere), and the mask of
elements inside the kernel's domain (the others go to the pure path).

Arithmetic on floats is IEEE 754 binary64 only: + − × ÷ written as operators, ``np.sqrt``
(correctly rounded by the standard), conversions, and the magic-constant rounding to an integer
((z + 1.5·2^52) − 1.5·2^52, exact for |z| < 2^51). Magnitudes, signs, comparisons and selections
are done on the integer encodings. Error analysis notation: u = 2^-53, each operation
fl(a ∘ b) = (a ∘ b)(1 + δ), |δ| <= u (no operation here underflows or overflows on the domains
stated); γ_n = n·u/(1 − n·u). Horner's rule on a degree-n polynomial has error at most
γ_2n·Σ|c_i||t|^i (Higham, Accuracy and Stability of Numerical Algorithms, §5.1), which for
nonnegative coefficients and t >= 0 is a relative error γ_2n. Each claimed bound is the derived
one rounded up with a margin (the derived figure is stated beside it).
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

U = 2.0**-53
_ABS = np.uint64((1 << 63) - 1)
_SIGN = np.uint64(1 << 63)
_MAGIC = 6755399441055744.0  # 1.5·2^52: (z + M) − M is z rounded to the nearest integer
# ln 2 / 32 split as in fdlibm: HI has 32 significant bits (k·HI is exact for |k| < 2^21),
# |ln2/32 − HI − LO| < 2^-90 (checked against mpmath in tests/oracle/test_fast_path.py)
_L_HI = float.fromhex("0x1.62e42fee00000p-1") / 32
_L_LO = float.fromhex("0x1.a39ef35793c76p-33") / 32
_LN2_HI = float.fromhex("0x1.62e42fee00000p-1")
_LN2_LO = float.fromhex("0x1.a39ef35793c76p-33")
_INV_L = 32 / 0.6931471805599453  # only picks k: any value within 2^-40 relative will do
_SQRT2_BITS = np.float64(1.4142135623730951).view(np.uint64)
_GELU_C = 0.044715  # RN64 of the decimal (Python's parsing is correctly rounded)
_GELU_K = float.fromhex("0x1.9884533d43651p+0")  # RN64(2·sqrt(2/π)), checked in the tests


def _mag(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint64) & _ABS


def _bits(v: float) -> np.uint64:
    return np.float64(v).view(np.uint64)


def _negative(x: np.ndarray) -> np.ndarray:
    return (np.ascontiguousarray(x).view(np.uint64) & _SIGN) != 0


def _abs(x: np.ndarray) -> np.ndarray:
    return _mag(x).view(np.float64)


@cache
def _two_to_j32() -> np.ndarray:
    """T[j] = 2^(j/32) correctly rounded to binary64, j = 0..31 (by mpmath and the oracle's own
    rounding; computed on first use)."""
    from mpmath.libmp import from_man_exp, mpf_exp, mpf_ln2, mpf_mul

    from oracles.rounding import float_spec
    from oracles.ziv import correctly_rounded

    s = float_spec("F64")
    out = [np.float64(1.0).view(np.uint64)]
    for j in range(1, 32):
        def approx(w, j=j):  # (j/32)·ln2 exactly scaled, then e^·; relative error < 2^(4 − w)
            return mpf_exp(mpf_mul(from_man_exp(j, -5), mpf_ln2(w + 8), w + 8), w)

        out.append(correctly_rounded(approx, s, slack=4)[0])
    return np.array(out, dtype=np.uint64).view(np.float64)


# --- exp -----------------------------------------------------------------------------------------
#
# For |x| <= 700: k = nearest integer to x·32/ln2, r = (x − k·L_HI) − k·L_LO with L = ln2/32.
# |k| <= 32320 < 2^15, so k·L_HI is exact, and x − k·L_HI is exact (Sterbenz: x and k·L_HI are
# within a factor 2 of each other when k != 0). |r| <= L/2·(1 + 2^-30) < 0.01084; its error is at
# most u·|r| + u·|k·L_LO| + |k|·2^-90 < 0.011u (absolute, hence relative in e^r).
# e^r = p(r) + τ with p the degree-6 Taylor polynomial: |τ| <= |r|^7/7!·e^|r| < 3.8e-18 < 0.04u.
# Horner: γ_12·e^|r| / e^-|r| < 12.3u relative; the rounded coefficients 1/6, 1/24, 1/120,
# 1/720 add < 0.01u. T[j] is correctly rounded (u), the product T[j]·p(r) adds u, and the
# scaling by 2^m (m = k >> 5, |m| <= 1010) is exact. Total: < 14.5u. Claimed: 2^-48 = 32u.
EXP_BOUND = 2.0**-48
EXP_LIMIT = _bits(700.0)


def exp_core(x: np.ndarray) -> np.ndarray:
    """e^x for |x| <= 700, relative error < 14.5u (see above)."""
    kf = (x * _INV_L + _MAGIC) - _MAGIC
    r = (x - kf * _L_HI) - kf * _L_LO
    p = 1.0 + r * (1.0 + r * (0.5 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (1 / 720))))))
    k = kf.astype(np.int64)
    scale = ((k >> 5) + 1023).astype(np.uint64) << np.uint64(52)
    return (_two_to_j32()[k & 31] * p) * scale.view(np.float64)


def exp(x):
    ok = _mag(x) <= EXP_LIMIT
    return exp_core(_where_ok(x, ok, 0.0)), EXP_BOUND, ok


def _where_ok(x: np.ndarray, ok: np.ndarray, fill: float) -> np.ndarray:
    """x with the elements outside ``ok`` replaced by ``fill`` (a copy of bits, no arithmetic)."""
    if ok.all():
        return x
    x = x.copy()
    x[~ok] = fill
    return x


# --- tanh ----------------------------------------------------------------------------------------
#
# a = |x|, tanh(x) = sign(x)·tanh(a).
# a > 20: y = 1; 1 − tanh(a) < 2e^-40 < 0.08u.
# 0.25 <= a <= 20: E = exp_core(2a) (2a exact; < 14.5u), y = (E − 1)/(E + 1). E − 1 has relative
#   error < 14.5u·E/(E − 1) + u <= 14.5u·2.55 + u (E >= e^0.5), E + 1 < 15.5u, the quotient u:
#   total < 54.5u.
# a < 0.25: t = 2a < 0.5, expm1(t) = t·P(t), P(t) = Σ_{n=0}^{14} t^n/(n+1)!, positive
#   coefficients: Horner γ_28, rounded coefficients u, truncation < t^15/16!·1.03 < 0.02u, t·P
#   u: < 30.2u. y = E1/(E1 + 2) (d log y / d log E1 = 2/(E1 + 2) <= 1), the sum and the quotient
#   2u: total < 32.3u.
# Claimed: 2^-45 = 256u.
TANH_BOUND = 2.0**-45
_EXPM1_COEFFS = [1.0 / math.factorial(n + 1) for n in range(15)]  # (n+1)! < 2^53: each RN64


def _expm1_small(t: np.ndarray) -> np.ndarray:
    """e^t − 1 for 0 <= t < 0.5, relative error < 30.2u (see above)."""
    p = np.full(t.shape, _EXPM1_COEFFS[14])
    for c in _EXPM1_COEFFS[13::-1]:
        p = p * t + c
    return t * p


def tanh(x):
    a = _abs(x)
    ma = _mag(x)
    y = np.ones(x.shape)
    small = ma < _bits(0.25)
    mid = ~small & (ma <= _bits(20.0))
    t = a[small] + a[small]
    e1 = _expm1_small(t)
    y[small] = e1 / (e1 + 2.0)
    e = exp_core(a[mid] + a[mid])
    y[mid] = (e - 1.0) / (e + 1.0)
    y = (_mag(y) | (np.ascontiguousarray(x).view(np.uint64) & _SIGN)).view(np.float64)
    return y, TANH_BOUND, None


# --- sigmoid, silu -------------------------------------------------------------------------------
#
# x > 40: sigmoid = 1 within e^-40 < 0.04u relative (silu: y = x, same bound).
# -700 <= x <= 40: t = exp_core(−x) (< 14.5u), 1 + t < 14.5u·t/(1 + t) + u, the quotient 1/(1 + t)
#   or x/(1 + t) u: total < 16.5u. Claimed: 2^-46 = 128u. x < −700: the pure path.
SIGMOID_BOUND = 2.0**-46


def _sigmoid_parts(x):
    neg = _negative(x)
    mx = _mag(x)
    ok = ~neg | (mx <= EXP_LIMIT)
    sat = ~neg & (mx > _bits(40.0))
    calc = ok & ~sat
    return ok, sat, calc


def sigmoid(x):
    ok, sat, calc = _sigmoid_parts(x)
    if calc.all():
        return 1.0 / (1.0 + exp_core(0.0 - x)), SIGMOID_BOUND, ok
    y = np.ones(x.shape)
    y[calc] = 1.0 / (1.0 + exp_core(0.0 - x[calc]))
    return y, SIGMOID_BOUND, ok


def silu(x):
    ok, sat, calc = _sigmoid_parts(x)
    if calc.all():
        return x / (1.0 + exp_core(0.0 - x)), SIGMOID_BOUND, ok
    y = x.copy()
    xc = x[calc]
    y[calc] = xc / (1.0 + exp_core(0.0 - xc))
    return y, SIGMOID_BOUND, ok


# --- gelu (tanh form) ----------------------------------------------------------------------------
#
# gelu(x) = x·sigmoid(z), z = 2·sqrt(2/π)·(x + 0.044715·x³) (the pure path's form).
# |x| <= 10: x² is exact (x has <= 24 significant bits), x³ u, C·x³ u (+ u for C = RN64(0.044715)),
#   x + C·x³ (same signs) u, K·(...) u (+ u for K = RN64(2·sqrt(2/π))): ẑ = z(1 + δ), |δ| < 6.01u,
#   so e^-ẑ = e^-z·(1 + ε), |ε| < 6.02u·|z|. With exp_core (< 14.5u), 1 + t and the quotient x/(1 + t)
#   (2u): relative error < 16.5u + 6.02u·|z|. Claimed per element: 2^-46 + 2^-48·|ẑ| (128u + 32u·|ẑ|).
# x > 10: y = x; z > 87, 1 − sigmoid(z) < e^-87. x < −10: the pure path.
GELU_BASE = 2.0**-46


def gelu(x):
    neg = _negative(x)
    mx = _mag(x)
    ok = ~neg | (mx <= _bits(10.0))
    calc = ok & (mx <= _bits(10.0))
    if calc.all():  # the common case: no gather and scatter
        z = _GELU_K * (x + _GELU_C * (x * x * x))
        return x / (1.0 + exp_core(0.0 - z)), GELU_BASE + 2.0**-48 * _abs(z), ok
    y = x.copy()
    xc = x[calc]
    z = _GELU_K * (xc + _GELU_C * (xc * xc * xc))
    y[calc] = xc / (1.0 + exp_core(0.0 - z))
    bound = np.full(x.shape, GELU_BASE)
    bound[calc] = GELU_BASE + 2.0**-48 * _abs(z)
    return y, bound, ok


# --- log -----------------------------------------------------------------------------------------
#
# x > 0 (F32/F16/BF16 values are normal binary64): x = 2^k·m, m in [sqrt(2)/2, sqrt(2)) from the
# encoding (exact). f = (m − 1)/(m + 1): m − 1 exact (Sterbenz), |f| <= 0.1716, relative error 2u.
# log m = 2f·Q(s), s = f², Q(s) = Σ_{n=0}^{10} s^n/(2n+1) (atanh series); truncation
# < s^11/23/(1 − s) < 0.01u (s <= 0.0295). Horner with positive coefficients γ_20, coefficient
# rounding u, ŝ's error 5u·sQ'/Q < 0.05u, the product u: log m within 24.1u relative.
# y = k·LN2_HI + (k·LN2_LO + log m): k·LN2_HI exact (|k| <= 150), the rest adds u·|t2| + u·|y| and
# < 2^-80 absolute; |log m| <= 0.347 <= |y| when k != 0, so the total stays < 26.2u relative.
# Claimed: 2^-46 = 128u. x = 1 gives y = 0 (exact; the certifier leaves it to the pure path).
LOG_BOUND = 2.0**-46
_LOG_COEFFS = [1.0 / (2 * n + 1) for n in range(11)]


def log(x):
    ok = ~_negative(x)
    b = np.ascontiguousarray(x).view(np.uint64)
    mant = b & np.uint64((1 << 52) - 1)
    high = (mant | np.uint64(1023 << 52)) >= _SQRT2_BITS
    k = (b >> np.uint64(52)).astype(np.int64) - 1023 + high
    m = (mant | ((np.uint64(1023) - high.astype(np.uint64)) << np.uint64(52))).view(np.float64)
    f = (m - 1.0) / (m + 1.0)
    s = f * f
    q = np.full(s.shape, _LOG_COEFFS[10])
    for c in _LOG_COEFFS[9::-1]:
        q = q * s + c
    lm = (f + f) * q
    kf = k.astype(np.float64)
    y = kf * _LN2_HI + (kf * _LN2_LO + lm)
    return y, LOG_BOUND, ok


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


def _flip(y, mask):
    """y with the sign of the elements in ``mask`` flipped (exact)."""
    b = np.ascontiguousarray(y).view(np.uint64) ^ (mask.astype(np.uint64) << np.uint64(63))
    return b.view(np.float64)


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


# --- square roots and reciprocals ----------------------------------------------------------------
# sqrt: IEEE squareRoot, correctly rounded: u (claimed 2^-49 = 16u). rsqrt = 1/sqrt:
# (1 + u)/(1 − u) − 1 < 2.01u (claimed 2^-48 = 32u). recip: u (claimed 16u). Negative operands:
# the pure path (NaN).


def sqrt(x):
    return np.sqrt(x), 2.0**-49, ~_negative(x)


def rsqrt(x):
    return 1.0 / np.sqrt(x), 2.0**-48, ~_negative(x)


def recip(x):
    return 1.0 / x, 2.0**-49, None


# --- binary arithmetic ---------------------------------------------------------------------------
# add/sub: s = fl(a ± b) and its exact rounding error by Knuth's TwoSum (no overflow: operands are
# below 2^128); where the error is 0 the sum is exact (bound 0), else |s − v| <= u·|v| (claimed
# 2^-49 = 16u relative to s). mul: operands have <= 24 significant bits and magnitudes in [2^-149, 2^128),
# so the product (<= 48 bits, within [2^-298, 2^256]) is exact in binary64: bound 0.
# div: correctly rounded quotient: u (claimed 16u).


def _two_sum_bound(a, b, s):
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    bound = np.full(s.shape, 2.0**-49)
    bound[_mag(err) == 0] = 0.0
    return bound


def add(a, b):
    s = a + b
    return s, _two_sum_bound(a, b, s), None


def sub(a, b):
    s = a - b
    return s, _two_sum_bound(a, 0.0 - b, s), None


def mul(a, b):
    return a * b, 0.0, None


def div(a, b):
    return a / b, 2.0**-49, None


# OpKind -> (arity, kernel)
KERNELS = {
    "ExpElementwise": (1, exp),
    "LogElementwise": (1, log),
    "TanhElementwise": (1, tanh),
    "SinElementwise": (1, sin),
    "CosElementwise": (1, cos),
    "SigmoidElementwise": (1, sigmoid),
    "SiluElementwise": (1, silu),
    "GeluElementwise": (1, gelu),
    "ErfElementwise": (1, erf),
    "GeluErfElementwise": (1, gelu_erf),
    "SqrtElementwise": (1, sqrt),
    "RsqrtElementwise": (1, rsqrt),
    "RecipElementwise": (1, recip),
    "AddElementwise": (2, add),
    "SubElementwise": (2, sub),
    "MulElementwise": (2, mul),
    "DivElementwise": (2, div),
}
