"""FlashAttnBackwardQ / K / V: the exact derivative of the forward reference, correctly rounded.

With upstream gradient do (the shape of q) and per query row the weights p_j, the output
o = Σ_j p_j·v_j and the softcap factors g_j (``oracles.families.attention.weights``):

    dV_j  = Σ_(h,i) p_ij·do_i              dP_ij = do_i·v_j        D_i = do_i·o_i
    dS_ij = p_ij·(dP_ij − D_i)             ds_ij = dS_ij·g_ij
    dQ_i  = scale·Σ_j ds_ij·k_j            dK_j  = scale·Σ_(h,i) ds_ij·q_i

where the K/V sums run over every query head that reads KV head g (GQA) and every query row that
attends key j; a key no row attends (masked, or at or past k_len) gets a zero gradient, and so
does every row that attends nothing. The alibi slopes are inputs, not parameters: no gradient.
A NaN spreads as the kernel's own arithmetic spreads it (a NaN in do_i reaches D_i, so row i's
whole dS, and through it dQ_i and the dK of every key row i attends).

    >>> dq = evaluate_backward("q")([q, k, v, do], params, ["F32"], {})[0]
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from oracles.families.attention import bounds
from oracles.families.attention.evaluate import Context, refine
from oracles.families.attention.geometry import flash_problem, rows_of
from oracles.families.attention.numbers import upper
from oracles.families.attention.weights import num, weights
from oracles.output import float_output, output_spec
from oracles.shapes import object_array

ZERO = Fraction(0)


class _Grads:
    """The three gradients of one pass (nested lists [b][head][position][c]) and, on the first
    pass, per element (term errors, |terms|, count) for its bound."""

    def __init__(self, p, sk: int, with_bounds: bool):
        def zeros(heads, n):
            return [[[[ZERO] * p.d for _ in range(n)] for _ in range(heads)] for _ in range(p.b)]

        self.q, self.k, self.v = zeros(p.hq, p.sq), zeros(p.hkv, sk), zeros(p.hkv, sk)
        self.b = {name: {} for name in "qkv"} if with_bounds else None
        # dV's terms grouped by weight: rows of equal scores share one exact p_j, so their do
        # rows are summed exactly before the product (an interval per row could not show that
        # two rows' terms cancel, and a dV that is exactly a tie would never round)
        self.v_terms: dict[tuple, dict[int, tuple]] = {}

    def add_v(self, at: tuple, same_weights: int, pj, do: list) -> None:
        terms = self.v_terms.setdefault(at, {})
        if same_weights in terms:
            pj, total = terms[same_weights]
            do = [t + x for t, x in zip(total, do, strict=True)]
        terms[same_weights] = (pj, do)

    def finish_v(self) -> None:
        for (b, g, j), terms in self.v_terms.items():
            self.v[b][g][j] = [sum((pj * total[c] for pj, total in terms.values()), ZERO)
                               for c in range(len(self.v[b][g][j]))]

    def add_bound(self, name: str, at: tuple, err: Fraction, mag: Fraction):
        e, m, n = self.b[name].get(at, (ZERO, ZERO, 0))
        self.b[name][at] = (e + err, m + mag, n + 1)


def _row(ctx: Context, row, prec: int, grads: _Grads):
    """Add one query row's contributions to the three gradients."""
    p, d = ctx.p, ctx.p.d
    if not row.keys:
        return
    w = weights(row, p, prec)
    do, q = ctx.do[row.b][row.h][row.i], ctx.q[row.b][row.h][row.i]
    vrows = [ctx.v[row.b][row.g][j] for j in row.keys]
    krows = [ctx.k[row.b][row.g][j] for j in row.keys]
    o = [sum((pj * vr[c] for pj, vr in zip(w.p, vrows, strict=True)), ZERO) for c in range(d)]
    D = sum((do[c] * o[c] for c in range(d)), ZERO)
    dP = [sum((do[c] * vr[c] for c in range(d)), ZERO) for vr in vrows]
    dS = [pj * (x - D) for pj, x in zip(w.p, dP, strict=True)]
    ds = [x * g for x, g in zip(dS, w.g, strict=True)]
    for c in range(d):
        grads.q[row.b][row.h][row.i][c] = p.scale * sum((x * kr[c] for x, kr in zip(ds, krows, strict=True)), ZERO)
    same_weights = ctx.weight_group[row.b, row.h, row.i]
    for j, x, pj in zip(row.keys, ds, w.p, strict=True):
        dk = grads.k[row.b][row.g][j]
        for c in range(d):
            dk[c] += p.scale * x * q[c]
        grads.add_v((row.b, row.g, j), same_weights, pj, do)
    if grads.b is not None and not row.nan:
        _row_bounds(ctx, row, w, (do, q, vrows, krows, o, D, dP, dS, ds), grads)


