"""The attention oracle against an independent MPFR reference (``attn_mpfr``) on generated calls
(GQA, padded caches, causal and windowed masks, fully masked rows, softcap, alibi, equal scores,
large scores, NaN in read and unread places, paged tables), and the backward oracle against
central finite differences of the MPFR forward (a test of the reference, never an oracle)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from numerics.formats import get_format

FORMATS = ("F32", "F64", "F16", "BF16")
KINDS = ("FlashAttn", "FlashAttnBackwardQ", "FlashAttnBackwardK", "FlashAttnBackwardV", "PagedAttn")


def _values(rng, shape, t, large=False):
    x = rng.integers(-8, 9, shape) / 4.0 if rng.random() < 0.5 else rng.normal(0, 1.5, shape)
    if large:
        x = 40.0 + rng.integers(0, 40, shape)
    if rng.random() < 0.15:
        x.reshape(-1)[rng.integers(0, x.size)] = math.nan
    return x.astype(t)


def _flash_case(rng, t, backward):
    hkv, ratio = [(1, 1), (2, 2), (1, 3), (2, 1)][rng.integers(0, 4)]
    b, hq, sq, sk, d = int(rng.integers(1, 3)), hkv * ratio, int(rng.integers(1, 4)), int(rng.integers(1, 6)), int(rng.integers(1, 4))
    params = {"b": b, "hq": hq, "hkv": hkv, "sq": sq, "sk": sk, "d": d, "k_len": int(rng.integers(0, sk + 1)),
              "softmax_scale": [0.5, 1.0, 0.125][rng.integers(0, 3)], "causal": bool(rng.integers(0, 2)),
              "window_size_left": int(rng.integers(-1, 3)), "window_size_right": int(rng.integers(-1, 3)),
              "softcap": [0.0, 0.0, 2.0, 30.0][rng.integers(0, 4)]}
    large = rng.random() < 0.2
    q = _values(rng, (b, hq, sq, d), t, large)
    if rng.random() < 0.3:
        q[..., 0, :] = 0  # a row of equal scores
    k, v = _values(rng, (b, hkv, sk, d), t, large), _values(rng, (b, hkv, sk, d), t)
    inputs = [q, k, v] + ([_values(rng, q.shape, t)] if backward else [])
    alibi = rng.random() < 0.5
    if alibi:
        inputs.append((2.0 ** -rng.integers(1, 8, hq)).astype(t))
    P = _problem(params, q, k.tolist(), v.tolist(), inputs[-1].tolist() if alibi else None, (params["k_len"],) * b)
    P["do"] = inputs[3].astype(np.float64).tolist() if backward else None
    P["k"], P["v"] = k.astype(np.float64).tolist(), v.astype(np.float64).tolist()
    P["key"], P["value"] = (lambda b_, g, j: P["k"][b_][g][j]), (lambda b_, g, j: P["v"][b_][g][j])
    return inputs, params, P


def _paged_case(rng, t):
    hkv, ratio = [(1, 1), (2, 2), (1, 2)][rng.integers(0, 3)]
    b, hq, sq, d = int(rng.integers(1, 3)), hkv * ratio, int(rng.integers(1, 3)), int(rng.integers(1, 4))
    bs, mb = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    nb = b * mb + 1
    params = {"b": b, "hq": hq, "hkv": hkv, "sq": sq, "d": d, "block_size": bs, "max_blocks_per_seq": mb,
              "num_blocks": nb, "softmax_scale": 0.5, "softcap": [0.0, 5.0][rng.integers(0, 2)]}
    q = _values(rng, (b, hq, sq, d), t)
    kc, vc = _values(rng, (nb, bs, hkv, d), t), _values(rng, (nb, bs, hkv, d), t)
    table = rng.permutation(nb)[: b * mb].reshape(b, mb).astype(np.uint32)
    lens = rng.integers(0, mb * bs + 1, b).astype(np.uint32)
    inputs = [q, kc, vc, table, lens]
    P = _problem(params, q, None, None, None, tuple(int(n) for n in lens))
    P.update(causal=True, left=-1, right=-1)
    P["key"] = lambda b_, g, j: kc[table[b_, j // bs], j % bs, g].astype(np.float64)
    P["value"] = lambda b_, g, j: vc[table[b_, j // bs], j % bs, g].astype(np.float64)
    return inputs, params, P


def _problem(params, q, k, v, alibi, lens):
    return {"b": params["b"], "hq": params["hq"], "hkv": params["hkv"], "sq": params["sq"], "d": params["d"],
            "scale": params["softmax_scale"], "softcap": params["softcap"], "causal": params.get("causal", True),
            "left": params.get("window_size_left", -1), "right": params.get("window_size_right", -1),
            "lens": lens, "q": q.astype(np.float64).tolist(), "alibi": alibi}


def _expected_bits(kind, P, params, shape, fmt, prec):
    import attn_mpfr

    which = kind[-1].lower() if "Backward" in kind else None
    runs = []
    for p in (prec, 2 * prec):
        vals = attn_mpfr.backward(P, p) if which else attn_mpfr.forward(P, p)
        runs.append([attn_mpfr.to_format(vals.get((which, *at) if which else at, 0), fmt) for at in np.ndindex(*shape)])
    return [b1 if b1 == b2 and not (t1 or t2) else None for (b1, t1), (b2, t2) in zip(*runs, strict=True)]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", KINDS)
def test_oracle_matches_mpfr(kind, fmt):
    import oracles

    t = get_format(fmt).numpy_dtype
    bits_dtype = get_format(fmt).bits_dtype
    rng = np.random.default_rng(sum(map(ord, kind + fmt)))
    compared = undecided = 0
    for _ in range(10):
        inputs, params, P = _paged_case(rng, t) if kind == "PagedAttn" else _flash_case(rng, t, kind != "FlashAttn")
        out = oracles.get(kind).evaluate(inputs, params, [fmt], {})[0]
        got = out.expected.reshape(-1).view(bits_dtype).tolist()
        want = _expected_bits(kind, P, params, out.expected.shape, fmt, 300)
        for n, (g, w) in enumerate(zip(got, want, strict=True)):
            if w is None:
                undecided += 1
                continue
            compared += 1
            nan_g, nan_w = _is_nan(g, fmt), _is_nan(w, fmt)
            sign = 1 << (get_format(fmt).bits - 1)
            same = g == w or (g | sign) == (w | sign) == sign  # zeros: an inexact op's sign is free
            assert nan_g == nan_w and (nan_g or same), (
                f"{kind} {fmt} {params} element {n}: oracle 0x{g:X}, MPFR 0x{w:X}")
    assert compared > 40 and undecided <= compared // 10, (compared, undecided)


def _is_nan(bits: int, fmt: str) -> bool:
    f = get_format(fmt)
    return ((bits >> (f.precision - 1)) & ((1 << (f.bits - f.precision)) - 1)) == (1 << (f.bits - f.precision)) - 1 \
        and bits & ((1 << (f.precision - 1)) - 1) != 0


@pytest.mark.parametrize("which", "qkv")
def test_backward_is_the_derivative_of_the_forward(which):
    """Central differences of the MPFR forward loss Σ do·o, step 2^-80 at 600 bits (error about
    2^-150), against the exact values the backward oracle reports."""
    import attn_mpfr
    import gmpy2

    import oracles

    rng = np.random.default_rng(ord(which))
    checked = 0
    while checked < 3:
        inputs, params, P = _flash_case(rng, np.float64, True)
        if any(np.isnan(np.asarray(x, np.float64)).any() for x in inputs) or inputs[0].size > 24:
            continue
        out = oracles.get(f"FlashAttnBackward{which.upper()}").evaluate(inputs, params, ["F64"], {})[0]
        data = P["q"] if which == "q" else P[which]
        with gmpy2.context(precision=600):
            h = gmpy2.mpfr(2) ** -80
            for at, exact in zip(np.ndindex(*out.expected.shape), out.exact.reshape(-1), strict=True):
                fd = _central(attn_mpfr, P, data, at, h, inputs[3])
                assert abs(fd - _exact(exact)) <= gmpy2.mpfr(2) ** -100 * (1 + abs(fd)), (which, params, at)
        checked += 1


def _central(attn_mpfr, P, data, at, h, do):
    b, head, pos, c = at
    row = data[b][head][pos]
    x = row[c]
    losses = []
    for step in (h, -h):
        row[c] = gmpy2_mpfr(x) + step
        o = attn_mpfr.forward(P, 600)
        losses.append(sum(o[key] * gmpy2_mpfr(float(do[key])) for key in o))
    row[c] = x
    return (losses[0] - losses[1]) / (2 * h)


def gmpy2_mpfr(x):
    import gmpy2

    return gmpy2.mpfr(x, 64) if isinstance(x, float) else x


def _exact(x):
    """The oracle's exact value (a Fraction or an mpf) as an mpfr, without rounding it."""
    from fractions import Fraction

    import gmpy2

    if isinstance(x, Fraction):
        return gmpy2.mpfr(gmpy2.mpq(x.numerator, x.denominator))
    sign, man, exp, _ = x._mpf_
    return (-1 if sign else 1) * gmpy2.mpfr(int(man)) * gmpy2.mpfr(2) ** exp


