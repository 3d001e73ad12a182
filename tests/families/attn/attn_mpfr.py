"""An independent reference for attention: MPFR through gmpy2, loop by loop from the contract's
text, each formula arranged unlike the oracle's: a weight as 1 / Σ_k e^{s_k − s_j} (no shift,
no interval), the keys a row keeps tested one by one, D_i as Σ_k p_ik·dP_ik rather than do·o,
softcap's factor as 1 / cosh², the paged cache read slot by slot. Evaluated at P and 2P bits and
rounded once; an element is compared only where both precisions give the same bits off a tie.

    >>> out = forward(problem, prec=300)     # {(b, h, i, c): mpfr}
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import gmpy2

_HELPER = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"


def to_format(v, fmt: str):
    name = "judge_test_oracle_mpfr"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _HELPER)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]._to_format(v, fmt)


def _m(x):
    """A stored float exactly; an mpfr (a finite-difference step) as it is."""
    return x if isinstance(x, type(gmpy2.mpfr(0))) else gmpy2.mpfr(x, 64)


def kept(P: dict, b: int, i: int) -> list[int]:
    """Keys row i of sequence b keeps, read off the contract one condition at a time."""
    n = P["lens"][b]
    at = i + n - P["sq"]
    out = []
    for j in range(n):
        if P["causal"] and j > at:
            continue
        if P["left"] >= 0 and j < at - P["left"]:
            continue
        if P["right"] >= 0 and j > at + P["right"]:
            continue
        out.append(j)
    return out


def _scores(P: dict, b: int, h: int, i: int, keys: list[int]):
    g = h // (P["hq"] // P["hkv"])
    at = i + P["lens"][b] - P["sq"]
    scale, cap = _m(P["scale"]), _m(P["softcap"])
    out = []
    for j in keys:
        x = scale * sum((_m(a) * _m(c) for a, c in zip(P["q"][b][h][i], P["key"](b, g, j), strict=True)), gmpy2.mpfr(0))
        s = cap * gmpy2.tanh(x / cap) if P["softcap"] > 0 else x
        if P["alibi"] is not None:
            s = s + _m(P["alibi"][h]) * (j - at)
        out.append((s, x))
    return g, out


def _weights(scores):
    return [1 / sum((gmpy2.exp(t - s) for t, _ in scores), gmpy2.mpfr(0)) for s, _ in scores]


def forward(P: dict, prec: int) -> dict:
    with gmpy2.context(precision=prec, emax=1 << 40, emin=-(1 << 40)):
        out = {}
        for b in range(P["b"]):
            for h in range(P["hq"]):
                for i in range(P["sq"]):
                    keys = kept(P, b, i)
                    g, scores = _scores(P, b, h, i, keys)
                    p = _weights(scores)
                    for c in range(P["d"]):
                        out[b, h, i, c] = sum((pj * _m(P["value"](b, g, j)[c]) for pj, j in zip(p, keys, strict=True)),
                                              gmpy2.mpfr(0))
        return out


def backward(P: dict, prec: int) -> dict:
    """{("q"|"k"|"v", b, head, pos, c): mpfr}; elements never touched are absent (zero)."""
    with gmpy2.context(precision=prec, emax=1 << 40, emin=-(1 << 40)):
        out: dict = {}
        scale = _m(P["scale"])
        for b in range(P["b"]):
            for h in range(P["hq"]):
                for i in range(P["sq"]):
                    _backward_row(P, b, h, i, scale, out)
        return out


def _backward_row(P, b, h, i, scale, out):
    keys = kept(P, b, i)
    g, scores = _scores(P, b, h, i, keys)
    p = _weights(scores)
    do = [_m(x) for x in P["do"][b][h][i]]
    dP = [sum((do[c] * _m(P["value"](b, g, j)[c]) for c in range(P["d"])), gmpy2.mpfr(0)) for j in keys]
    D = sum((pk * x for pk, x in zip(p, dP, strict=True)), gmpy2.mpfr(0))
    for c in range(P["d"]):
        out.setdefault(("q", b, h, i, c), gmpy2.mpfr(0))
    for pj, x, j, (_, raw) in zip(p, dP, keys, scores, strict=True):
        ds = pj * x - pj * D
        if P["softcap"] > 0:
            ds = ds / gmpy2.cosh(raw / _m(P["softcap"])) ** 2
        for c in range(P["d"]):
            out["q", b, h, i, c] += scale * ds * _m(P["key"](b, g, j)[c])
            out["k", b, g, j, c] = out.get(("k", b, g, j, c), gmpy2.mpfr(0)) + scale * ds * _m(P["q"][b][h][i][c])
            out["v", b, g, j, c] = out.get(("v", b, g, j, c), gmpy2.mpfr(0)) + pj * do[c]
