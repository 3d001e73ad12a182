"""Exact row arithmetic in integers, and bounds as short dyadic rationals.

A row of floats is integers over one power of two (``scaled``), so its sums, products and
differences are integer operations: Fractions would reduce by a gcd after each one, and on the
long integers of an F64 row spanning 2^±1000 those gcds are most of a reference's cost. A
bound is a sum of products of non-negative terms; each term rounded up to a dyadic m·2^e with
m below 2^62 (``up``) keeps it above the exact bound, within 2^-60 relatively, and a sum of
such pairs is one shift-and-add per term (``total``).

    >>> scaled([1.5, 0.25])
    ([6, 1], 2)
    >>> total([(3, -1), (1, 2)], shift=0)
    Fraction(11, 2)
"""

from __future__ import annotations

from fractions import Fraction

Pair = tuple[int, int]  # (m, e): the dyadic m·2^e, m >= 0


def scaled(values: list[float]) -> tuple[list[int], int]:
    """Integers X and a shift K with values[j] = X[j]/2^K, for finite floats."""
    ratios = [v.as_integer_ratio() for v in values]
    k = max((d.bit_length() - 1 for _, d in ratios), default=0)
    return [n << (k - d.bit_length() + 1) for n, d in ratios], k


def up_pair(n: int, d: int) -> Pair:
    """(m, e) with m·2^e >= n/d >= 0 and m below 2^62 (d > 0, n/d in any terms)."""
    if n <= 0:
        return 0, 0
    shift = 62 - n.bit_length() + d.bit_length()
    if shift >= 0:
        return -(-(n << shift) // d), -shift
    return -(-n // (d << -shift)), -shift


def up_ratio(n: int, d: int) -> Fraction:
    return as_fraction(up_pair(n, d))


def up(q: Fraction) -> Fraction:
    """A dyadic rational >= q >= 0 within 2^-60 relatively."""
    return up_ratio(q.numerator, q.denominator)


def pair(q: Fraction) -> Pair:
    """``up_pair`` of q, exact where q is dyadic with a short enough numerator."""
    return up_pair(q.numerator, q.denominator)


def as_fraction(p: Pair, shift: int = 0) -> Fraction:
    """m·2^(e + shift) as a Fraction."""
    m, e = p[0], p[1] + shift
    return Fraction(m, 1 << -e) if e < 0 else Fraction(m << e)


def mul(*pairs: Pair) -> Pair:
    m, e = 1, 0
    for pm, pe in pairs:
        m, e = m * pm, e + pe
    return m, e


def at_least_one(p: Pair) -> Pair:
    """max(1, m·2^e)."""
    m, e = p
    return p if (m << e if e >= 0 else m >> -e) >= 1 else (1, 0)


def total(pairs: list[Pair], shift: int = 0) -> Fraction:
    """Σ m·2^e exactly, times 2^shift, as one Fraction."""
    pairs = [p for p in pairs if p[0]]
    if not pairs:
        return Fraction(0)
    e = min(pe for _, pe in pairs)
    return as_fraction((sum(m << (pe - e) for m, pe in pairs), e), shift)
