"""Correct rounding into every format: ties, subnormals, overflow, signed zeros, NaN."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from numerics.formats import get_format
from numerics.rounding import (
    bits_to_array,
    bits_to_fraction,
    decode_float,
    decode_fraction,
    float_spec,
    ints_to_array,
    round_float,
    round_fraction,
    round_ratio,
    round_sqrt_ratio,
)

FLOATS = ["F64", "F32", "F16", "BF16"]


def F(x) -> Fraction:
    return Fraction(x)


@pytest.mark.parametrize("fmt", FLOATS)
def test_ties_go_to_even(fmt):
    s = float_spec(fmt)
    ulp1 = Fraction(1, 2 ** (s.p - 1))
    one = round_fraction(F(1), s)
    assert round_fraction(1 + ulp1 / 2, s) == one  # tie between 1 (even) and 1 + ulp
    assert round_fraction(1 + 3 * ulp1 / 2, s) == one + 2  # tie between 1 + ulp (odd) and 1 + 2ulp
    assert round_fraction(1 + ulp1 / 2 + Fraction(1, 2**200), s) == one + 1  # just above the tie
    assert round_fraction(1 + ulp1 / 2 - Fraction(1, 2**200), s) == one


@pytest.mark.parametrize("fmt", FLOATS)
def test_subnormal_range(fmt):
    s = float_spec(fmt)
    tiny = Fraction(1, 2 ** -s.qmin) if s.qmin < 0 else Fraction(2**s.qmin)
    assert round_fraction(tiny, s) == 1
    assert round_fraction(tiny / 2, s) == 0  # exact tie with 0: even
    assert round_fraction(tiny / 2 + Fraction(1, 2**2000), s) == 1
    assert round_fraction(-tiny / 2, s) == s.sign_bit  # underflow keeps the sign: −0
    assert round_fraction(3 * tiny / 2, s) == 2  # tie between 1 and 2 subnormal units
    assert round_fraction(5 * tiny / 2, s) == 2
    min_normal = Fraction(2) ** s.emin
    assert round_fraction(min_normal, s) == 1 << (s.p - 1)
    assert round_fraction(min_normal - tiny / 2, s) == 1 << (s.p - 1)  # tie: even is the normal
    assert decode_fraction(round_fraction(min_normal - tiny, s), s) == min_normal - tiny


@pytest.mark.parametrize("fmt", FLOATS)
def test_overflow_threshold(fmt):
    s = float_spec(fmt)
    ulp_top = Fraction(2) ** (s.emax - s.p + 1)
    max_finite = Fraction(2) ** (s.emax + 1) - ulp_top
    assert round_fraction(max_finite, s) == s.inf_mag - 1
    assert round_fraction(max_finite + ulp_top / 2 - Fraction(1, 2**100), s) == s.inf_mag - 1
    assert round_fraction(max_finite + ulp_top / 2, s) == s.inf_mag  # tie: the even neighbour is 2^(emax+1)
    assert round_fraction(-(max_finite + ulp_top), s) == s.inf_mag | s.sign_bit


@pytest.mark.parametrize("fmt", FLOATS)
def test_signed_zero_and_nan(fmt):
    s = float_spec(fmt)
    assert round_fraction(F(0), s) == 0
    assert round_fraction(F(0), s, negative_zero=True) == s.sign_bit
    assert round_float(-0.0, s) == s.sign_bit
    assert decode_float(s.sign_bit, s) == 0 and math.copysign(1, decode_float(s.sign_bit, s)) < 0
    nan_bits = round_float(math.nan, s)
    assert math.isnan(decode_float(nan_bits, s))
    assert np.isnan(bits_to_array([nan_bits], fmt, (1,)).astype(np.float64)[0])
    assert round_float(math.inf, s) == s.inf_mag
    assert round_float(-math.inf, s) == s.inf_mag | s.sign_bit
    with pytest.raises(ValueError, match="no exact value"):
        bits_to_fraction(nan_bits, fmt)


@pytest.mark.parametrize("fmt", ["F32", "F16", "BF16"])
def test_rounding_doubles_matches_numpy_casts(fmt):
    """numpy/ml_dtypes casts from float64 round to nearest even with subnormals: same bits."""
    s = float_spec(fmt)
    rng = random.Random(7)
    xs = [rng.uniform(-1, 1) * 2.0 ** rng.randint(-160, 140) for _ in range(5000)]
    with np.errstate(over="ignore"):
        ref = np.array(xs).astype(get_format(fmt).numpy_dtype).view(s.bits_dtype)
    ours = [round_float(x, s) for x in xs]
    assert ours == [int(b) for b in ref]


@pytest.mark.parametrize("fmt", ["F16", "BF16"])
def test_every_16bit_pattern_decodes_and_rounds_back(fmt):
    s = float_spec(fmt)
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten as they widen
        as_numpy = bits_to_array(list(range(1 << 16)), fmt, (1 << 16,)).astype(np.float64)
    for b in range(1 << 16):
        v = decode_fraction(b, s)
        if isinstance(v, float):
            assert math.isnan(v) == math.isnan(as_numpy[b])
            continue
        assert v == Fraction(float(as_numpy[b]))
        assert round_fraction(v, s, negative_zero=bool(b & s.sign_bit)) == b


def test_ratio_rounding_of_thirds_matches_binary64():
    s = float_spec("F64")
    for n in range(1, 200):
        for d in (3, 7, 10, 11):
            assert round_ratio(False, n, d, s) == int(np.array([n / d]).view(np.uint64)[0])


def test_sqrt_rounding_matches_ieee_binary64():
    """math.sqrt is IEEE correctly rounded; the exact integer method must agree."""
    s = float_spec("F64")
    rng = random.Random(3)
    for _ in range(3000):
        x = rng.uniform(0, 1) * 2.0 ** rng.randint(-1074, 1023)
        if x == 0:
            continue
        n, d = x.as_integer_ratio()
        assert round_sqrt_ratio(n, d, s) == int(np.array([math.sqrt(x)]).view(np.uint64)[0]), x


def test_bf16_arrays_use_ml_dtypes():
    import ml_dtypes

    arr = bits_to_array([0x3F80, 0xBF80], "BF16", (2,))
    assert arr.dtype == np.dtype(ml_dtypes.bfloat16)
    assert arr.astype(np.float64).tolist() == [1.0, -1.0]


def test_integer_formats_check_their_range():
    assert ints_to_array([0, 1, 1], "BOOL", (3,)).dtype == np.bool_
    assert ints_to_array([0, 2**32 - 1], "U32", (2,)).tolist() == [0, 2**32 - 1]
    assert ints_to_array([-(2**63)], "I64", (1,)).tolist() == [-(2**63)]
    for fmt, v in (("U32", -1), ("U8", 256), ("I32", 2**31), ("BOOL", 2)):
        with pytest.raises(ValueError, match=f"does not fit {fmt}"):
            ints_to_array([v], fmt, (1,))
