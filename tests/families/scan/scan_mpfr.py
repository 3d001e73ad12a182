"""Independent references for the scan oracle, in MPFR (gmpy2) at ``PREC`` bits, written from the
mamba_ssm definitions and not from the oracle's code:

- ``selective``: selective_scan_ref's sequential recurrence (softplus as log1p(exp(x)));
- ``ssd_sequential``: Mamba-2's recurrence h_t = exp(dt·a)·h + dt·x⊗b, y = h·c;
- ``ssd_chunked``: ssd_minimal_discrete's chunked form (segment sums within a chunk, chunk states,
  the recurrence over chunk states, the state read out with exp of the prefix sums).

Each returns the exact-enough real value of every output (an mpfr); ``to_bits`` rounds it once
into a format with ``tests/oracle/oracle_mpfr.py``. At ``PREC`` bits every exact rational these
small cases produce is held exactly, and a transcendental value is far from any tie.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path

import gmpy2
import numpy as np

PREC = 1200


@cache
def _mpfr_module():
    path = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"
    spec = importlib.util.spec_from_file_location("scan_oracle_mpfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def to_bits(value, fmt: str) -> int:
    return _mpfr_module()._to_format(value, fmt)[0]


def _m(x) -> gmpy2.mpfr:
    return gmpy2.mpfr(float(x), 64)


def selective(u, delta, a, b, c, softplus: bool) -> np.ndarray:
    """y [batch, seqlen, dim] as mpfr objects."""
    batch, seqlen, dim = u.shape
    n = a.shape[1]
    y = np.empty(u.shape, dtype=object)
    with gmpy2.context(precision=PREC):
        for i in range(batch):
            for d in range(dim):
                h = [gmpy2.mpfr(0)] * n
                for t in range(seqlen):
                    dp = _m(delta[i, t, d])
                    if softplus:
                        dp = gmpy2.log1p(gmpy2.exp(dp))
                    h = [gmpy2.exp(dp * _m(a[d, k])) * h[k] + dp * _m(b[i, t, k]) * _m(u[i, t, d])
                         for k in range(n)]
                    y[i, t, d] = sum((h[k] * _m(c[i, t, k]) for k in range(n)), gmpy2.mpfr(0))
    return y


def ssd_sequential(x, dt, a, b, c) -> np.ndarray:
    """y [batch, seqlen, heads, head_dim] as mpfr objects."""
    batch, seqlen, heads, p = x.shape
    n = b.shape[-1]
    y = np.empty(x.shape, dtype=object)
    with gmpy2.context(precision=PREC):
        for i, hh, j in np.ndindex(batch, heads, p):
            h = [gmpy2.mpfr(0)] * n
            for t in range(seqlen):
                step = _m(dt[i, t, hh])
                decay = gmpy2.exp(step * _m(a[hh]))
                h = [decay * h[k] + step * _m(x[i, t, hh, j]) * _m(b[i, t, hh, k]) for k in range(n)]
                y[i, t, hh, j] = sum((h[k] * _m(c[i, t, hh, k]) for k in range(n)), gmpy2.mpfr(0))
    return y


def _chunk_lane(xs, zs, bs, cs, q: int) -> list:
    """One lane of ssd_minimal_discrete: xs = X·dt [t], zs = A·dt [t], bs, cs [t][n]."""
    seqlen, n = len(xs), len(bs[0]) if bs else 0
    chunks = seqlen // q
    zero = gmpy2.mpfr(0)
    out, states, totals = [zero] * seqlen, [], []
    for ch in range(chunks):
        idx = range(ch * q, (ch + 1) * q)
        cum = []
        for t in idx:  # A_cumsum within the chunk
            cum.append((cum[-1] if cum else zero) + zs[t])
        for li, t in enumerate(idx):  # Y_diag: exp(segsum) over s <= l of the chunk
            for si, s in enumerate(idx[: li + 1]):
                seg = sum((zs[r] for r in idx[si + 1: li + 1]), zero)
                cb = sum((cs[t][k] * bs[s][k] for k in range(n)), zero)
                out[t] += cb * gmpy2.exp(seg) * xs[s]
        states.append([sum((bs[s][k] * gmpy2.exp(cum[-1] - cum[si]) * xs[s] for si, s in enumerate(idx)), zero)
                       for k in range(n)])
        totals.append(cum[-1])
        entering = [sum((gmpy2.exp(sum(totals[c2 + 1: ch], zero)) * states[c2][k] for c2 in range(ch)), zero)
                    for k in range(n)]
        for li, t in enumerate(idx):  # Y_off: the state entering the chunk, read out
            out[t] += sum((cs[t][k] * entering[k] for k in range(n)), zero) * gmpy2.exp(cum[li])
    return out


def ssd_chunked(x, dt, a, b, c, q: int) -> np.ndarray:
    """ssd_minimal_discrete(X·dt, A·dt, B, C, q) as mpfr objects."""
    batch, seqlen, heads, p = x.shape
    n = b.shape[-1]
    y = np.empty(x.shape, dtype=object)
    with gmpy2.context(precision=PREC):
        for i, hh, j in np.ndindex(batch, heads, p):
            steps = [_m(dt[i, t, hh]) for t in range(seqlen)]
            xs = [_m(x[i, t, hh, j]) * steps[t] for t in range(seqlen)]
            zs = [_m(a[hh]) * steps[t] for t in range(seqlen)]
            bs = [[_m(b[i, t, hh, k]) for k in range(n)] for t in range(seqlen)]
            cs = [[_m(c[i, t, hh, k]) for k in range(n)] for t in range(seqlen)]
            for t, v in enumerate(_chunk_lane(xs, zs, bs, cs, q)):
                y[i, t, hh, j] = v
    return y
