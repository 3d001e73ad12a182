"""The integer and dyadic arithmetic the backward references run on: upward roundings stay
above and within 2^-60, sums are exact, and a square root of a ratio in any terms is the one of
its lowest terms (bits and exact value)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from numerics.rounding import float_spec, round_sqrt_ratio
from oracles import arith
from oracles.families.backward import common, dyadic


def test_up_is_above_and_close():
    rng = random.Random(3)
    for _ in range(2000):
        q = Fraction(rng.getrandbits(rng.randint(1, 3000)), rng.getrandbits(rng.randint(1, 3000)) | 1)
        k = rng.randint(1, 9)
        up = dyadic.up_ratio(q.numerator * k, q.denominator * k)
        assert q <= up <= q * (1 + Fraction(1, 1 << 60))
        assert up.denominator & (up.denominator - 1) == 0


def test_scaled_and_total_are_exact():
    values = [1.5, -2.0**-1074, 1e300, 0.0, -3.25]
    ints, k = dyadic.scaled(values)
    assert [Fraction(v) for v in values] == [Fraction(i, 1 << k) for i in ints]
    pairs = [(3, -1080), (5, 1000), (0, 7), (1, 0)]
    assert dyadic.total(pairs, shift=-3) == sum(Fraction(m) * Fraction(2) ** (e - 3) for m, e in pairs)


@pytest.mark.parametrize("fmt", ["F64", "F32", "BF16"])
def test_box_sqrt_ratio_matches_lowest_terms(fmt):
    s, rng = float_spec(fmt), random.Random(fmt)
    for _ in range(1500):
        a = Fraction(rng.randint(-10**30, 10**30), rng.randint(1, 10**20))
        root = Fraction(rng.randint(1, 10**9), rng.randint(1, 10**9))
        q = root * root if rng.random() < 0.5 else Fraction(rng.randint(1, 10**40), rng.randint(1, 10**30))
        k = rng.randint(1, 6)
        got = common.box_sqrt_ratio(a.numerator * k, a.denominator * k, q, s)
        if a == 0:
            assert got == arith.zero(False, s)
            continue
        r = a * a / q
        bits = round_sqrt_ratio(r.numerator, r.denominator, s) | (s.sign_bit if a < 0 else 0)
        exact = arith._sqrt_exact(r.numerator, r.denominator, s.p + 64)
        assert got[0] == bits and got[1] == (-exact if a < 0 else exact) and type(got[1]) is type(exact)