def test_dv_rounds_a_tie_that_two_heads_cancelling_make_exact():
    """Two query heads of one KV head with equal scores (so one irrational weight p) and opposite
    upstream rows: their dV terms p·do and p·(−do) cancel exactly, and the rest of dV is a BF16
    tie (4.453125, halfway between 4.4375 and 4.46875). Intervals of each term alone would
    straddle the tie at every precision; the oracle must round it to even."""
    import oracles

    bf16 = get_format("BF16").numpy_dtype
    params = {"b": 1, "hq": 2, "hkv": 1, "sq": 2, "sk": 2, "d": 1, "k_len": 2, "softmax_scale": 0.5,
              "causal": True, "window_size_left": -1, "window_size_right": -1, "softcap": 0.0}
    q = np.array([[[[1.0], [1.0]], [[1.0], [1.0]]]], dtype=bf16)  # both heads alike
    k = np.array([[[[1.0], [3.0]]]], dtype=bf16)  # row 1's weights on keys 0 and 1 are irrational
    v = np.array([[[[0.5], [-1.25]]]], dtype=bf16)
    # row 0 attends key 0 alone (weight 1): its two heads put 2 + 2.453125 on dV[0]; row 1's
    # two heads put p·2.71875 and p·(−2.71875) there
    do = np.array([[[[2.0], [2.71875]], [[2.453125], [-2.71875]]]], dtype=bf16)
    out = oracles.get("FlashAttnBackwardV").evaluate([q, k, v, do], params, ["BF16"], {})[0]
    assert float(out.expected.reshape(-1)[0]) == 4.4375
