"""The fused 16-bit pair sweep (judge.sweep.fused_pairs) through its CPU twin: its reference and
ties held to oracles.fast.pairs, its rules to classify element by element, its sweeps to the
array passes' chunk by chunk, for every bound kind; a planted off-by-one in the tie test caught.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from judge.api import Backend
from judge.scoring.rules import bound_kind
from judge.scoring.vector import classify
from judge.sweep import fused, fused_pairs, fused_totals, pair_reference, pairs
from numerics.formats import get_format
from numerics.rounding import float_spec
from oracles.fast import pairs as fast_pairs

pytestmark = pytest.mark.skipif(fused.fused_unavailable("cpu") is not None,
                                reason=str(fused.fused_unavailable("cpu")))

KERNELS = ("add_elementwise_cpu", "sub_elementwise_cpu", "mul_elementwise_cpu", "div_elementwise_cpu",
           "pow_elementwise_cpu", "maximum_elementwise_cpu", "minimum_elementwise_cpu", "rem_elementwise_cpu")
KINDS = ("exact", "ulp", "abs_rel", "sanity")


@pytest.fixture(scope="module")
def kernel(suite):
    def pick(name: str):
        (contract,) = suite.find(name)
        return contract

    return pick


def _variant(contract, kind: str):
    p = contract.precision
    if kind == "exact":
        return dataclasses.replace(contract, determinism="bitwise")
    if kind == "ulp":
        return dataclasses.replace(contract, precision=dataclasses.replace(p, max_ulp=1))
    if kind == "abs_rel":
        return dataclasses.replace(contract, precision=dataclasses.replace(
            p, max_ulp=None, max_absolute=1e-3, max_relative=4e-3))
    return dataclasses.replace(contract, precision=dataclasses.replace(
        p, max_ulp=None, max_absolute=None, max_relative=None))


def _opdef(contract):
    import oracles

    return oracles.get(contract.op_kind)


def _binary64(contract):
    """The binary64 function behind the OpKind's pair reference."""
    if not fast_pairs.covered(contract.op_kind):
        return np.power
    operation, rules = fast_pairs.KERNELS[contract.op_kind].operation, contract.semantics.values()
    return lambda a, b: operation(a, b, rules)


def _mangled(e: np.ndarray, rng) -> np.ndarray:
    """Observed 16-bit patterns: the expected ones with a kernel's mistakes on some elements."""
    o = e.astype(np.int64).copy()
    pick = rng.random(o.size)
    o[pick < 0.10] += rng.integers(-3, 4, size=int((pick < 0.10).sum()))
    o[(pick >= 0.10) & (pick < 0.13)] ^= 0x8000
    o[(pick >= 0.13) & (pick < 0.15)] = 0x7E00
    o[(pick >= 0.15) & (pick < 0.17)] = 0x7C00
    o[(pick >= 0.17) & (pick < 0.20)] = 0
    return (o & 0xFFFF).astype(np.uint32)


@pytest.mark.parametrize("dtype", ["F16", "BF16"])
@pytest.mark.parametrize("name", KERNELS)
def test_the_reference_is_oracles_fast_pairs(kernel, name, dtype):
    contract = kernel(name)
    engine = fused_pairs.engine_for("cpu", contract, _opdef(contract), dtype)
    rng = np.random.default_rng(KERNELS.index(name))
    p = np.concatenate([rng.integers(0, 1 << 32, 200000, dtype=np.uint64),
                        np.arange(0x3C000000, 0x3C010000, dtype=np.uint64)])
    bits, hi, lo, open_ = engine.ref_at(p)
    a, b = (p >> 16).astype(np.uint16), (p & 0xFFFF).astype(np.uint16)
    table = fast_pairs.values_of(dtype)
    with np.errstate(all="ignore"):
        want_hi = _binary64(contract)(table[a], table[b])
    nan = np.isnan(want_hi)
    if fast_pairs.covered(contract.op_kind):
        want_bits, tie = fast_pairs.round_or_flag(want_hi, float_spec(dtype))
        assert not (open_ & ~tie).any()  # an open tie is a tie
        assert np.array_equal(hi[~nan], want_hi[~nan])
    else:
        # a libm function: the C library's pow here, numpy's (SIMD where the CPU has it) there,
        # each within its documented error; both certified, they agree wherever neither flags
        want_bits, flagged = pair_reference.near_boundary(want_hi, dtype)
        nan |= open_ | flagged
        assert open_.sum() < 100 and flagged.sum() < 100
        finite = ~nan & np.isfinite(want_hi)
        assert np.allclose(hi[finite], want_hi[finite], rtol=2.0**-48, atol=0)
    assert np.array_equal(bits[~nan], want_bits[~nan].astype(np.uint32))