def _row_bounds(ctx: Context, row, w, parts, grads: _Grads):
    """The row's share of each gradient element's bound (``bounds``' module docstring)."""
    p, d, u, tiny = ctx.p, ctx.p.d, ctx.u, ctx.tiny
    do, q, vrows, krows, o, D, dP, dS, ds = parts
    # |x| of every value the bound reads, once (an Iv's ends decode to Fractions on each call)
    a_do, a_q, a_o = [upper(x) for x in do], [upper(x) for x in q], [upper(x) for x in o]
    a_v, a_k = [[upper(x) for x in vr] for vr in vrows], [[upper(x) for x in kr] for kr in krows]
    a_p, a_g, a_ds = [upper(x) for x in w.p], [upper(x) for x in w.g], [upper(x) for x in ds]
    a_D = upper(D)
    rhos, R = bounds.rho(row, w, d, True)
    dp_err = bounds.weight_errors(w, rhos, R, u, tiny)
    B_o = [bounds.output_bound(w, rhos, R, [vr[c] for vr in vrows], u, tiny) for c in range(d)]
    dD = u * d * sum((x * y for x, y in zip(a_do, a_o, strict=True)), ZERO)
    dD += sum((x * y for x, y in zip(a_do, B_o, strict=True)), ZERO)
    ds_err = []
    for j, (av, pj) in enumerate(zip(a_v, a_p, strict=True)):
        d_dP = u * d * sum((x * y for x, y in zip(a_do, av, strict=True)), ZERO)
        d_dS = dp_err[j] * (upper(dP[j]) + a_D) + pj * (d_dP + dD) + u * upper(dS[j])
        g_err = bounds.chain_error(row, j, p.softcap, d, u)
        ds_err.append(d_dS * a_g[j] + upper(dS[j]) * g_err + u * a_ds[j])
    n = len(row.keys)
    scale = p.scale
    for c in range(d):
        err = scale * sum((e * ak[c] for e, ak in zip(ds_err, a_k, strict=True)), ZERO)
        mag = scale * sum((x * ak[c] for x, ak in zip(a_ds, a_k, strict=True)), ZERO)
        grads.b["q"][row.b, row.h, row.i, c] = (err, mag, n)
    for j, e, x, pj, pe in zip(row.keys, ds_err, a_ds, a_p, dp_err, strict=True):
        se, sx = scale * e, scale * x
        for c in range(d):
            grads.add_bound("k", (row.b, row.g, j, c), se * a_q[c], sx * a_q[c])
            grads.add_bound("v", (row.b, row.g, j, c), pe * a_do[c], pj * a_do[c])


def _flat(nested) -> list:
    return [x for seq in nested for head in seq for pos in head for x in pos]


def evaluate_backward(which: str):
    """The evaluation of the gradient of ``which`` ("q", "k" or "v")."""

    def evaluate(inputs, params, out_dtypes, rules):
        fmt, s = output_spec(out_dtypes)
        p, sk = flash_problem(inputs, params, backward=True)
        ctx = Context(p, np.asarray(inputs[0]).dtype)
        ctx.q = [[[[num(c) for c in r] for r in head] for head in seq] for seq in p.q]
        ctx.k = [[[[num(c) for c in r] for r in head] for head in seq] for seq in p.k]
        ctx.do = [[[[num(c) for c in r] for r in head] for head in seq] for seq in _do_rows(inputs[3], p)]
        ctx.weight_group = _weight_groups(ctx.rows)
        shape = (p.b, p.hq, p.sq, p.d) if which == "q" else (p.b, p.hkv, sk, p.d)
        found: list = []

        def pass_at(prec):
            grads = _Grads(p, sk, with_bounds=not found)
            for row in ctx.rows.values():
                _row(ctx, row, prec, grads)
            grads.finish_v()
            if not found:
                found.append(grads.b[which])
            return _flat(getattr(grads, which))

        results = refine(pass_at, s)
        terms = [_terms(found[0].get(at), ctx) for at in np.ndindex(*shape)]
        return [float_output(results, fmt, shape, terms=object_array(terms, shape), acc_format=ctx.acc_name)]

    evaluate.__name__ = f"flash_attn_backward_{which}"
    return evaluate


def _weight_groups(rows: dict) -> dict:
    """{(b, h, i): group} where rows of one group have the same exact weights: the same
    attended keys, raw scores and alibi terms (the scale and softcap are the problem's)."""
    groups: dict[tuple, int] = {}
    return {at: groups.setdefault((tuple(r.keys), tuple(r.x), tuple(r.a)), len(groups))
            for at, r in rows.items()}


def _do_rows(do, p) -> list:
    do = np.asarray(do)
    if tuple(do.shape) != (p.b, p.hq, p.sq, p.d):
        raise ValueError(f"do has shape {list(do.shape)}, but the op params say {[p.b, p.hq, p.sq, p.d]}")
    return rows_of(do, 2)


def _terms(entry, ctx: Context):
    if entry is None:
        return (1, ZERO)
    err, mag, n = entry
    return bounds.terms_of(bounds.sum_bound(err, mag, n, ctx.u, ctx.tiny), n, ctx.u)
