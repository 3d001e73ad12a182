"""An independent reference for the rope and convolution oracles: MPFR through gmpy2, arranged
unlike the oracle's gather of taps per output element.

- the convolutions scatter: every input element is multiplied by every weight tap it meets and
  added into the output element it lands on (Conv2D through the zero-padded input's coordinates,
  ConvTranspose2D through the uncropped output's), recording which (output, tap) pairs were
  real, so a tap that only met padding or a hole is known without the oracle's index formula;
- rope pairs positions by permuting an index array (rotate_half: the halves swapped, the lower
  one negated; interleaved: each pair swapped, the even one negated);
- sums are exact (4800 bits hold any sum of products of binary64 values), IEEE specials and
  signed zeros from MPFR's own arithmetic; SiLU is z / (1 + e^-z) at P and 2P bits from the exact
  z, accepted where both round alike off a tie.
"""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path

import gmpy2
import numpy as np

WIDE = 4800
_HELPER = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"


def helper():
    name = "judge_test_oracle_mpfr"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _HELPER)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def mpfr_sum(terms) -> gmpy2.mpfr:
    """t1 + t2 + ... exactly (IEEE specials; all -0 terms give -0, no terms +0)."""
    with gmpy2.context(precision=WIDE):
        total = None
        for t in terms:
            total = gmpy2.mpfr(t) if total is None else total + t
        return gmpy2.mpfr(0) if total is None else total


def product(a: float, b: float) -> gmpy2.mpfr:
    with gmpy2.context(precision=WIDE):
        return gmpy2.mpfr(a, 64) * gmpy2.mpfr(b, 64)


def bound_count(terms: int, products: bool, fmt: str) -> int:
    """The derived bound's count of a sum of ``terms`` terms: one more than the roundings on a
    term's path (a product's, the additions) plus one of margin; a half output narrowed from
    the F32 accumulator multiplies the roundings by (1 + 2^-p)."""
    roundings = terms + (1 if products else 0)
    if fmt in ("BF16", "F16"):
        p = 8 if fmt == "BF16" else 11
        roundings = math.ceil(roundings * (1 + 2.0**-p))
    return roundings + 1


def _group_of(c: int, per_group: int) -> int:
    return c // per_group


def conv_scatter(x, w, bias, p, transposed: bool):
    """(terms per output element as lists, the real (output, tap) pairs, out shape)."""
    n_, cin, h, wd = x.shape
    out = tuple(p["out_shape"])
    g = p["groups"]
    sh, sw = p["stride"]
    dh, dw = p["dilation"]
    top, _, left, _ = p["padding"]
    kh_n, kw_n = w.shape[2:]
    cpg_in, cpg_out = cin // g, out[1] // g
    terms = {idx: [] for idx in itertools.product(*(range(d) for d in out))}
    real = set()
    for n, ci, r, q in itertools.product(range(n_), range(cin), range(h), range(wd)):
        grp = _group_of(ci, cpg_in)
        for co, kh, kw in itertools.product(range(grp * cpg_out, (grp + 1) * cpg_out), range(kh_n), range(kw_n)):
            if transposed:  # lands on uncropped row r·sh + kh·dh, i.e. output row that − top
                i, j = r * sh + kh * dh - top, q * sw + kw * dw - left
                wv = w[ci, co - grp * cpg_out, kh, kw]
            else:  # padded input row r + top is read by output i with i·sh + kh·dh = r + top
                i, rem_i = divmod(r + top - kh * dh, sh)
                j, rem_j = divmod(q + left - kw * dw, sw)
                if rem_i or rem_j:
                    continue
                wv = w[co, ci - grp * cpg_in, kh, kw]
            if 0 <= i < out[2] and 0 <= j < out[3]:
                terms[(n, co, i, j)].append(product(float(x[n, ci, r, q]), float(wv)))
                real.add((n, co, i, j, ci, kh, kw))
    if bias is not None:
        for idx in terms:
            terms[idx].append(gmpy2.mpfr(float(bias[idx[1]]), 64))
    return terms, real, out


def phantom_nan(w, p, real, idx, transposed: bool) -> bool:
    """Whether output ``idx`` has a tap on padding or a hole whose weight is NaN or ±inf."""
    g, cin = p["groups"], p["x_shape"][1]
    cpg_in, cpg_out = cin // g, p["out_shape"][1] // g
    n, co, i, j = idx
    grp = _group_of(co, cpg_out)
    for ci, kh, kw in itertools.product(range(grp * cpg_in, (grp + 1) * cpg_in), *(range(k) for k in w.shape[2:])):
        wv = w[ci, co - grp * cpg_out, kh, kw] if transposed else w[co, ci - grp * cpg_in, kh, kw]
        if not math.isfinite(float(wv)) and (n, co, i, j, ci, kh, kw) not in real:
            return True
    return False


def rope_partner(d: int, interleaved: bool) -> tuple[np.ndarray, np.ndarray]:
    """(partner index, sign) per position, by permuting an index array."""
    idx = np.arange(d)
    if interleaved:
        partner = idx.reshape(-1, 2)[:, ::-1].reshape(-1)
        sign = np.tile([-1, 1], d // 2)
    else:
        partner = np.concatenate([idx[d // 2:], idx[: d // 2]])
        sign = np.concatenate([-np.ones(d // 2, int), np.ones(d // 2, int)])
    return partner, sign


def silu(z: gmpy2.mpfr, fmt: str) -> int | None:
    """silu(z) rounded into fmt; None where P and 2P disagree up to 2^14 bits (a tie)."""
    to_format = helper()._to_format
    if gmpy2.is_nan(z):
        return to_format(z, fmt)[0]
    if gmpy2.is_infinite(z):
        return to_format(z if z > 0 else gmpy2.mpfr("-0.0"), fmt)[0]
    if z == 0:
        return to_format(z, fmt)[0]
    prec = 256
    while prec <= 1 << 14:
        got = []
        for p in (prec, 2 * prec):
            with gmpy2.context(precision=p, emax=1 << 28, emin=-(1 << 28)):
                got.append(to_format(z / (1 + gmpy2.exp(-z)), fmt))
        if got[0][0] == got[1][0] and not (got[0][1] or got[1][1]):
            return got[0][0]
        prec *= 4
    return None
