"""Correct rounding of exact values into the FKC formats, and exact decoding of their bits.

Everything here is integer arithmetic on Python ints: a value is rounded to nearest, ties to
even, with gradual underflow (subnormals) and overflow to ±inf, and comes back as the bit pattern
of the format. A format without infinities (F8E4M3) overflows to NaN instead: its magnitude one
past the largest finite is the NaN, so the same clamp gives it. numpy only boxes those bit patterns into arrays of the right dtype (a view, exact).

For a binary float format with precision p the magnitude bits of a finite value M·2^q, with
q >= qmin = emin − p + 1 and M < 2^p (M >= 2^(p−1) unless q == qmin), are simply
``((q − qmin) << (p − 1)) + M``; the same formula covers subnormals, the smallest normal and a
carry into the next binade, which keeps the rounding routines short.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from numerics.formats import Format, get_format


@dataclass(frozen=True)
class FloatSpec:
    """Constants of one binary float format, precomputed once (see ``float_spec``)."""

    name: str
    bits: int
    p: int  # precision in bits, implicit bit included
    emin: int
    emax: int
    qmin: int  # exponent of the smallest subnormal: emin − p + 1
    sign_bit: int
    inf_mag: int  # magnitude bits of +inf (one past the largest finite; NaN where no inf)
    nan_bits: int  # the canonical quiet NaN
    has_inf: bool  # False for F8E4M3: overflow and ±inf round to NaN, the format has no inf
    bits_dtype: np.dtype
    dtype: np.dtype


@cache
def float_spec(fmt: str | Format) -> FloatSpec:
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    if not f.is_float:
        raise ValueError(f"{f.name} is not a float format")
    p = f.precision
    emin = f.emin
    inf_mag = f.inf_mag
    return FloatSpec(
        name=f.name,
        bits=f.bits,
        p=p,
        emin=emin,
        emax=f.emax,
        qmin=emin - p + 1,
        sign_bit=1 << (f.bits - 1),
        inf_mag=inf_mag,
        nan_bits=f.nan_mag,
        has_inf=f.has_inf,
        bits_dtype=f.bits_dtype,
        dtype=f.numpy_dtype,
    )


# --- rounding exact values to bits -------------------------------------------------------------


def round_dyadic(negative: bool, m: int, e: int, s: FloatSpec) -> int:
    """Bits of the value ±m·2^e (m >= 0) rounded to nearest-even into the format of ``s``."""
    if m == 0:
        return s.sign_bit if negative else 0
    q = max(m.bit_length() - 1 + e, s.emin) - s.p + 1
    shift = q - e
    if shift <= 0:
        big = m << -shift
    else:
        big = m >> shift
        rem = m & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if rem > half or (rem == half and big & 1):
            big += 1
    mag = ((q - s.qmin) << (s.p - 1)) + big
    if mag >= s.inf_mag:
        mag = s.inf_mag
    return int(mag) | s.sign_bit if negative else int(mag)


def round_ratio(negative: bool, n: int, d: int, s: FloatSpec) -> int:
    """Bits of ±n/d (n >= 0, d > 0) rounded to nearest-even into the format of ``s``."""
    if n == 0:
        return s.sign_bit if negative else 0
    if d & (d - 1) == 0:  # a power of two: the cheap dyadic path
        return round_dyadic(negative, n, 1 - d.bit_length(), s)
    e = n.bit_length() - d.bit_length()  # floor(log2(n/d)) is e or e − 1
    if (n << -e if e < 0 else n) < (d << e if e > 0 else d):
        e -= 1
    q = max(e, s.emin) - s.p + 1
    if q >= 0:
        big, rem = divmod(n, d << q)
        den = d << q
    else:
        big, rem = divmod(n << -q, d)
        den = d
    twice = rem << 1
    if twice > den or (twice == den and big & 1):
        big += 1
    mag = ((q - s.qmin) << (s.p - 1)) + big
    if mag >= s.inf_mag:
        mag = s.inf_mag
    return int(mag) | s.sign_bit if negative else int(mag)


def round_sqrt_ratio(n: int, d: int, s: FloatSpec) -> int:
    """Bits of +sqrt(n/d) (n >= 0, d > 0) rounded to nearest-even, decided exactly."""
    if n == 0:
        return 0
    # floor(log2 sqrt(n/d)) = floor(floor(log2(n/d)) / 2)
    e2 = n.bit_length() - d.bit_length()
    if (n << -e2 if e2 < 0 else n) < (d << e2 if e2 > 0 else d):
        e2 -= 1
    q = max(e2 >> 1, s.emin) - s.p + 1
    # M = round(sqrt(n/d) / 2^q) = round(sqrt(n·2^(−2q) / d))
    if q >= 0:
        num, den = n, d << (2 * q)
    else:
        num, den = n << (-2 * q), d
    big = math.isqrt(num // den)
    # round up iff sqrt(num/den) > big + 1/2, i.e. 4·num > (2·big + 1)^2·den (equality: a tie)
    lhs = num << 2
    rhs = (2 * big + 1) ** 2 * den
    if lhs > rhs or (lhs == rhs and big & 1):
        big += 1
    mag = ((q - s.qmin) << (s.p - 1)) + big
    return int(min(mag, s.inf_mag))


def round_fraction(value: Fraction | int, s: FloatSpec, negative_zero: bool = False) -> int:
    """Bits of an exact rational; ``negative_zero`` picks the sign when the value is 0."""
    if value == 0:
        return s.sign_bit if negative_zero else 0
    n, d = value.numerator, value.denominator
    return round_ratio(n < 0, abs(n), d, s)


def round_float(x: float, s: FloatSpec) -> int:
    """Bits of the Python float ``x`` (exact binary64 value, or ±inf/NaN) rounded into ``s``."""
    if x != x:
        return s.nan_bits
    if x == math.inf:
        return s.inf_mag
    if x == -math.inf:
        return s.inf_mag | s.sign_bit
    if x == 0.0:
        return s.sign_bit if math.copysign(1.0, x) < 0 else 0
    n, d = x.as_integer_ratio()
    return round_dyadic(n < 0, -n if n < 0 else n, 1 - d.bit_length(), s)


# --- decoding bits -----------------------------------------------------------------------------


def decode_fraction(bits: int, s: FloatSpec) -> Fraction | float:
    """The exact value of a bit pattern: a Fraction when finite, else the float ±inf/NaN.

    ±0 both decode to Fraction(0); the sign bit tells them apart.
    """
    bits = int(bits)
    negative = bool(bits & s.sign_bit)
    mag = bits & (s.sign_bit - 1)
    if mag >= s.inf_mag:
        if mag == s.inf_mag and s.has_inf:
            return -math.inf if negative else math.inf
        return math.nan
    hidden = 1 << (s.p - 1)
    biased = mag >> (s.p - 1)
    frac = mag & (hidden - 1)
    if biased == 0:
        m, q = frac, s.qmin
    else:
        m, q = frac | hidden, s.qmin + biased - 1
    if negative:
        m = -m
    return Fraction(m << q) if q >= 0 else Fraction(m, 1 << -q)


def decode_float(bits: int, s: FloatSpec) -> float:
    """The value of a bit pattern as a Python float (exact: every format here fits binary64)."""
    v = decode_fraction(bits, s)
    if isinstance(v, float):
        return v
    if v == 0:
        return -0.0 if int(bits) & s.sign_bit else 0.0
    return float(v)


# --- boxing bits into numpy --------------------------------------------------------------------


def bits_to_array(bits: list[int], fmt: str, shape: tuple[int, ...]) -> np.ndarray:
    """A numpy array of dtype ``fmt`` (ml_dtypes.bfloat16 for BF16) holding these bit patterns."""
    s = float_spec(fmt)
    return np.array(bits, dtype=s.bits_dtype).view(s.dtype).reshape(shape)


def array_to_bits(arr: np.ndarray, fmt: str) -> np.ndarray:
    """The bit patterns of a float array, as the unsigned integer dtype of the same width."""
    s = float_spec(fmt)
    return np.ascontiguousarray(np.asarray(arr, dtype=s.dtype)).view(s.bits_dtype)


# --- integer formats ---------------------------------------------------------------------------

_INT_RANGES = {
    "BOOL": (0, 1),
    "I8": (-(1 << 7), (1 << 7) - 1),
    "U8": (0, (1 << 8) - 1),
    "I16": (-(1 << 15), (1 << 15) - 1),
    "U32": (0, (1 << 32) - 1),
    "I32": (-(1 << 31), (1 << 31) - 1),
    "I64": (-(1 << 63), (1 << 63) - 1),
}


def int_range(fmt: str) -> tuple[int, int]:
    try:
        return _INT_RANGES[fmt]
    except KeyError:
        raise ValueError(f"{fmt} is not an integer or bool format") from None


def store_int(value: int, fmt: str, overflow: str) -> int:
    """An exact integer stored into integer format ``fmt``: past the range, clamped to its
    nearest end (``overflow`` "saturate") or taken modulo 2^bits ("wrap").

    >>> store_int(300, "I8", "saturate"), store_int(300, "I8", "wrap")
    (127, 44)
    """
    lo, hi = int_range(fmt)
    if overflow == "saturate":
        return min(max(value, lo), hi)
    return (value - lo) % (hi - lo + 1) + lo


def ints_to_array(values: list[int], fmt: str, shape: tuple[int, ...]) -> np.ndarray:
    """An array of an integer/bool format; values outside the format's range are an error."""
    lo, hi = int_range(fmt)
    for v in values:
        if not lo <= v <= hi:
            raise ValueError(f"value {v} does not fit {fmt} [{lo}, {hi}]")
    return np.array(values, dtype=get_format(fmt).numpy_dtype).reshape(shape)


def bits_to_fraction(bits: int, fmt: str | Format) -> Fraction:
    """The exact value of a finite bit pattern of ``fmt``; ±inf and NaN are an error."""
    s = float_spec(fmt)
    v = decode_fraction(bits, s)
    if isinstance(v, float):
        raise ValueError(f"bits {int(bits):#x} of {s.name} encode {v}, which has no exact value")
    return v
