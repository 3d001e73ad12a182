"""The numbers attention's reference computes with: exact ``Fraction``s where a value is rational,
rigorous intervals (``Iv``: mpmath's outward-rounded interval arithmetic) where an exponential or
a tanh enters, and ``NAN``, a NaN that poisons whatever it touches.

One expression serves both exact and interval evaluation: Fraction op Iv is an Iv, so a result
is a Fraction exactly when every softmax weight and softcap factor it reads is rational (a row
of equal scores has weights 1/n), and that case is rounded exactly. An Iv result encloses the
exact value; ``rounded`` gives its bits when both ends round alike (Ziv's test), else None and
the caller evaluates again at twice the precision.

    >>> from numerics.rounding import float_spec
    >>> x = Iv.exp(Fraction(-1), 80) * Fraction(3)        # 3/e, enclosed at 80 bits
    >>> rounded(x, float_spec("F32"))[0] == rounded(Iv.exp(Fraction(-1), 200) * 3, float_spec("F32"))[0]
    True
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import mp
from mpmath.libmp import from_rational, libmpi, mpf_add, mpf_shift, to_rational

from numerics.rounding import FloatSpec
from oracles import arith


class _Nan:
    """A NaN: every operation with it gives it back."""

    def __repr__(self):
        return "NAN"

    def _same(self, *_):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _same
    __truediv__ = __rtruediv__ = __neg__ = _same


NAN = _Nan()


def _fraction_iv(x: Fraction, prec: int) -> tuple:
    return (from_rational(x.numerator, x.denominator, prec, "f"),
            from_rational(x.numerator, x.denominator, prec, "c"))


class Iv:
    """A closed interval [lo, hi] of mpf endpoints, operated on at ``prec`` bits."""

    __slots__ = ("v", "prec")

    def __init__(self, v: tuple, prec: int):
        self.v, self.prec = v, prec

    @classmethod
    def of(cls, x, prec: int) -> Iv:
        return x if isinstance(x, Iv) else cls(_fraction_iv(Fraction(x), prec), prec)

    @classmethod
    def exp(cls, x, prec: int) -> Iv:
        return cls(libmpi.mpi_exp(cls.of(x, prec).v, prec), prec)

    @classmethod
    def tanh(cls, x, prec: int) -> Iv:
        """tanh x = 1 − 2 / (e^{2x} + 1): one occurrence of x, so the enclosure stays tight."""
        e = cls.exp(cls.of(x, prec) * 2, prec)
        return 1 - 2 / (e + 1)

    def _pair(self, other):
        if isinstance(other, _Nan):
            return None
        return other.v if isinstance(other, Iv) else _fraction_iv(Fraction(other), self.prec)

    def _op(self, fn, other, swap=False):
        o = self._pair(other)
        if o is None:
            return NAN
        return Iv(fn(o, self.v, self.prec) if swap else fn(self.v, o, self.prec), self.prec)

    def __add__(self, other):
        return self._op(libmpi.mpi_add, other)

    __radd__ = __add__

    def __sub__(self, other):
        return self._op(libmpi.mpi_sub, other)

    def __rsub__(self, other):
        return self._op(libmpi.mpi_sub, other, swap=True)

    def __mul__(self, other):
        return self._op(libmpi.mpi_mul, other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._op(libmpi.mpi_div, other)

    def __rtruediv__(self, other):
        return self._op(libmpi.mpi_div, other, swap=True)

    def __neg__(self):
        return Iv(libmpi.mpi_neg(self.v), self.prec)

    def ends(self) -> tuple[Fraction, Fraction]:
        return tuple(_as_fraction(t) for t in self.v)

    def mid(self):
        """An mpf inside the interval (its midpoint), for the record of the exact value."""
        lo, hi = self.v
        return mp.make_mpf(mpf_shift(mpf_add(lo, hi, self.prec + 8), -1))


def _as_fraction(t: tuple) -> Fraction:
    p, q = to_rational(t)
    return Fraction(p, q)


def upper(x) -> Fraction:
    """An upper bound of |x| (x a Fraction or an Iv); 0 for a NaN (its element has no bound)."""
    if type(x) is Fraction:  # the common case, without a copy
        return -x if x < 0 else x
    if isinstance(x, _Nan):
        return Fraction(0)
    if isinstance(x, Iv):
        lo, hi = x.ends()
        return max(abs(lo), abs(hi))
    return abs(Fraction(x))


def rounded(x, s: FloatSpec):
    """(bits, exact) of x correctly rounded into ``s``, or None while an Iv straddles a rounding
    boundary. An Iv around zero whose ends both round to a zero gives +0: the value is zero or
    too small to show in the format, and an inexact op's zero sign is not judged."""
    if isinstance(x, _Nan):
        return arith.nan(s)
    if not isinstance(x, Iv):
        x = Fraction(x)
        return arith.ratio(x.numerator, x.denominator, s)
    lo, hi = (_bits(t, s) for t in x.v)
    if lo == hi:
        return lo, x.mid()
    magnitude = ~s.sign_bit
    if lo & magnitude == 0 and hi & magnitude == 0:
        return arith.zero(False, s)
    return None


def _bits(t: tuple, s: FloatSpec) -> int:
    from numerics.rounding import round_dyadic

    sign, man, exp, _ = t
    return round_dyadic(bool(sign), int(man), exp, s)
