"""Exact sums of products, rounded once, with the terms of their derived bound: every element of
a convolution is one (a bias adds one plain term), and so are a rotary embedding's two products
and a pad backward's sum of gradients (plain terms only).

Operands of one format are multiples of its smallest subnormal 2^qmin, so a product is an
integer times 2^(2·qmin) and a sum of products and plain terms an integer over 2^(-2·qmin):
formed exactly as Python integers (``Grid``). IEEE specials follow the operations a kernel
performs: a NaN operand or inf·0 gives NaN, +inf and -inf terms give NaN, otherwise an infinite
term gives that infinity; an exact zero is -0 only when every term is -0.

The derived bound (``terms``: count, abs_sum; SPEC §4 takes (count − 1)·u_acc·abs_sum + ulp):
with k products and b plain terms summed in any order in the accumulator, each term passes at
most one product rounding and k + b − 1 additions, so the error is at most
γ_{k+b}·Σ|terms| (Higham), γ_n = n·u / (1 − n·u) ≤ (n + 1)·u while n(n + 1)·u ≤ 1 (n here is
at most a few thousand, u ≤ 2^-24). A fused multiply-add only removes roundings. So count − 1 =
k + b + 1 for products, k + b for plain sums (no product rounding; the same margin of one). A result narrowed from the
accumulator into a shorter output format adds that rounding (``Grid.bound_terms``).
An underflowing product errs by up to half the accumulator's smallest subnormal, absolutely;
2^emin(acc) added to abs_sum gives (count − 1)·u·2^emin ≥ k such halves. Where some order's
partial sums can reach the accumulator's overflow threshold, ±inf and NaN are admitted too
(``oracles.sums.overflow_admitted``).

    >>> from oracles.families.conv.dot import Grid
    >>> g = Grid("F32", "F32")
    >>> (bits, exact), (count, abs_sum) = g.element([(g.lift(1.5), g.lift(2.0), 1.5, 2.0)], [])
    >>> exact, count
    (Fraction(3, 1), 3)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from numerics.rounding import float_spec
from oracles.sums import overflow_admitted, result, special

INF = math.inf

# One product term: (x as an integer over 2^-qmin or the float itself where it is NaN / ±inf,
# the same for y, x as a float, y as a float).
Product = tuple[int | float, int | float, float, float]
# One plain term (a bias, a gradient): (integer over 2^-qmin or the non-finite float, float).
Plain = tuple[int | float, float]


@dataclass(frozen=True)
class Folded:
    """A sum of products and plain terms, exactly: ``total`` (and the positive and negative
    terms' totals) over the grid's denominator, the IEEE specials met, whether an exact zero is
    -0, and the counts of products and plain terms."""

    total: int
    pos: int
    neg: int
    nan: bool
    pos_inf: bool
    neg_inf: bool
    neg_zero: bool
    products: int
    plain: int

    @property
    def special(self) -> float | None:
        return special(self.nan, self.pos_inf, self.neg_inf)

    @property
    def count(self) -> int:
        """The bound's count: one more than the roundings on a term's path, plus the margin."""
        return self.products + self.plain + (2 if self.products else 1)


class Grid:
    """Operands of format ``dtype`` as exact integers, and the element of a sum of products
    rounded into ``out_fmt``, its bound taken in ``acc`` (the accumulator format name)."""

    def __init__(self, dtype: str, out_fmt: str, acc: str | None = None):
        self.qmin = float_spec(dtype).qmin
        self.unit = 1 << -self.qmin  # one operand unit over the product denominator
        self.denom = 1 << (-2 * self.qmin)
        self.acc = acc or dtype
        self.s = float_spec(out_fmt)
        self.tiny = Fraction(2) ** float_spec(self.acc).emin
        self.acc_p = float_spec(self.acc).p

    def lift(self, v: float) -> int | float:
        """``v`` as an integer over 2^-qmin; NaN and ±inf stay floats."""
        if not math.isfinite(v):
            return v
        n, d = v.as_integer_ratio()
        return n * (self.unit // d)

    def lift_all(self, values: Iterable[float]) -> list[int | float]:
        return [self.lift(v) for v in values]

    def fold(self, products: Iterable[Product], plain: Iterable[Plain] = ()) -> Folded:
        """Σ x·y + Σ plain, exactly."""
        total = pos = neg = k = b = 0
        nan = pos_inf = neg_inf = False
        neg_zero = True
        for x, y, xr, yr in products:
            k += 1
            if isinstance(x, float) or isinstance(y, float):
                p = xr * yr  # a non-finite operand: Python floats follow IEEE (inf·0 is NaN)
                nan, pos_inf, neg_inf = nan or p != p, pos_inf or p == INF, neg_inf or p == -INF
                continue
            p = x * y
            total += p
            pos, neg = (pos + p, neg) if p > 0 else (pos, neg - p)
            neg_zero &= p == 0 and math.copysign(1.0, xr) != math.copysign(1.0, yr)
        for a, ar in plain:
            b += 1
            if isinstance(a, float):
                nan, pos_inf, neg_inf = nan or a != a, pos_inf or a == INF, neg_inf or a == -INF
                continue
            lifted = a * self.unit
            total += lifted
            pos, neg = (pos + lifted, neg) if lifted > 0 else (pos, neg - lifted)
            neg_zero &= a == 0 and math.copysign(1.0, ar) < 0
        return Folded(total, pos, neg, nan, pos_inf, neg_inf, neg_zero and k + b > 0, k, b)

    def value(self, f: Folded) -> Fraction:
        """The exact finite value of a fold without specials."""
        return Fraction(f.total, self.denom)

    def bound_terms(self, f: Folded) -> tuple[int, Fraction]:
        """(count, abs_sum) of the derived bound. Where the result is narrowed from the
        accumulator into a shorter output format (F32 into BF16/F16), that last rounding errs
        by u_out·(|exact| + E), E the sum's error: the ulp term covers the first part, and the
        count grows by the factor (1 + u_out) for the second."""
        count = f.count
        if self.s.p < self.acc_p:
            count = 1 + -((-(count - 1) * ((1 << self.s.p) + 1)) >> self.s.p)  # ceil((c-1)(1+u))
        return count, Fraction(f.pos + f.neg, self.denom) + (self.tiny if f.products else 0)

    def admitted(self, f: Folded, phantom: bool) -> tuple[float, ...]:
        """What a free summation order (and, with ``phantom``, an implicit zero times a
        non-finite weight) admits beside the exact result."""
        if f.nan:
            return ()
        out = overflow_admitted(Fraction(f.pos, self.denom), Fraction(f.neg, self.denom),
                                f.pos_inf, f.neg_inf, f.count, self.acc)
        return (*out, math.nan) if phantom and not any(a != a for a in out) else out

    def element(self, products: Iterable[Product], plain: Iterable[Plain] = (), *, phantom: bool = False):
        """((bits, exact[, admitted]), (count, abs_sum)) of Σ x·y + Σ plain, rounded once.

        ``phantom``: a non-finite weight met an implicit zero (a padding or a hole the kernel
        may multiply instead of skipping), so NaN is admitted as well."""
        f = self.fold(products, plain)
        res = result(f.special, f.total, self.denom, f.neg_zero, self.admitted(f, phantom), self.s)
        return res, self.bound_terms(f)
