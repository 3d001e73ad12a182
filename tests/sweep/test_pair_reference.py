"""The pair sweeps' certified references by OpKind (judge.sweep.pair_reference): pow's libm
reference held to the pure oracle, its margin certificate at and around the boundaries, and a
library that breaks its documented error stopped by the cross-check."""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from judge.sweep import pair_reference
from judge.sweep.pairs import pair_support
from oracles.fast import pure
from oracles.fast.errors import FastPathMismatch
from oracles.fast.pairs import cross_check, values_of

FORMATS = ("F16", "BF16")


@pytest.fixture(scope="module")
def pow_contract(suite):
    (contract,) = suite.find("pow_elementwise_cpu")
    return contract


def _specials(fmt: str) -> np.ndarray:
    """±0, ±inf, NaN, ±1, ±min and ±max subnormal, ±min normal, ±max finite, ±0.5, ±2, ±3."""
    table = values_of(fmt)
    bits = np.arange(1 << 16, dtype=np.uint32)
    finite = np.isfinite(table)
    tiny = np.abs(table)[finite & (table != 0)].min()
    picks = [0.0, np.inf, 1.0, tiny, 0.5, 2.0, 3.0, np.abs(table[finite]).max()]
    sub = bits[(bits & 0x7FFF) < (0x0400 if fmt == "F16" else 0x0080)]
    normal_min = 2.0 ** (-14 if fmt == "F16" else -126)
    out = [int(bits[(table == v)][0]) for v in picks + [normal_min]]
    out += [int(sub.max()), int(bits[np.isnan(table)][0])]
    sign = 0x8000
    return np.unique(np.array(out + [b | sign for b in out], np.uint16))


@pytest.mark.parametrize("fmt", FORMATS)
def test_pow_is_the_pure_oracle_on_samples_and_every_special_pair(pow_contract, fmt):
    rng = np.random.default_rng(7)
    s = _specials(fmt)
    a = np.concatenate([np.repeat(s, s.size), rng.integers(0, 1 << 16, 3000).astype(np.uint16)])
    b = np.concatenate([np.tile(s, s.size), rng.integers(0, 1 << 16, 3000).astype(np.uint16)])
    rules = pow_contract.semantics.values()
    evaluate = pure(oracles.get("PowElementwise").evaluate)
    counts: dict = {}
    bits, hi, _ = pair_reference.reference("PowElementwise", a, b, fmt, rules, evaluate, counts)
    from oracles.fast.pairs import _pure

    want = np.asarray(_pure("PowElementwise", a, b, fmt, rules, evaluate).expected).view(np.uint16).reshape(-1)
    table = values_of(fmt)
    same = (bits == want) | (np.isnan(table[bits]) & np.isnan(table[want]))
    assert same.all(), [(hex(int(x)), hex(int(y))) for x, y in zip(a[~same][:5], b[~same][:5], strict=True)]
    # pow(NaN, 0) = 1 and pow(1, NaN) = 1 (C99 Annex F), not NaN
    nan, one, zero = (int(np.flatnonzero(np.isnan(table))[0]), int(np.flatnonzero(table == 1.0)[0]),
                      int(np.flatnonzero(table == 0.0)[0]))
    got, _, _ = pair_reference.reference("PowElementwise", np.array([nan, one], np.uint16),
                                         np.array([zero, nan], np.uint16), fmt, rules, evaluate)
    assert table[got].tolist() == [1.0, 1.0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_margin_flags_what_lies_within_it_and_nothing_farther(fmt):
    table = values_of(fmt)
    finite = table[np.isfinite(table) & (table > 0)]
    rng = np.random.default_rng(1)
    lo = np.sort(rng.choice(finite[:-1], 200, replace=False))
    nxt = np.array([finite[np.searchsorted(finite, v) + 1] for v in lo])
    mid = (lo + nxt) / 2  # the rounding boundaries between neighbours
    threshold = 65520.0 if fmt == "F16" else float(np.ldexp(2.0 - 2.0**-8, 127))
    ulp = np.spacing(mid)
    for boundary, step in ((mid, ulp), (np.array([threshold]), np.spacing(np.array([threshold])))):
        for sign in (1.0, -1.0):
            on = sign * boundary
            assert pair_reference.near_boundary(on, fmt)[1].all()
            assert pair_reference.near_boundary(on + 16 * step, fmt)[1].all()
            assert pair_reference.near_boundary(on - 16 * step, fmt)[1].all()
            assert not pair_reference.near_boundary(on + 33 * step, fmt)[1].any()
            assert not pair_reference.near_boundary(on - 33 * step, fmt)[1].any()
    # (16 binary64 ulps of |r|: between 16 and 32 spacings of the binary64 grid)
    # a certificate without its margin (a planted bug) misses a result one binary64 ulp off
    assert not pair_reference.near_boundary(mid + ulp, fmt, margin=0)[1].any()
    # representable values, and everything beyond the threshold, are far from any boundary
    assert not pair_reference.near_boundary(finite, fmt)[1].any()
    assert not pair_reference.near_boundary(np.array([np.inf, -np.inf, np.nan, 1e300]), fmt)[1].any()


def test_a_libm_that_breaks_its_bound_stops_the_sweep_instead_of_judging(pow_contract, monkeypatch):
    rules = pow_contract.semantics.values()
    evaluate = pure(oracles.get("PowElementwise").evaluate)
    p = np.arange(0x3C000000, 0x3C000000 + (1 << 16), dtype=np.int64)
    a, b = (p >> 16).astype(np.uint16), (p & 0xFFFF).astype(np.uint16)
    monkeypatch.setitem(pair_reference.LIBM, "pow", lambda x, y: np.power(x, y) * (1 + 2.0**-9))
    bits, _, _ = pair_reference.reference("PowElementwise", a, b, "F16", rules, evaluate)
    with pytest.raises(FastPathMismatch, match="PowElementwise"):
        cross_check("PowElementwise", a, b, bits, "F16", rules, evaluate, np.random.default_rng(0))


def test_pow_can_be_pair_swept_but_not_f32_swept(pow_contract):
    from judge.sweep.gpu_f32 import sweep_support

    class Cpu:
        name, device = "numpy", "cpu"

        def supports(self, contract, dtypes):
            return True

    assert pair_support(pow_contract, Cpu(), "F16") is True
    assert "PowElementwise" in pair_reference.covered_kinds()

    class Gpu(Cpu):
        name, device = "torch-cuda", "cuda"

    assert "no certified F64 reference" in sweep_support(pow_contract, Gpu(), cross=True)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_nan_pattern_decodes_to_a_quiet_nan_of_its_sign(fmt):
    # the host's conversion may keep a signaling NaN signaling (numpy's F16 loop on AVX2), and
    # libm's pow(1, sNaN) is NaN where the pure oracle's pow(1, NaN) is 1
    table = values_of(fmt)
    patterns = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
    nan = np.isnan(table)
    assert nan.sum() == (2046 if fmt == "F16" else 254)
    quiet = (table[nan].view(np.uint64) >> np.uint64(51)) & np.uint64(1)
    assert quiet.all()
    assert (np.signbit(table[nan]) == (patterns[nan] >> 15).astype(bool)).all()
