"""The share of its bound an element uses: a measurement for the report's heatmap and for
``judge propose``, never a verdict (``judge.scoring.exact`` decides those)."""

from __future__ import annotations

import math

from judge.scoring.rules import sanity_factor
from numerics.formats import Format, get_format


def as_float(x) -> float:
    """float() of an exact value, saturating to ±inf beyond F64's range instead of raising."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


class BoundUse:
    """The fraction of its bound each element uses (|error| / bound, in floats: a measurement
    for the report and for ``judge propose``, never a verdict), its maximum kept in the score.

    The bound is the one ``bound_kind`` holds the element to: the declared ones (the largest
    share of max_ulp, max_absolute or max_relative), the reduction bound of its terms, or the
    sanity bound. Where ULP is meaningless (a tiny result beside large terms) this still reads
    as what decided the verdict: 0.3 is a third of the bound, 1 its edge."""

    def __init__(self, out, acc_format):  # out: judge.scoring.exact._Output
        self.kind, self.fmt, self.precision = out.kind, out.fmt, out.contract.precision
        self.mean = out.opdef.reduction_bound == "mean"
        self.u = 2.0 ** -get_format(acc_format or out.fmt.name).precision

    def add(self, score, d: int | None, ex, err: float, terms) -> None:
        exact = abs(as_float(ex)) if ex is not None else 0.0
        used = self._declared(d, err, exact) if self.kind == "declared" else err / self._bound(exact, terms)
        if used == used:
            score.bound_used = used if score.bound_used is None else max(score.bound_used, used)

    def _bound(self, exact: float, terms) -> float:
        if self.kind == "reduction" and terms is not None:
            count, abs_sum = as_float(terms[0]), as_float(terms[1])  # a row op's count can pass F64's range
            spread = max(count - 1.0, 0.0) * self.u * abs_sum
            return spread / (count if self.mean and count else 1.0) + _ulp_float(exact, self.fmt)
        return sanity_factor(self.fmt) * max(1.0, exact)

    def _declared(self, d: int | None, err: float, exact: float) -> float:
        p, shares = self.precision, []
        if p.max_ulp is not None and d is not None:
            shares.append(_share(d, p.max_ulp))
        if p.max_absolute is not None:
            shares.append(_share(err, p.max_absolute))
        if p.max_relative is not None and exact:
            shares.append(_share(err / exact, p.max_relative))
        return max(shares, default=math.nan)


def _share(value: float, bound: float) -> float:
    """value / bound, a zero bound used fully by any error (and not at all by none)."""
    if bound:
        return value / bound
    return math.inf if value else 0.0


def _ulp_float(x: float, fmt: Format) -> float:
    """ulp_F(|x|) as a float (``numerics.ulp.ulp_of`` without Fractions)."""
    e = math.frexp(x)[1] - 1 if x else fmt.emin
    return math.ldexp(1.0, max(e, fmt.emin) - fmt.precision + 1)
