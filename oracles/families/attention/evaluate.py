"""FlashAttn and PagedAttn: each output element o[b, h, i, c] = Σ_j p_ij·v[b, g, j, c], correctly
rounded into the output format, with the terms of its derived bound
(``oracles.families.attention.bounds``).

A value is a Fraction where every weight it reads is rational (rows of equal scores: 1/n),
rounded exactly; otherwise an interval evaluated at a working precision that doubles until
both ends round alike (Ziv's strategy, ``refine``). A row that attends no key is all zeros
(the decided semantics: a fully masked row writes zeros). NaN: a NaN in the query row, an
attended key row or the row's alibi slope makes the row NaN; a NaN in an attended value makes
that column NaN; keys the row does not attend are never read.

    >>> out = evaluate_flash([q, k, v], params, ["F32"], {})[0]   # q [b,hq,sq,d], k, v [b,hkv,sk,d]
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from numerics.rounding import float_spec
from oracles.families.attention import bounds
from oracles.families.attention.geometry import Problem, flash_problem, paged_problem
from oracles.families.attention.numbers import NAN, rounded
from oracles.families.attention.weights import num, score_row, weights
from oracles.output import float_output, output_spec
from oracles.shapes import object_array
from oracles.sums import acc_format
from oracles.ziv import MAX_PRECISION, RoundingUndecided


class Context:
    """What every pass of one evaluation shares: the problem, its rows' exact parts, the
    values as Fractions, the accumulator's unit roundoff and smallest normal."""

    def __init__(self, p: Problem, dtype):
        self.p = p
        acc = float_spec(acc_format(dtype))
        self.acc_name = acc_format(dtype)
        self.u = Fraction(1, 1 << acc.p)
        self.tiny = Fraction(2) ** acc.emin
        self.rows = {(b, h, i): score_row(p, b, h, i)
                     for b in range(p.b) for h in range(p.hq) for i in range(p.sq)}
        self.v = [[[[num(c) for c in row] for row in head] for head in seq] for seq in p.v]

    def column(self, row, c: int) -> list:
        vs = self.v[row.b][row.g]
        return [vs[j][c] for j in row.keys]


def refine(pass_at: Callable[[int], list], s) -> list:
    """(bits, exact) per element of ``pass_at(prec)``'s values, the precision doubled for the
    elements still undecided."""
    prec = 2 * s.p + 24
    values = pass_at(prec)
    results = [rounded(x, s) for x in values]
    while any(r is None for r in results):
        prec *= 2
        if prec > MAX_PRECISION:
            raise RoundingUndecided(f"attention: rounding into {s.name} undecided at {prec // 2} bits")
        values = pass_at(prec)
        results = [r if r is not None else rounded(x, s) for r, x in zip(results, values, strict=True)]
    return results


def _forward_row(ctx: Context, row, prec: int, with_bounds: bool):
    """(values, terms) of one row's d outputs."""
    p, d = ctx.p, ctx.p.d
    if not row.keys:
        return [Fraction(0)] * d, [(1, Fraction(0))] * d
    w = weights(row, p, prec)
    values, terms = [], []
    rhos, R = bounds.rho(row, w, d, False) if with_bounds and not row.nan else (None, None)
    for c in range(d):
        col = ctx.column(row, c)
        values.append(sum((pj * vj for pj, vj in zip(w.p, col, strict=True)), Fraction(0)))
        if rhos is None or values[-1] is NAN:
            terms.append((1, Fraction(0)))
            continue
        B = bounds.output_bound(w, rhos, R, col, ctx.u, ctx.tiny)
        terms.append(bounds.terms_of(B, len(col), ctx.u))
    return values, terms


def _forward(ctx: Context, out_dtypes):
    fmt, s = output_spec(out_dtypes)
    p = ctx.p
    order = [ctx.rows[b, h, i] for b in range(p.b) for h in range(p.hq) for i in range(p.sq)]
    terms: list = []

    def pass_at(prec):
        values, collect = [], not terms  # the bounds come from the first pass
        for row in order:
            v, t = _forward_row(ctx, row, prec, collect)
            values += v
            if collect:
                terms.extend(t)
        return values

    results = refine(pass_at, s)
    shape = (p.b, p.hq, p.sq, p.d)
    return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=ctx.acc_name)]


def evaluate_flash(inputs, params, out_dtypes, rules):
    problem, _ = flash_problem(inputs, params)
    return _forward(Context(problem, np.asarray(inputs[0]).dtype), out_dtypes)


def evaluate_paged(inputs, params, out_dtypes, rules):
    problem = paged_problem(inputs, params)
    return _forward(Context(problem, np.asarray(inputs[0]).dtype), out_dtypes)

