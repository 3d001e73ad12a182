"""Fast-path kernels of the exponential family: exp, tanh, sigmoid, silu, gelu (tanh form) and
log, each with its error analysis (conventions in ``oracles.fast.kernels``)."""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from oracles.fast.binary64 import _MAGIC, _SIGN, _abs, _bits, _mag, _negative, _where_ok

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



@cache
def _two_to_j32() -> np.ndarray:
    """T[j] = 2^(j/32) correctly rounded to binary64, j = 0..31 (by mpmath and the oracle's own
    rounding; computed on first use)."""
    from mpmath.libmp import from_man_exp, mpf_exp, mpf_ln2, mpf_mul

    from numerics.rounding import float_spec
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
