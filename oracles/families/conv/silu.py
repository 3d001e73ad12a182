"""SiLU on the store of a causal convolution: y = z·σ(z), z the exact sum, correctly rounded
through mpmath (the Ziv loop of ``oracles.ziv``).

z is a dyadic rational (a sum of products of format values), so it is an exact mpf. For z ≠ 0,
e^−z is transcendental (Lindemann–Weierstrass) and y is never a rounding boundary, so the loop
ends, except where y is too close to one for its precision cap:

- z > 5000: y = z·(1 − ε) with 0 < ε < e^−5000 < 2^−7200. z itself may be a rounding boundary;
  any other boundary lies at least 2^−3200 relatively away (z is a multiple of 2^−2148 below
  2^1040, a boundary a multiple of 2^−1075), so y rounds as z·(1 − 2^−4000) does, exactly;
- z < −1000: |y| < 1000·e^−1000 < 2^−1430, below half the smallest subnormal of every format:
  y rounds to −0.

Special values as the elementwise SiLU: silu(±0) = ±0, silu(+inf) = +inf, silu(−inf) = −0 (the
limit), NaN stays NaN. Where the sum itself may overflow the accumulator (``order: free``), the
SiLU of that overflow is admitted (+inf, −0, or NaN).

The derived bound: the sum errs by at most E = (count − 1)·u·S (``oracles.families.conv.dot``);
|silu'| ≤ 1.1 everywhere, so the SiLU of the computed sum is off by at most 1.1·E, and its own
evaluation in the accumulator (an exp, an add, a division or reciprocal and a product) by about
8u·|y| to first order. ``abs_sum`` = 1.2·S + 16·|y|/(count − 1) covers both with room.

    >>> from fractions import Fraction
    >>> from numerics.rounding import float_spec
    >>> silu_value(Fraction(1), float_spec("F32"))[0][0] == 0x3F3B26A8   # 0.7310586
    True
"""

from __future__ import annotations

import math
from fractions import Fraction

from mpmath import mp
from mpmath.libmp import fone, from_man_exp, mpf_add, mpf_div, mpf_exp, mpf_neg

from numerics.rounding import FloatSpec, round_fraction
from oracles import arith
from oracles.edges import with_alternatives
from oracles.ziv import correctly_rounded

HIGH = 5000  # beyond: y = z·(1 − ε), ε < 2^-7200
LOW = -1000  # below: |y| < 2^-1430, −0 in every format
FAR = 4000  # the stand-in z·(1 − 2^-FAR) sits between z and every other rounding boundary


def _upper(t: tuple) -> Fraction:
    sign, man, exp, _ = t
    return Fraction(int(man)) * Fraction(2) ** exp * (1 + Fraction(1, 1 << 40))


def silu_value(z: Fraction, s: FloatSpec):
    """((bits, exact), an upper bound of |y|) of silu(z) for a finite nonzero dyadic z."""
    if z > HIGH:
        stand_in = z - z / (1 << FAR)
        return (round_fraction(stand_in, s), stand_in), z
    if z < LOW:
        return arith.zero(True, s), Fraction(0)
    shift = z.denominator.bit_length() - 1  # a power of two
    Z = from_man_exp(z.numerator, -shift)

    def approx(w: int) -> tuple:
        e = mpf_exp(mpf_neg(Z), w + 12)
        return mpf_div(Z, mpf_add(fone, e, w + 12), w)

    bits, t = correctly_rounded(approx, s, slack=8)
    return (bits, mp.make_mpf(t)), _upper(t)


def _overflowed(admitted: tuple[float, ...]) -> tuple[float, ...]:
    """The SiLU of each overflowed sum the order admits."""
    return tuple(math.inf if a == math.inf else -0.0 if a == -math.inf else math.nan for a in admitted)


def silu_element(grid, folded, *, phantom: bool = False):
    """((bits, exact[, admitted]), (count, abs_sum)) of silu(Σ x·y + bias)."""
    s = grid.s
    count, total_abs = grid.bound_terms(folded)
    admitted = _overflowed(grid.admitted(folded, phantom))
    value = folded.special
    if value is not None:
        if value != value:
            return arith.nan(s), (count, Fraction(0))
        res = arith.infinity(False, s) if value > 0 else arith.zero(True, s)
        return with_alternatives(res, admitted), (count, Fraction(0))
    z = grid.value(folded)
    if z == 0:  # silu(±0) = ±0; a computed sum off by E gives at most 1.1·E
        return with_alternatives(arith.zero(folded.neg_zero, s), admitted), (count, Fraction(12, 10) * total_abs)
    res, mag = silu_value(z, s)
    bound = Fraction(12, 10) * total_abs + 16 * mag / (count - 1)
    return with_alternatives(res, admitted), (count, bound)
