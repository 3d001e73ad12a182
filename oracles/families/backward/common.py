"""What the backward references share: IEEE arithmetic over exact rationals and specials, exact
square-root bounds, the boxing of a result, and the guard for rows whose intermediate values
leave the accumulator's range.

A value is a ``Fraction`` (finite, exact) or a Python float that is NaN or ±inf. Where a special
meets a finite value only the finite value's sign and zeroness matter (inf·0 is NaN, inf − x is
inf), so the specials of a formula follow from its operations alone, whatever order a kernel
evaluates them in.

    >>> mul(Fraction(-2), math.inf), sub(Fraction(1), math.inf), mul(Fraction(0), math.inf)
    (-inf, -inf, nan)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from fractions import Fraction

from numerics.rounding import FloatSpec, round_sqrt_ratio
from oracles import arith, edges

INF = math.inf
NAN = math.nan
# What a row whose intermediates leave the accumulator's range admits besides its exact result.
ESCAPED = (NAN, INF, -INF)


def value(x: float) -> Fraction | float:
    """A finite float as its exact rational; NaN and ±inf as they are."""
    return Fraction(x) if math.isfinite(x) else x


def _proxy(a: Fraction | float) -> float:
    """A stand-in with a's IEEE behaviour against a special: its sign, or 0."""
    if isinstance(a, Fraction):  # compared, never converted: a Fraction may be beyond F64
        return 0.0 if a == 0 else 1.0 if a > 0 else -1.0
    return a


