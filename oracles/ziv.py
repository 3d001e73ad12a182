"""Correctly rounded evaluation of functions approximated with mpmath (Ziv's strategy).

The approximation ``y`` is computed at a working precision ``w`` with a known relative error
bound 2^(slack − w). If every value in the ball y·(1 ± 2^(slack − w)) rounds to the same bits,
those bits are the correctly rounded result; otherwise ``w`` doubles. A transcendental value at a
rational argument (other than the handful of exact cases the callers settle first) is never a
rounding boundary, so the loop ends; a cap turns an unforeseen exact case into an error instead
of an endless loop.
"""

from __future__ import annotations

from collections.abc import Callable

from mpmath.libmp import from_man_exp

from numerics.rounding import FloatSpec, round_dyadic

GUARD_BITS = 32
MAX_PRECISION = 1 << 14


class RoundingUndecided(ArithmeticError):
    """The Ziv loop hit its precision cap: the value is (or is within 2^-16384 of) a boundary."""


def correctly_rounded(approx: Callable[[int], tuple], s: FloatSpec, slack: int = 8):
    """Bits and the final mpf approximation of a real function value.

    approx(w) returns an mpmath raw ``_mpf_`` tuple approximating the value with relative error
    at most 2^(slack − w); it must be finite and nonzero (callers handle zeros and specials).
    """
    w = s.p + GUARD_BITS
    while w <= MAX_PRECISION:
        t = approx(w)
        sign, man, exp, bc = t
        if not man:
            raise ValueError(f"approximation returned zero or a special value {t!r} at w={w}")
        man = int(man)
        # the error unit 2^err_exp bounds |error|: |y| < 2^(exp + bc)
        err_exp = exp + bc - w + slack
        if err_exp >= exp:
            base, c, unit = man, exp, 1 << (err_exp - exp)
        else:
            base, c, unit = man << (exp - err_exp), err_exp, 1
        lo = round_dyadic(bool(sign), base - unit, c, s)
        hi = round_dyadic(bool(sign), base + unit, c, s)
        if lo == hi:
            return lo, t
        w *= 2
    raise RoundingUndecided(f"rounding into {s.name} undecided at {MAX_PRECISION} bits")


def mpf_of_float(x: float) -> tuple:
    """The exact raw mpf of a finite Python float."""
    n, d = x.as_integer_ratio()
    return from_man_exp(n, 1 - d.bit_length())
