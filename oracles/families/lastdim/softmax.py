"""SoftmaxLastDim and LogSoftmaxLastDim, correctly rounded (mpmath through the Ziv loop).

Each row of the last axis is taken on its own. With m the row's maximum and d_j = x_j − m (exact,
a dyadic rational), softmax is y_i = e^{d_i} / S and log-softmax y_i = d_i − log S, S = Σ e^{d_j}.
The shift by m changes nothing mathematically; it keeps the approximation's numbers near 1.

Special values (the decided semantics, also in the OpDef domain):
- a NaN anywhere in a row makes the whole row NaN;
- a +inf in a row makes the whole row NaN (inf − inf: the limit depends on how the values grew);
- a row of only −inf is NaN (0/0: no element is distinguished);
- a −inf beside a finite maximum gives +0 (softmax) and −inf (log-softmax);
- an empty last axis has no output elements.

Exact cases are settled before any approximation, since the Ziv loop cannot end on a value that
is a rounding boundary: by Lindemann–Weierstrass e^{d_i}/S is rational only when every finite
d_j is 0 (then it is 1/k for k maxima), and d_i − log S only when it is 0 (one finite element).

The derived bound (``terms``): with u the accumulator's unit roundoff, a kernel that subtracts
the maximum, exponentiates (≤ 4 ulp), sums in any order and divides, all in the accumulator,
errs relatively by at most |d_i|·u (rounding d_i, magnified by exp) + 8u (exp) + (1.5n + 8)·u (the
sum: (n−1)·u for the additions, the exp errors of the other terms weighted by e^{d_j}/S, and
Σ e^{d_j}|d_j|·u ≤ n·u/e since S ≥ 1) + 2u (the division or a reciprocal and a product), to first
order. ``count`` = 2n + ⌈|d_i|⌉ + 25 and ``abs_sum`` = y_i + 2^emin(acc) make the machinery's
(count − 1)·u·abs_sum cover that with room for second-order terms; the added smallest normal of
the accumulator covers exp results that are subnormal there (an absolute, not relative, error).
For log-softmax the absolute error is at most u·(2|d_i| + 9·log S + 1.5n + 9) (d_i's rounding,
log S from a sum off by (1.5n + 8)·u, log's own ≤ 4 ulp, the final subtraction); ``abs_sum`` =
|d_i| + log S + 1 and ``count`` = 2n + 17 cover it. A kernel that keeps half-precision values in
their storage format errs by 2^-11 or 2^-8 relatively, far beyond these F32 bounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

from mpmath import mp
from mpmath.libmp import fone, from_int, mpf_add, mpf_div, mpf_exp, mpf_log, mpf_sub

from numerics.rounding import FloatSpec, round_dyadic
from oracles import arith
from oracles.ziv import correctly_rounded, mpf_of_float

INF = math.inf
FAR = 3000  # log S below |d|·2^-FAR leaves d − log S on d's side of every rounding boundary
UNDERFLOW_SHIFT = 800  # e^-800 < 2^-1154: softmax rounds to +0 in every format here


def _fraction(t: tuple) -> Fraction:
    sign, man, exp, _ = t
    v = Fraction(int(man)) * (Fraction(2) ** exp)
    return -v if sign else v


def _upper(t: tuple) -> Fraction:
    """A rational just above |t| (a relative margin far wider than any approximation error);
    2^-2000 for anything below it (no format here resolves such values)."""
    if t[2] + t[3] < -2000:
        return Fraction(1, 1 << 2000)
    return abs(_fraction(t)) * (1 + Fraction(1, 1 << 40))


class _Row:
    """One row's shifted exponents and its sum S = k + T, approximated on demand per precision.

    k counts the elements at the maximum (d = 0); T sums e^{d_j} over the other finite ones,
    kept apart so that log S = log(k + T) stays accurate when T is tiny.
    """

    def __init__(self, finite: list[float], m: float):
        M = mpf_of_float(m)
        self.d = [mpf_sub(mpf_of_float(v), M, 0) for v in finite]  # exact
        self.k = sum(1 for v in finite if v == m)
        self.n = len(finite)
        self._cache: dict[int, tuple] = {}

    def wp(self, w: int) -> int:
        return w + self.n.bit_length() + 8

    def tail(self, wp: int):
        """T = Σ e^{d_j} over d_j < 0 at precision wp (relative error < (n + 2)·2^(1 − wp))."""
        if wp not in self._cache:
            total = None
            for d in self.d:
                if d[1]:  # nonzero d
                    e = mpf_exp(d, wp)
                    total = e if total is None else mpf_add(total, e, wp)
            self._cache[wp] = total
        return self._cache[wp]

    def total(self, wp: int):
        t = self.tail(wp)
        return from_int(self.k) if t is None else mpf_add(from_int(self.k), t, wp)

    def log_total(self, wp: int):
        """log(k + T), with 1 + T formed to T's own precision when k = 1 and T is tiny."""
        t = self.tail(wp)
        if t is None:
            return mpf_log(from_int(self.k), wp)
        if self.k > 1:
            return mpf_log(mpf_add(from_int(self.k), t, wp), wp)
        magnitude = t[2] + t[3]  # T < 2^magnitude
        if magnitude < -wp:  # log(1 + T) = T·(1 − T/2 + ...): T alone is within 2^-wp
            return t
        return mpf_log(mpf_add(fone, t, wp - magnitude + 4), wp)


