"""The F32 sweep's chunk scorer classifies only the elements whose bits differ from the correctly
rounded result. Its totals must equal the rulebook applied to every element of the chunk
(``classify`` on the whole arrays, counted here the plain way), for every bound kind, on chunks
full of NaN, ±inf, ±0, subnormals and values a few ulp off, split over several chunks."""

from __future__ import annotations

import numpy as np
import pytest

from judge.contracts.model import Precision, Rule, Semantics
from judge.scoring.tally import HIST_BINS, Tally, add_chunk
from judge.scoring.vector import classify, error_maxima
from numerics.formats import get_format

F32 = get_format("F32")
_U = Rule("unspecified", "unspecified")
RULES = Semantics(nan=Rule("propagate", "semantics"), ties=_U, rounding=_U, remainder=_U)
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1e-40, 3.4e38, 1.0],
                    dtype=np.float32)


def _chunk(seed: int, n: int = 4096):
    """(x bits, observed bits, correctly rounded bits, F64 reference) of a made-up kernel."""
    rng = np.random.default_rng(seed)
    ref = rng.standard_normal(n) * np.exp2(rng.integers(-140, 120, n))
    ref[rng.integers(0, n, n // 16)] = rng.choice(SPECIALS.astype(np.float64), n // 16)
    exp32 = ref.astype(np.float32)
    obs = exp32.view(np.int32).copy()
    off = rng.integers(0, n, n // 8)
    obs[off] += rng.integers(-3, 4, off.size)  # a few ulp either way (and sign/NaN-bit changes)
    obs[rng.integers(0, n, n // 64)] = rng.choice(SPECIALS, n // 64).view(np.int32)
    nans = np.flatnonzero(np.isnan(exp32))[::2]
    obs[nans] = np.int32(-0x400000)  # another NaN than the expected one: not a finding
    x = rng.integers(-2**31, 2**31, n).astype(np.int32)
    return x, obs, exp32.view(np.int32), ref


def _by_definition(chunks, kind, precision, rules):
    """The totals from ``classify`` over each whole chunk, counted element by element."""
    counts, first, mism = {}, {}, dict.fromkeys(("nan", "inf", "signed_zero", "implausible"), 0)
    hist = np.zeros(HIST_BINS + 1, np.int64)
    worst, worst_real, abs_max, rel_max = (-1, -1), (-1.0, -1), 0.0, 0.0
    start = 0
    for x, obs, exp, ref in chunks:
        with np.errstate(all="ignore"):  # signalling NaNs quieten as they widen
            obs_f = obs.view(np.float32).astype(np.float64)
            exp_f = exp.view(np.float32).astype(np.float64)
            cls = classify(obs_bits=obs, exp_bits=exp, obs_f=obs_f, exp_f=exp_f, hi=ref, lo=None,
                           has_exact=np.isfinite(ref), kind=kind, precision=precision,
                           rules=rules, fmt=F32)
        for hit in cls.hits:
            if hit.mask.any():
                counts[hit.check] = counts.get(hit.check, 0) + int(hit.mask.sum())
                pos = (-1, 0) if hit.first else (start + int(np.flatnonzero(hit.mask)[0]), hit.order)
                first[hit.check] = min(first.get(hit.check, pos), pos)
        for name in mism:
            m = getattr(cls, name)
            mism[name] += int(m.sum()) if m is not None else 0
        dist = np.where(cls.finite_pair, cls.dist, 0)
        hist += np.bincount(np.minimum(dist[cls.finite_pair], HIST_BINS), minlength=HIST_BINS + 1)
        if dist.max() > worst[0]:
            worst = (int(dist.max()), start + int(dist.argmax()))
        real = np.where(cls.err_known, cls.real, -1.0)
        if real.max() > worst_real[0]:
            worst_real = (float(real.max()), start + int(real.argmax()))
        a, r = error_maxima(cls, ref, obs_f)
        abs_max, rel_max = max(abs_max, a), max(rel_max, r)
        start += len(x)
    return counts, first, mism, hist, worst, worst_real, abs_max, rel_max


@pytest.mark.parametrize("kind, precision", [
    ("exact", Precision()),
    ("declared", Precision(max_ulp=1)),
    ("declared", Precision(max_relative=1e-6, max_absolute=1e-30)),
    ("sanity", Precision()),
])
def test_chunk_totals_equal_the_rulebook_on_every_element(kind, precision):
    rules = RULES
    chunks = [_chunk(seed) for seed in range(3)]
    tally = Tally(F32)
    start = 0
    for x, obs, exp, ref in chunks:
        add_chunk(tally, start, x, obs, exp, ref, kind=kind, precision=precision, rules=rules,
                  describe_input=lambda b: f"0x{b & 0xFFFFFFFF:08X}")
        start += len(x)
    counts, first, mism, hist, worst, worst_real, abs_max, rel_max = _by_definition(
        chunks, kind, precision, rules)
    assert counts and tally.counts == counts
    assert {c: p for c, (p, _) in tally.first.items()} == first
    assert tally.mismatches == mism
    assert np.array_equal(tally.hist, hist)
    assert (tally.worst_ulp, tally.worst_idx) == worst
    assert (tally.worst_real, tally.worst_real_idx) == worst_real
    assert (tally.abs_max, tally.rel_max) == (abs_max, rel_max)


def test_a_chunk_equal_to_the_oracle_has_no_findings():
    x, _obs, exp, ref = _chunk(7)
    tally = Tally(F32)
    add_chunk(tally, 0, x, exp.copy(), exp, ref, kind="declared", precision=Precision(max_ulp=0),
              rules=RULES, describe_input=str)
    assert tally.counts == {} and tally.worst_ulp == 0 and tally.worst_idx == 0
    assert tally.hist[0] == int(np.isfinite(exp.view(np.float32)).sum())
