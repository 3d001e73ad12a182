"""An independent reference for the oracle's cross-check tests: MPFR through gmpy2.

Every function (MPFR's own, or composed from them for sigmoid, silu and the GELUs) is evaluated
at a high precision P and rounded once into the format with MPFR's round-to-nearest; the result
is accepted only if 2P gives the same bits. (gmpy2's subnormalising contexts round some results
twice, e.g. ``square``, so they serve only the exact remainder below.)
"""

from __future__ import annotations

import math

import gmpy2
import numpy as np

from numerics.formats import get_format

WIDE_PREC = 192


def _exact(x: float) -> gmpy2.mpfr:
    return gmpy2.mpfr(x, 64)


def _bits(value: float, fmt: str) -> int:
    f = get_format(fmt)
    return int(np.array([value], dtype=np.float64).astype(f.numpy_dtype).view(f.bits_dtype)[0])


def _to_format(v, fmt: str) -> tuple[int, bool]:
    """One rounding of a wide mpfr into the format, and whether ``v`` sat exactly on a tie (a
    wide approximation that lands on a tie decides nothing). Converting under a subnormalising
    context rounds twice in gmpy2 (first to p bits, then to the subnormal grid), so the precision
    is set from the exponent here instead."""
    f = get_format(fmt)
    if gmpy2.is_nan(v) or gmpy2.is_infinite(v) or v == 0:
        return _bits(float(v), fmt), False
    exp, _ = gmpy2.frexp(v)  # |v| = m·2^exp, m in [1/2, 1)
    prec = f.precision - max(0, (f.emin + 1) - exp)
    if prec < 1:  # below the smallest subnormal 2^qmin: 0 or 2^qmin
        half = gmpy2.mpfr(2) ** (f.emin - f.precision)
        mag = 1 if (v > half or v < -half) else 0  # abs() would round to the context precision
        sign = 1 << (f.bits - 1) if v < 0 else 0
        return sign | mag, v == half or v == -half
    with gmpy2.context(precision=prec, round=gmpy2.RoundToNearest):
        r = gmpy2.mpfr(v)
    with gmpy2.context(precision=prec + 1):
        tie = r != v and gmpy2.mpfr(v) == v
    if r >= gmpy2.mpfr(2) ** (f.emax + 1) or r <= -(gmpy2.mpfr(2) ** (f.emax + 1)):
        return _bits(math.copysign(math.inf, float(r)), fmt), tie
    return _bits(float(r), fmt), tie


DIRECT = {
    "ExpElementwise": gmpy2.exp,
    "LogElementwise": gmpy2.log,
    "SinElementwise": gmpy2.sin,
    "CosElementwise": gmpy2.cos,
    "TanhElementwise": gmpy2.tanh,
    "ErfElementwise": gmpy2.erf,
    "SqrtElementwise": gmpy2.sqrt,
    "SqrElementwise": gmpy2.square,
    "RecipElementwise": lambda x: 1 / x,
    # IEEE 754 rSqrt(−0) is −inf; MPFR's rec_sqrt returns +inf for both zeros
    "RsqrtElementwise": lambda x: gmpy2.rec_sqrt(x) if x != 0 else 1 / x,
    "AddElementwise": lambda a, b: a + b,
    "SubElementwise": lambda a, b: a - b,
    "MulElementwise": lambda a, b: a * b,
    "DivElementwise": lambda a, b: a / b,
    "PowElementwise": lambda a, b: a**b,
}


def _sigmoid(x):
    return 1 / (1 + gmpy2.exp(-x))


def _silu(x):
    return x / (1 + gmpy2.exp(-x))


def _gelu_tanh(x):
    u = gmpy2.sqrt(2 / gmpy2.const_pi()) * (x + gmpy2.mpfr("0.044715") * x**3)
    if u >= -20:
        return x * (1 + gmpy2.tanh(u)) / 2
    return x / (1 + gmpy2.exp(-2 * u))  # 1 + tanh(u) = 2 / (1 + e^-2u), no cancellation


def _gelu_erf(x):
    v = x / gmpy2.sqrt(2)
    if x >= 0:
        return x * (1 + gmpy2.erf(v)) / 2
    return x * gmpy2.erfc(-v) / 2


COMPOSITE = {
    "SigmoidElementwise": _sigmoid,
    "SiluElementwise": _silu,
    "GeluElementwise": _gelu_tanh,
    "GeluErfElementwise": _gelu_erf,
}

FUNCTIONS = {**DIRECT, **COMPOSITE}


def reference_bits(op_kind: str, args: tuple[float, ...], fmt: str) -> int:
    """The correctly rounded bits of ``op_kind`` at ``args`` in ``fmt``, per MPFR: evaluated at
    precision P and 2P, each rounded once into the format, and accepted when both agree."""
    xs = [_exact(a) for a in args]
    fn = FUNCTIONS[op_kind]
    prec = WIDE_PREC
    while prec <= 1 << 16:
        with gmpy2.context(precision=prec) as ctx:
            lo = fn(*xs)
            exact = not ctx.inexact
        b_lo, tie_lo = _to_format(lo, fmt)
        if exact:  # a tie of an exact value is a real tie, rounded to even above
            return b_lo
        with gmpy2.context(precision=2 * prec):
            hi = fn(*xs)
        b_hi, tie_hi = _to_format(hi, fmt)
        if b_lo == b_hi and not (tie_lo or tie_hi):
            return b_lo
        prec *= 4
    raise AssertionError(f"reference undecided for {op_kind}{args} in {fmt}")


def remainder_bits(a: float, b: float, fmt: str, floored: bool) -> int:
    """Floored remainder a − floor(a/b)·b (fmod, plus b when the signs differ, rounded once) or
    C fmod, per MPFR. 2300 bits hold any sum of two binary64 values exactly."""
    A, B = _exact(a), _exact(b)
    with gmpy2.context(precision=2300):
        r = gmpy2.fmod(A, B)  # exact
        if floored and not gmpy2.is_nan(r):
            if r != 0 and (r < 0) != (B < 0):
                r = r + B
            elif r == 0:
                r = gmpy2.copy_sign(gmpy2.mpfr(0), B)
    return _to_format(r, fmt)[0]


def fma_bits(x: float, mul: float, add: float, fmt: str) -> int:
    """mul·x + add with one rounding (MPFR's fma at a width that holds it exactly)."""
    with gmpy2.context(precision=4400):
        r = gmpy2.fma(_exact(x), _exact(mul), _exact(add))
    return _to_format(r, fmt)[0]


def sum_bits(values: list[float], fmt: str, mean: bool) -> int:
    """Σ values (exact at 2400 + log2(n) bits), or Σ/n rounded once, per MPFR."""
    with gmpy2.context(precision=2400 + len(values).bit_length()):
        total = gmpy2.mpfr(0)
        for v in values:
            total = total + _exact(v)
    if not mean:
        return _to_format(total, fmt)[0]
    if not values:
        return _bits(math.nan, fmt)
    prec = WIDE_PREC
    while True:
        with gmpy2.context(precision=prec) as ctx:
            m = total / len(values)
            exact = not ctx.inexact
        b, tie = _to_format(m, fmt)
        if exact:
            return b
        with gmpy2.context(precision=2 * prec):
            b2, tie2 = _to_format(total / len(values), fmt)
        if b == b2 and not (tie or tie2):
            return b
        prec *= 4