def _ziv(approx, s: FloatSpec):
    bits, t = correctly_rounded(approx, s, slack=8)
    return bits, mp.make_mpf(t), t


def _softmax_element(row: _Row, i: int, shift: Fraction, s: FloatSpec):
    d = row.d[i]
    if row.tail(64) is None:  # every finite element is the maximum: exactly 1/k
        return arith.ratio(1, row.k, s), Fraction(1, row.k)
    if shift > UNDERFLOW_SHIFT:  # y <= e^{d_i} since S >= 1
        return arith.zero(False, s), Fraction(0)

    def approx(w):
        wp = row.wp(w)
        return mpf_div(mpf_exp(d, wp) if d[1] else fone, row.total(wp), wp)

    bits, exact, t = _ziv(approx, s)
    return (bits, exact), _upper(t)


def _log_softmax_element(row: _Row, i: int, s: FloatSpec):
    d = row.d[i]
    if row.n == 1:
        return arith.zero(False, s), Fraction(0)
    tail = row.tail(64)
    if row.k == 1 and not d[1] and tail[2] + tail[3] < -1200:  # y = -log(1 + T) ~ -T rounds to -0
        return arith.zero(True, s), Fraction(0)
    if row.k == 1 and d[1] and tail[2] + tail[3] < d[2] + d[3] - FAR:
        return _beside(d, s)

    def approx(w):
        wp = row.wp(w)
        return mpf_sub(d, row.log_total(wp), wp)

    bits, exact, t = _ziv(approx, s)
    return (bits, exact), _upper(t)


def _beside(d: tuple, s: FloatSpec):
    """d − log S with 0 < log S < |d|·2^-FAR: it rounds as d·(1 + 2^-FAR) does, since no rounding
    boundary lies closer to d than 2^-(p+1) ulp; d itself may be one (x_i − m need not be
    representable), which the Ziv loop could never settle."""
    sign, man, exp, _ = d
    stand_in = int(man) * ((1 << FAR) + 1)
    value = Fraction(stand_in) * Fraction(2) ** (exp - FAR)
    return (round_dyadic(bool(sign), stand_in, exp - FAR, s), -value if sign else value), abs(value)


def _special_row(row: list[float], s: FloatSpec):
    """Results for a row the approximation does not handle, or None."""
    if any(v != v or v == INF for v in row) or all(v == -INF for v in row):
        return [arith.nan(s)] * len(row)
    return None


def softmax_row(row: list[float], s: FloatSpec, acc: FloatSpec, log: bool):
    """(results, terms) of one row: results are (bits, exact); terms (count, abs_sum)."""
    n = len(row)
    tiny = Fraction(2) ** acc.emin
    special = _special_row(row, s)
    if special is not None:
        return special, [(n, Fraction(0))] * n
    finite = [v for v in row if v != -INF]
    m = max(finite)
    state = _Row(finite, m)
    results, terms = [], []
    j = 0
    for v in row:
        if v == -INF:
            results.append(arith.infinity(True, s) if log else arith.zero(False, s))
            terms.append((n, Fraction(0)))
            continue
        shift = abs(Fraction(v) - Fraction(m))
        if log:
            result, mag = _log_softmax_element(state, j, s)
            log_s = _upper(state.log_total(64))
            terms.append((2 * n + 17, shift + log_s + 1))
        else:
            result, mag = _softmax_element(state, j, shift, s)
            terms.append((2 * n + math.ceil(shift) + 25, mag + tiny))
        results.append(result)
        j += 1
    return results, terms
