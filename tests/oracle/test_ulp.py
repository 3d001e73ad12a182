"""ULP arithmetic (SPEC §4): ordinals, distances, ulp_F(x) and the real-valued error."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from mpmath import mp, mpf

from numerics import ulp
from numerics.formats import get_format


def _values(fmt, xs):
    return np.array(xs, dtype=np.float64).astype(get_format(fmt).numpy_dtype)


@pytest.mark.parametrize("fmt", ["F64", "F32", "F16", "BF16"])
def test_ordinal_landmarks(fmt):
    f = get_format(fmt)
    tiny = 2.0 ** (f.emin - f.precision + 1)
    n_finite = ((1 << f.exponent_bits) - 1) << f.mantissa_bits  # positive finite values, +0 excluded
    max_finite = float(np.finfo(f.numpy_dtype).max) if fmt != "BF16" else 3.3895313892515355e38
    got = ulp.ordinal(_values(fmt, [0.0, -0.0, tiny, -tiny, max_finite, math.inf, -math.inf]), fmt)
    assert got.tolist() == [0, 0, 1, -1, n_finite - 1, n_finite, -n_finite]


def test_ordinal_is_monotonic_over_every_f16_value():
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    x = x[~np.isnan(x)]
    order = np.argsort(x.astype(np.float64), kind="stable")
    ords = ulp.ordinal(x, "F16")[order]
    vals = x.astype(np.float64)[order]
    steps = np.diff(ords)
    same = np.diff(vals) == 0  # only ±0
    assert (steps[~same] == 1).all() and (steps[same] == 0).all()


def test_ulp_distance_across_zero_and_with_nan():
    tiny = 2.0**-149
    d = ulp.ulp_distance(_values("F32", [-tiny, 1.0, 1.0, math.nan, 1.0]),
                         _values("F32", [tiny, 1.0 + 2**-23, 1.0, 1.0, math.inf]), "F32")
    assert d[:3].tolist() == [2, 1, 0]
    assert d[3] == ulp.NAN_DISTANCE
    inf_gap = ulp.ordinal(_values("F32", [math.inf]), "F32")[0] - ulp.ordinal(_values("F32", [1.0]), "F32")[0]
    assert d[4] == inf_gap


def test_ulp_distance_saturates_for_f64_extremes():
    big = np.finfo(np.float64).max
    assert ulp.ulp_distance(np.array([-big]), np.array([big]), "F64")[0] == ulp.NAN_DISTANCE
    assert ulp.ulp_distance(np.array([big]), np.array([big / 2]), "F64")[0] == 1 << 52


def test_ulp_of():
    assert ulp.ulp_of(Fraction(1), "F32") == Fraction(1, 2**23)
    assert ulp.ulp_of(Fraction(3), "F32") == Fraction(1, 2**22)
    assert ulp.ulp_of(Fraction(-1, 3), "F64") == Fraction(1, 2**54)
    assert ulp.ulp_of(0, "F32") == Fraction(1, 2**149)
    assert ulp.ulp_of(Fraction(1, 2**140), "F32") == Fraction(1, 2**149)  # subnormal: emin floor
    assert ulp.ulp_of(2.0**1023, "F64") == Fraction(2**971)
    assert ulp.ulp_of(mpf(1.5), "BF16") == Fraction(1, 2**7)
    with pytest.raises(ValueError, match="non-finite"):
        ulp.ulp_of(math.inf, "F32")


def test_ulp_real():
    assert ulp.ulp_real(np.float32(1 + 2**-23), Fraction(1), "F32") == 1.0
    assert ulp.ulp_real(np.float32(1.0), Fraction(1) + Fraction(1, 2**25), "F32") == 0.25
    assert ulp.ulp_real(np.float32(1.0), Fraction(1) + Fraction(1, 3 * 2**23), "F32") == 0.333
    with mp.workprec(200):
        assert ulp.ulp_real(1.0, mp.mpf(1) + mp.mpf(2) ** -53, "F64") == 0.5
    assert ulp.ulp_real(np.float16(math.inf), Fraction(1), "F16") == math.inf