@pytest.mark.parametrize("plant", [True, False])
def test_a_planted_off_by_one_in_the_tie_test_is_caught(kernel, plant):
    contract = kernel("div_elementwise_cpu")
    defs = fused_pairs.pair_defines(contract, _opdef(contract), "F16")
    engine = fused_pairs.PairTwin(defs, 32, extra=("-DPLANT_TIE_OFF_BY_ONE",) if plant else ())
    ties = [1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 2.0**-24 * 1.5, 65504.0 + 16.0]  # midpoints of F16
    got = [engine.round16(y) for y in ties]
    want_bits, want_tie = fast_pairs.round_or_flag(np.asarray(ties), float_spec("F16"))
    agree = [g == (int(b), bool(t)) for g, b, t in zip(got, want_bits, want_tie, strict=True)]
    assert all(agree) is not plant


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["F16", "BF16"])
@pytest.mark.parametrize("name", ("add_elementwise_cpu", "div_elementwise_cpu", "pow_elementwise_cpu"))
def test_each_pair_gets_the_hits_classify_gives_it(kernel, name, dtype, kind):
    contract = _variant(kernel(name), kind)
    opdef = _opdef(contract)
    engine = fused_pairs.engine_for("cpu", contract, opdef, dtype)
    fmt = get_format(dtype)
    rng = np.random.default_rng(KINDS.index(kind))
    p = rng.integers(0, 1 << 32, 30000, dtype=np.uint64)
    e, hi, lo, _ = engine.ref_at(p)
    o = _mangled(e, rng)
    p32 = p.astype(np.uint32)
    variants, mism, dist = engine.classify(p32, o, e, hi, lo)
    a, b = (p32 >> 16), (p32 & 0xFFFF)
    daz = pairs._subnormal(a, fmt) | pairs._subnormal(b, fmt)
    ob, eb = o.astype(fmt.bits_dtype), e.astype(fmt.bits_dtype)
    with np.errstate(all="ignore"):
        obs_f, exp_f = (x.view(fmt.numpy_dtype).astype(np.float64) for x in (ob, eb))
        cls = classify(obs_bits=ob, exp_bits=eb, obs_f=obs_f, exp_f=exp_f, hi=hi, lo=lo,
                       has_exact=np.isfinite(hi), kind=bound_kind(contract, opdef),
                       precision=contract.precision, rules=contract.semantics, fmt=fmt, daz=daz)
    same = (ob == eb) | (np.isnan(obs_f) & np.isnan(exp_f))
    sub_zero = {"exact": 3, "sanity": 14}.get(kind, 6)
    for hit in cls.hits:
        (v,) = [i for i, var in enumerate(fused_totals.VARIANTS) if (var.check, var.order) == (hit.check, hit.order)
                and (hit.check != "subnormal" or hit.order or i == sub_zero)]
        assert np.array_equal((variants >> v) & 1 == 1, np.asarray(hit.mask) & ~same), (hit.check, hit.order)
    both = ~np.isnan(obs_f) & ~np.isnan(exp_f)
    assert np.array_equal(dist[both], cls.dist[both])


class Mangling(Backend):
    """numpy's operation, then ``_mangled``'s mistakes."""

    name = "mangling-pairs"
    device = "cpu"

    def __init__(self, op):
        self.op = op

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        x, y = (t.to_array() for t in call.inputs)
        with np.errstate(all="ignore"):
            z = self.op(x.astype(np.float64), y.astype(np.float64)).astype(x.dtype)
        bits = z.view(np.uint16).reshape(-1).astype(np.uint32)
        rng = np.random.default_rng(int(x.view(np.uint16).reshape(-1)[0]))
        return [_mangled(bits, rng).astype(np.uint16).view(x.dtype).reshape(z.shape)]


def _same(a, b) -> list[str]:
    ra, rb = a.row.as_dict(), b.row.as_dict()
    out = [f"row {k}: {ra[k]!r} != {rb[k]!r}" for k in ra
           if k not in ("seconds", "started_at", "finished_at") and ra[k] != rb[k]]
    timed = {"adapter_s", "reference_s", "scoring_s", "pairs_per_s", "full_estimate_s", "cross_checked"}
    out += [f"metric {k}" for k in a.metrics if k not in timed and a.metrics[k] != b.metrics.get(k)]
    if a.message != b.message:
        out.append(f"message {a.message!r} != {b.message!r}")
    if not (np.array_equal(a.off, b.off) and np.array_equal(a.worst, b.worst)):
        out.append("exponent grid")
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["F16", "BF16"])
@pytest.mark.parametrize("name", KERNELS)
def test_a_fused_pair_sweep_tallies_what_the_array_passes_tally(kernel, name, dtype, kind):
    contract = _variant(kernel(name), kind)
    op = _binary64(contract)
    chunks = [0x3C, 0x00, 0x7C, 0x84] if dtype == "F16" else [0x3F, 0x00, 0x7F, 0x80]
    runs = [pairs.sweep_pairs(contract, Mangling(op), dtype, chunk_log2=20, chunks=chunks, fused=f)
            for f in (False, True)]
    assert any(n.startswith("fused") for n in runs[1].notes)
    assert _same(*runs) == []
    assert runs[1].row.verdict == "fail" or kind == "sanity"
