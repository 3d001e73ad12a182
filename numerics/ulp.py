"""ULP arithmetic of SPEC §4.

``ordinal`` maps the bit pattern of every non-NaN value of a float format onto consecutive
integers: ±0 -> 0, the smallest positive subnormal -> 1, ..., the largest finite -> N, +inf ->
N + 1, and negative values to the negated ordinal of their magnitude. The ULP distance of two
values is the difference of their ordinals. NaN has no ordinal: callers decide NaN-ness first;
``ordinal`` maps a NaN to a value beyond ±inf and ``ulp_distance`` returns ``NAN_DISTANCE``
wherever either side is NaN, so a forgotten NaN check reads as a huge error, never as a match.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from numerics.formats import Format, get_format

NAN_DISTANCE = np.iinfo(np.int64).max  # sentinel for "a NaN is involved"


def _fmt(fmt: Format | str) -> Format:
    f = fmt if isinstance(fmt, Format) else get_format(fmt)
    if not f.is_float:
        raise ValueError(f"ULP arithmetic needs a float format, got {f.name}")
    return f


def _bits(values, f: Format) -> np.ndarray:
    """Bit patterns of ``values``: arrays of the format's dtype are viewed, integer arrays and
    Python ints are taken as bit patterns already."""
    arr = np.asarray(values)
    if arr.dtype == f.numpy_dtype:
        return np.ascontiguousarray(arr).view(f.bits_dtype)
    if arr.dtype.kind in "ui" or arr.dtype == object:
        return arr.astype(f.bits_dtype)
    raise TypeError(f"expected {f.name} values or their bit patterns, got dtype {arr.dtype}")


def ordinal(bits_or_array, fmt: Format | str) -> np.ndarray:
    """Ordered integer of each value (int64 array; a Python int for a scalar input)."""
    f = _fmt(fmt)
    scalar = np.ndim(bits_or_array) == 0
    b = _bits(bits_or_array, f).astype(np.uint64)
    sign = np.uint64(1) << np.uint64(f.bits - 1)
    mag = (b & (sign - np.uint64(1))).astype(np.int64)
    out = np.where((b & sign) != 0, -mag, mag)
    return int(out) if scalar else out


def ulp_distance(observed, expected, fmt: Format | str) -> np.ndarray:
    """|ordinal(observed) − ordinal(expected)| element-wise, as int64.

    Where either side is NaN the result is ``NAN_DISTANCE``; a distance that does not fit int64
    (only possible in F64 between values of opposite signs near ±max) saturates to it as well.
    """
    f = _fmt(fmt)
    ob, eb = _bits(observed, f), _bits(expected, f)
    oo, oe = ordinal(ob, f), ordinal(eb, f)
    nan_mag = f.first_nan_mag
    o_nan = np.abs(oo) >= nan_mag
    e_nan = np.abs(oe) >= nan_mag
    # magnitudes are < 2^63, so each side fits; the difference may not: compute it in float to
    # detect overflow, then exactly in int64 where it fits
    approx = np.abs(oo.astype(np.float64) - oe.astype(np.float64))
    fits = approx < 2.0**62
    diff = np.where(fits, np.abs(np.where(fits, oo, 0) - np.where(fits, oe, 0)), NAN_DISTANCE)
    return np.where(o_nan | e_nan, NAN_DISTANCE, diff).astype(np.int64)


def _floor_log2(x: Fraction) -> int:
    n, d = abs(x.numerator), x.denominator
    e = n.bit_length() - d.bit_length()
    if (n << -e if e < 0 else n) < (d << e if e > 0 else d):
        e -= 1
    return e


def _as_fraction(x) -> Fraction:
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"no ulp for the non-finite value {x}")
        return Fraction(*x.as_integer_ratio())
    mpf = getattr(x, "_mpf_", None)
    if mpf is not None:  # mpmath.mpf: exact dyadic
        sign, man, exp, _bc = mpf
        if not man and exp != 0:
            raise ValueError(f"no ulp for the non-finite value {x}")
        v = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
        return -v if sign else v
    if isinstance(x, np.generic):
        return _as_fraction(float(x))
    raise TypeError(f"ulp_of: expected an int, float, Fraction or mpf, got {type(x).__name__}")


as_fraction = _as_fraction  # public: exact Fraction of an int, float, Fraction or mpf


def dyadic(x) -> tuple[int, int] | None:
    """(n, e) with x = n · 2^e exactly, for a finite float, int, mpf or a Fraction whose
    denominator is a power of two; None for anything else (a non-dyadic Fraction, ±inf, NaN).
    The scorer's integer path: the same exact value as ``as_fraction`` without building one."""
    if isinstance(x, float):
        if not math.isfinite(x):
            return None
        n, d = x.as_integer_ratio()
        return n, 1 - d.bit_length()
    mpf = getattr(x, "_mpf_", None)
    if mpf is not None:
        sign, man, exp, _bc = mpf
        if not man and exp != 0:  # ±inf, NaN
            return None
        return (-int(man) if sign else int(man)), int(exp)
    if isinstance(x, Fraction):
        d = x.denominator
        return (x.numerator, 1 - d.bit_length()) if d & (d - 1) == 0 else None
    if isinstance(x, int):
        return x, 0
    return None


def ulp_of(x, fmt: Format | str) -> Fraction:
    """ulp_F(x) = 2^(max(floor(log2|x|), emin) − p + 1); ulp_F(0) is the smallest subnormal."""
    f = _fmt(fmt)
    v = _as_fraction(x)
    e = f.emin if v == 0 else max(_floor_log2(v), f.emin)
    q = e - f.precision + 1
    return Fraction(1 << q) if q >= 0 else Fraction(1, 1 << -q)


def ulp_real(observed, exact, fmt: Format | str) -> float:
    """|observed − exact| / ulp_F(exact), rounded to three decimals (inf if observed is ±inf)."""
    if isinstance(observed, float | np.floating) and math.isinf(float(observed)):
        return math.inf
    ex = _as_fraction(exact)
    err = abs(_as_fraction(observed) - ex)
    return round(float(err / ulp_of(ex, fmt)), 3)
