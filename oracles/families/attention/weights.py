"""One query row's attention weights: its exact scores, then the softmax weights p_j and softcap
factors g_j as exact Fractions or rigorous intervals at a given precision.

Scores of query row i (sequence b, query head h, KV head g) over the keys j it attends:
x_j = scale · Σ_c q[i,c]·k[j,c] (exact), s_j = cap(x_j) + alibi[h]·(j − (i + k_len − sq)), where
cap(x) = c·tanh(x / c) for softcap c > 0 and cap(x) = x otherwise. p_j = e^{s_j − m} / Σ_k
e^{s_k − m} (m: any shift; the shift cancels). g_j = cap'(x_j) = 1 − tanh²(x_j / c) (1 without
softcap) is the chain factor of the backward pass.

A row whose scores are all equal has p_j = 1/n exactly; so does a softcapped row whose
(x_j, alibi term) pairs all agree. A NaN among the scores makes every weight of the row NaN (its
maximum is NaN, as in a max-shifted kernel).

    >>> row = score_row(problem, b=0, h=0, i=0)
    >>> probs, chain = weights(row, problem, prec=80)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from oracles.families.attention.geometry import Problem, attended, kv_head
from oracles.families.attention.numbers import NAN, Iv, upper


def num(x: float):
    """A stored float as an exact Fraction, or NAN."""
    return NAN if x != x else Fraction(x)


@dataclass
class Row:
    """The exact part of one query row (``keys``: attended positions; ``x``, ``a``: raw scores
    and alibi terms per attended key; ``A``: scale·Σ|q·k| per key, for the bound)."""

    b: int
    h: int
    i: int
    g: int
    keys: list[int]
    x: list
    a: list
    A: list
    nan: bool


def score_row(p: Problem, b: int, h: int, i: int) -> Row:
    g = kv_head(p, h)
    keys = attended(p, b, i)
    q = [num(c) for c in p.q[b][h][i]]
    slope = num(p.alibi[h]) if p.alibi is not None else Fraction(0)
    at = i + p.k_lens[b] - p.sq
    x, a, A = [], [], []
    nan = False
    for j in keys:
        k = [num(c) for c in p.k[b][g][j]]
        dot = sum((qc * kc for qc, kc in zip(q, k, strict=True)), Fraction(0))
        x.append(p.scale * dot)
        a.append(slope * (j - at))
        nan |= x[-1] is NAN or a[-1] is NAN
        A.append(0 if nan else p.scale * sum((abs(qc * kc) for qc, kc in zip(q, k, strict=True)), Fraction(0)))
    return Row(b, h, i, g, keys, x, a, A, nan)


@dataclass
class Weights:
    """p_j and g_j of a row at one precision, and the magnitudes its bound reads: |cap(x_j)|,
    |s_j|, |s_j − m| and |m| (upper bounds, Fractions)."""

    p: list
    g: list
    cap: list
    s: list
    shift: list
    m: Fraction


def _capped(row: Row, c: Fraction, prec: int):
    """(cap(x_j), g_j) per key."""
    if c == 0:
        return list(row.x), [Fraction(1)] * len(row.x)
    caps, chain = [], []
    for x in row.x:
        if x == 0:
            caps.append(Fraction(0))
            chain.append(Fraction(1))
            continue
        t = Iv.tanh(x / c, prec)
        caps.append(c * t)
        chain.append(1 - t * t)
    return caps, chain


def weights(row: Row, p: Problem, prec: int) -> Weights:
    n = len(row.keys)
    if row.nan:
        return Weights([NAN] * n, [NAN] * n, [0] * n, [0] * n, [0] * n, Fraction(0))
    caps, chain = _capped(row, p.softcap, prec)
    s = [cj + aj for cj, aj in zip(caps, row.a, strict=True)]
    if n == 0:
        return Weights([], [], [], [], [], Fraction(0))
    m = max(x.ends()[0] if isinstance(x, Iv) else x for x in s)
    shift = [x - m for x in s]
    mags = dict(cap=[upper(x) for x in caps], s=[upper(x) for x in s], shift=[upper(x) for x in shift])
    if len(set(zip(row.x, row.a, strict=True))) == 1:  # equal scores: exactly 1/n each
        return Weights([Fraction(1, n)] * n, chain, **mags, m=abs(m))
    cache: dict = {}

    def e(t):
        if not isinstance(t, Iv):
            if t == 0:
                return Fraction(1)
            if t not in cache:
                cache[t] = Iv.exp(t, prec)
            return cache[t]
        return Iv.exp(t, prec)

    es = [e(t) for t in shift]
    total = sum(es[1:], es[0])
    return Weights([x / total for x in es], chain, **mags, m=abs(m))
