"""FusedSoftmaxCrossEntropy, correctly rounded into F32 (mpmath through the Ziv loop), and its cases.

Per row i of logits [n_rows, vocab] with target t_i (I64): the row is ignored where t_i equals
ignore_index; otherwise its loss is −log softmax(x_i)[t_i] = log S_i − d_i with m_i the row's
maximum, d_i = x_i[t_i] − m_i ≤ 0 (exact) and S_i = Σ_j e^{x_ij − m_i}, both parts ≥ 0: the loss
and the sum of losses are sums of non-negative terms, approximated with a relative error bound.
Out: the losses (reduction none; an ignored row gives +0), their sum, or their mean over the rows
not ignored, always F32.

Special values (decided here, in the log-softmax's terms, ``oracles.families.lastdim.softmax``):
a NaN or +inf in a row, or a row of only −inf, makes its loss NaN; a −inf target logit beside a
finite maximum makes it +inf. An ignored row contributes nothing, whatever its logits hold: a
NaN there reaches no output. A mean over no row that counts is NaN (0/0, as torch gives).
Exact cases: the loss is 0 exactly where the target is the only finite logit; otherwise it is
log S + |d| with S ≠ 1, transcendental (Lindemann–Weierstrass), so no rounding boundary.

The derived bound (``terms``; u the accumulator's unit roundoff, F32 for BF16/F16 logits): a row's
loss, as a stable log-softmax forms it, errs by at most u·(2V + 16)·(loss + 1) (the log-softmax
bound of ``lastdim.softmax``, V = vocab); a sum over R rows adds (R − 1)·u·Σ loss (any order,
all terms ≥ 0); a mean divides that by R and adds u·mean. Where the losses' sum can reach the
accumulator's overflow threshold, a sum or mean of +inf is admitted.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from mpmath import mp
from mpmath.libmp import fone, from_int, fzero, mpf_add, mpf_div, mpf_mul, mpf_shift, mpf_sub

from numerics.rounding import float_spec
from oracles import arith, edges
from oracles.families.lastdim.softmax import _Row, _special_row
from oracles.output import float_output
from oracles.shapes import as_floats, object_array
from oracles.sums import acc_format
from oracles.ziv import correctly_rounded, mpf_of_float

INF = math.inf
TINY = 3000  # losses below 2^-TINY: far below every format's smallest subnormal


class _Loss:
    """One counted row: its loss as (kind, approx): kind "nan", "inf", "zero" or "value"."""

    def __init__(self, row: list[float], target: int):
        self.n = len(row)
        if _special_row(row, float_spec("F32")) is not None:
            self.kind = "nan"
        elif row[target] == -INF:
            self.kind = "inf"
        else:
            finite = [v for v in row if v != -INF]
            m = max(finite)
            self.row = _Row(finite, m)
            self.d = mpf_sub(mpf_of_float(row[target]), mpf_of_float(m))  # exact, <= 0
            self._cache: dict[int, tuple] = {}
            self.kind = "zero" if self.row.k == 1 and self.row.tail(64) is None and not self.d[1] else "value"

    def approx(self, w: int):
        """The loss within 2^(10 − w) relatively (zero: exactly 0)."""
        if self.kind == "zero":
            return fzero
        if w not in self._cache:
            wp = self.row.wp(w)
            self._cache[w] = mpf_sub(self.row.log_total(wp), self.d, wp)
        return self._cache[w]

    def upper(self) -> tuple:
        """A raw mpf above the loss (2^-TINY for anything below it)."""
        if self.kind == "zero":
            return fzero
        t = self.approx(64)
        if t[2] + t[3] < -TINY:
            return mpf_shift(fone, -TINY)
        return mpf_add(t, mpf_shift(t, -30), 64, "u")  # 2^-30 above: far beyond its error


def _below_zero_rounding(t: tuple, s) -> bool:
    """Whether an approximation (relative error far below 1/2) rounds to zero in ``s``: under
    a quarter of its smallest subnormal."""
    return t[2] + t[3] < s.qmin - 1


def _rounded(approx, slack: int, s):
    bits, t = correctly_rounded(approx, s, slack=slack)
    return bits, mp.make_mpf(t)


def _total(losses: list[_Loss], count: int | None, s):
    """(bits, exact) of the sum of the losses, or of their mean over ``count``."""
    kinds = {x.kind for x in losses}
    if "nan" in kinds or count == 0:
        return arith.nan(s)
    if "inf" in kinds:
        return arith.infinity(False, s)
    if kinds <= {"zero"}:
        return arith.zero(False, s)

    def approx(w):
        total = fzero
        for x in losses:
            total = mpf_add(total, x.approx(w), w + 8)
        return mpf_div(total, from_int(count), w + 8) if count else total

    if _below_zero_rounding(approx(64), s):
        return arith.zero(False, s)
    return _rounded(approx, 12 + len(losses).bit_length(), s)


def _one(loss: _Loss, s):
    if loss.kind == "nan":
        return arith.nan(s)
    if loss.kind == "inf":
        return arith.infinity(False, s)
    if loss.kind == "zero" or _below_zero_rounding(loss.approx(64), s):
        return arith.zero(False, s)
    return _rounded(loss.approx, 12, s)


def _up_sum(values) -> tuple:
    total = fzero
    for v in values:
        total = mpf_add(total, v, 64, "u")
    return total


def _bounds(losses: list[_Loss], vocab: int, mean: bool, acc) -> tuple[int, Fraction]:
    """(count, abs_sum) of a sum (or mean) of the losses (module docstring)."""
    r = len(losses)
    values = [x.upper() for x in losses if x.kind in ("zero", "value")]
    if len(values) < r or r == 0:  # a NaN or +inf total: no bound applies
        return 1, Fraction(0)
    total = _up_sum(values)
    # in units of u: (2V + 16)·Σ(loss + 1) + (R − 1)·Σ loss
    per_row = mpf_mul(from_int(2 * vocab + 16), mpf_add(total, from_int(r), 64, "u"), 64, "u")
    units = mpf_add(per_row, mpf_mul(from_int(r - 1), total, 64, "u"), 64, "u")
    if mean:
        units = mpf_div(mpf_add(units, total, 64, "u"), from_int(r), 64, "u")
    count = 2 * vocab + r + 17
    return count, _fraction(units) / (count - 1)


def _fraction(t: tuple) -> Fraction:
    sign, man, exp, _ = t
    v = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -v if sign else v


def evaluate_cross_entropy(inputs, params, out_dtypes, rules):
    s = float_spec("F32")
    logits, targets = np.asarray(inputs[0]), np.asarray(inputs[1])
    n_rows, vocab = int(params["n_rows"]), int(params["vocab"])
    reduction, ignore = str(params["reduction"]), int(params["ignore_index"])
    if logits.shape != (n_rows, vocab) or targets.shape != (n_rows,):
        raise ValueError(f"logits {list(logits.shape)} and targets {list(targets.shape)} do not "
                         f"match n_rows={n_rows}, vocab={vocab}")
    flat = as_floats(logits)
    rows = [flat[i * vocab:(i + 1) * vocab] for i in range(n_rows)]
    counted = []
    for i, t in enumerate(int(t) for t in targets):
        if t != ignore and not 0 <= t < vocab:
            raise ValueError(f"target {t} of row {i} is outside 0..{vocab} and not ignore_index {ignore}")
        counted.append(_Loss(rows[i], t) if t != ignore else None)
    acc = float_spec(acc_format(logits.dtype))
    losses = [x for x in counted if x is not None]
    if reduction == "none":
        results = [_one(x, s) if x is not None else arith.zero(False, s) for x in counted]
        terms = [_bounds([x], vocab, False, acc) if x is not None else (1, Fraction(0)) for x in counted]
        shape = (n_rows,)
    else:
        mean = reduction == "mean"
        result = _total(losses, len(losses) if mean else None, s)
        limit = edges.overflow_threshold(acc)
        if _fraction(_up_sum(x.upper() for x in losses if x.kind == "value")) >= limit:
            result = edges.with_alternatives(result, (INF,))
        results, terms, shape = [result], [_bounds(losses, vocab, mean, acc)], ()
    return [float_output(results, "F32", shape, terms=object_array(terms, shape), acc_format=acc.name)]


def output_shape(shapes, params) -> tuple[int, ...]:
    """[] for a mean or a sum, [n_rows] for none."""
    return (int(params["n_rows"]),) if str(params["reduction"]) == "none" else ()