def mul(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a * b
    return _proxy(a) * _proxy(b)


def sub(a, b):
    if isinstance(a, Fraction) and isinstance(b, Fraction):
        return a - b
    return _proxy(a) - _proxy(b)


def total(values: Iterable) -> Fraction | float:
    """Σ values: exact where all are finite, else the IEEE special any order gives (NaN for a NaN
    or for +inf beside -inf)."""
    acc: Fraction | float = Fraction(0)
    for v in values:
        acc = acc + v if isinstance(acc, Fraction) and isinstance(v, Fraction) else _proxy(acc) + _proxy(v)
    return acc


def mpf_of_fraction(q: Fraction) -> tuple:
    """The exact raw mpf of a dyadic rational (a sum of floats)."""
    from mpmath.libmp import from_man_exp

    shift = q.denominator.bit_length() - 1
    if q.denominator != 1 << shift:
        raise ValueError(f"{q} is not dyadic")
    return from_man_exp(q.numerator, -shift)


def fraction_of_mpf(t: tuple) -> Fraction:
    """The exact value of a raw finite mpf."""
    sign, man, exp, _ = t
    v = Fraction(int(man)) * Fraction(2) ** exp
    return -v if sign else v


def exact_of_mpf(t: tuple):
    """The exact value of a raw finite mpf as the scoring takes it: a Fraction where its binary
    exponent is within reach, else an ``mpmath.mpf`` (g − e^y·G with g = 0 and y = -3e38 is
    2^-4e38 in size: its Fraction would not fit in memory)."""
    if abs(t[2]) <= 1 << 14:
        return fraction_of_mpf(t)
    import mpmath

    return mpmath.mpf(t)


def is_special(v) -> bool:
    return not isinstance(v, Fraction)


def box(v, s: FloatSpec):
    """(bits, exact) of a value in the output format: a rational rounded once, or the special."""
    if isinstance(v, Fraction):
        return arith.ratio(v.numerator, v.denominator, s)
    return arith.nan(s) if v != v else arith.infinity(v < 0, s)


def box_sqrt(a: Fraction, q: Fraction, s: FloatSpec):
    """(bits, exact) of a / sqrt(q), q > 0, rounded once: sign(a)·sqrt(a²/q) decided exactly."""
    return box_sqrt_ratio(a.numerator, a.denominator, q, s)


def box_sqrt_ratio(num: int, den: int, q: Fraction, s: FloatSpec):
    """``box_sqrt`` of a = num/den (den > 0, not necessarily in lowest terms): the rounding and the
    exact value need no gcd of the long integers. |a|/sqrt(q) is rational exactly when q's
    numerator times its denominator is a square R², and is then |num|·R/(den·numerator);
    otherwise the exact value is an mpf of p + 64 bits."""
    if num == 0:
        return arith.zero(False, s)
    n, d = num * num * q.denominator, den * den * q.numerator
    bits = round_sqrt_ratio(n, d, s)
    root = _square_root_of(q.numerator * q.denominator)
    if root is not None:
        mag = Fraction(abs(num) * root, den * q.numerator)
    else:
        from mpmath import mp
        from mpmath.libmp import from_man_exp, mpf_div, mpf_sqrt

        prec = s.p + 64  # as arith._sqrt_exact: the same mpf for the same rational
        mag = mp.make_mpf(mpf_sqrt(mpf_div(from_man_exp(n, 0), from_man_exp(d, 0), prec + 8), prec))
    return (bits | s.sign_bit, -mag) if num < 0 else (bits, mag)


@functools.cache
def _square_residues() -> tuple[tuple[int, frozenset], ...]:
    return tuple((m, frozenset(i * i % m for i in range(m))) for m in (64, 63, 65, 11))


@functools.lru_cache(maxsize=16)  # one q per row: asked once per element
def _square_root_of(v: int) -> int | None:
    """sqrt(v) where v >= 0 is a perfect square, else None; residues rule out all but 1 in 120
    non-squares before the integer square root."""
    if any(v % m not in squares for m, squares in _square_residues()):
        return None
    root = math.isqrt(v)
    return root if root * root == v else None


def sqrt_below(q: Fraction) -> Fraction:
    """A rational lower bound of sqrt(q), q >= 0, within 2^-60 relatively."""
    if q == 0:
        return Fraction(0)
    k = max(0, (130 - (q.numerator.bit_length() - q.denominator.bit_length())) // 2)
    return Fraction(math.isqrt((q.numerator << (2 * k)) // q.denominator), 1 << k)


def sqrt_above(q: Fraction) -> Fraction:
    return sqrt_below(q) * (1 + Fraction(1, 1 << 58)) + Fraction(1, 1 << 200)


def unit(acc: FloatSpec) -> Fraction:
    """The accumulator's unit roundoff u = 2^-p."""
    return Fraction(1, 1 << acc.p)


def tiny(acc: FloatSpec) -> Fraction:
    """The accumulator's smallest normal: below it a rounding errs absolutely, by u·tiny."""
    return Fraction(2) ** acc.emin


def escapes(magnitudes: Iterable[Fraction], acc: FloatSpec, *, low: bool = True) -> bool:
    """Whether some intermediate magnitude (exact or an upper bound) can overflow the accumulator
    (within a quarter of its threshold), or, with ``low``, is nonzero below the smallest normal
    times 2^p, where a rounding no longer errs relatively and the derived bound stops holding."""
    top = edges.overflow_threshold(acc) / 4
    bottom = Fraction(2) ** (acc.emin + acc.p) if low else Fraction(0)
    return any(m >= top or (low and 0 < m < bottom) for m in magnitudes)


def escaped(result):
    """A result whose row left the accumulator's range: NaN and ±inf are admitted, and the bound
    (``escaped_term``) admits any finite value."""
    return edges.with_alternatives(result, ESCAPED)


def infinite(result, s: FloatSpec) -> bool:
    """Whether a boxed result is the special ±inf (not NaN, not a finite value that overflows)."""
    return result[1] is None and result[0] & ~s.sign_bit == s.inf_mag


def with_nan(result):
    """An infinite result that some evaluation order of the same formula makes NaN (an infinity
    meeting a factor held as 0, or the other infinity): NaN is admitted beside it."""
    return edges.with_alternatives(result, (NAN,))


def escaped_term(out: FloatSpec, acc: FloatSpec) -> tuple[int, Fraction]:
    """(count, abs_sum) whose derived bound exceeds any finite difference in ``out``."""
    return 2, Fraction(2) ** (out.emax + acc.p + 8)


def bound_term(bound: Fraction, acc: FloatSpec) -> tuple[int, Fraction]:
    """(count, abs_sum) that make the machinery's (count − 1)·u·abs_sum equal ``bound``."""
    return 2, bound / unit(acc)
