"""The fused F32 sweep (judge.sweep.fused) through its CPU twin: the kernel's own C code, compiled
for this CPU, held to the rulebook's array scorer element by element and chunk by chunk, for
every bound kind; and its certificate held to judge.sweep.f32_reference, with planted bugs in
the tie flagging caught.

The same source runs on CUDA through NVRTC (benchmarks/fused_sweep.py compares both paths over
all 2^32 inputs on a GPU).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from judge.api import Backend
from judge.scoring.rules import bound_kind
from judge.scoring.tally import _subnormal
from judge.scoring.vector import classify
from judge.sweep import f32_reference, fused, fused_build, fused_totals, gpu_f32
from numerics.formats import get_format

torch = pytest.importorskip("torch")
F32 = get_format("F32")


def _why_not():
    return fused.fused_unavailable("cpu")


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


def _variant(contract, kind: str):
    """The reference contract recast to hold ``kind``'s bound."""
    p = contract.precision
    if kind == "exact":
        return dataclasses.replace(contract, determinism="bitwise")
    if kind == "ulp":
        return dataclasses.replace(contract, precision=dataclasses.replace(p, max_ulp=2))
    if kind == "abs_rel":
        return dataclasses.replace(contract, precision=dataclasses.replace(
            p, max_ulp=None, max_absolute=3e-7, max_relative=2.5e-7))
    if kind == "relative":
        return dataclasses.replace(contract, precision=dataclasses.replace(
            p, max_ulp=None, max_absolute=None, max_relative=1.2e-7))
    assert kind == "sanity"
    return dataclasses.replace(contract, precision=dataclasses.replace(
        p, max_ulp=None, max_absolute=None, max_relative=None))


KINDS = ("exact", "ulp", "abs_rel", "relative", "sanity")
FUNCTIONS = ("exp", "log", "sin", "sqrt", "tanh", "erf", "cos", "recip", "rsqrt", "sqr", "floor")


def _opdef(contract):
    import oracles

    return oracles.get(contract.op_kind)


def _engine(contract, **kw):
    return fused.engine_for("cpu", fused.defines(contract, _opdef(contract), **kw))


def _mangled(x_bits: np.ndarray, e_bits: np.ndarray, rng) -> np.ndarray:
    """Observed bits: the expected ones, with the mistakes a kernel makes on some elements."""
    o = e_bits.astype(np.int64).copy()
    n = o.size
    pick = rng.random(n)
    o[pick < 0.10] += rng.integers(-3, 4, size=int((pick < 0.10).sum()))  # a few ulps off
    o[(pick >= 0.10) & (pick < 0.13)] ^= 0x80000000  # sign flipped (±0 among them)
    o[(pick >= 0.13) & (pick < 0.15)] = 0x7FC00000  # NaN
    o[(pick >= 0.15) & (pick < 0.17)] = 0x7F800000  # +inf
    o[(pick >= 0.17) & (pick < 0.19)] = 0  # +0 (a flush where a subnormal is expected)
    o[(pick >= 0.19) & (pick < 0.20)] = 0x80000000  # -0
    o[(pick >= 0.20) & (pick < 0.21)] = rng.integers(0, 1 << 32, size=int(((pick >= 0.20) & (pick < 0.21)).sum()))
    return (o & 0xFFFFFFFF).astype(np.uint32)


def _inputs(rng, n: int) -> np.ndarray:
    """Every class of F32 input: ordinary values, tiny and huge ones, subnormals, ±0, ±inf, NaN."""
    x = rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32)
    x[: n // 8] = rng.integers(0, 0x00800000, size=n // 8)  # subnormals (and +0)
    x[n // 8: n // 4] = 0x3F800000 + rng.integers(-(1 << 24), 1 << 24, size=n // 4 - n // 8)  # near 1
    x[:6] = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x00000001]
    return x


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_each_element_gets_the_hits_classify_gives_it(reference, name, kind):
    contract = _variant(reference(name), kind)
    opdef = _opdef(contract)
    engine = _engine(contract)
    rng = np.random.default_rng(FUNCTIONS.index(name) * 10 + KINDS.index(kind))
    x = _inputs(rng, 20000)
    ref, e, _ = engine.ref_at(x.astype(np.uint64))
    o = _mangled(x, e, rng)
    # expected bits that are themselves specials: subnormal results (a flush), zeros, infinities
    e[:200] = rng.integers(1, 0x00800000, size=200)
    ref[:200] = e[:200].view(np.float32).astype(np.float64) * (1 + 2.0**-30)
    o[:100] = 0
    variants, mism, dist = engine.classify(x, o, e, ref)
    with np.errstate(all="ignore"):
        cls = classify(obs_bits=o, exp_bits=e, obs_f=o.view(np.float32).astype(np.float64),
                       exp_f=e.view(np.float32).astype(np.float64), hi=ref, lo=None,
                       has_exact=np.isfinite(ref), kind=bound_kind(contract, opdef),
                       precision=contract.precision, rules=contract.semantics, fmt=F32,
                       daz=_subnormal(x, F32))
    same = (o == e) | (np.isnan(o.view(np.float32)) & np.isnan(e.view(np.float32)))
    seen = set()
    for hit in cls.hits:
        (v,) = [i for i, var in enumerate(fused_totals.VARIANTS) if (var.check, var.order) == (hit.check, hit.order)
                and ("subnormal" != hit.check or _is_sub_variant(i, hit, bound_kind(contract, opdef)))]
        seen.add(v)
        want = np.asarray(hit.mask) & ~same
        got = (variants >> v) & 1 == 1
        assert np.array_equal(got, want), (hit.check, hit.order, np.flatnonzero(got != want)[:5])
    # no bit the rulebook does not set
    for v in set(range(len(fused_totals.VARIANTS))) - seen:
        assert not ((variants >> v) & 1).any(), fused_totals.VARIANTS[v]
    for k, name_ in enumerate(fused_totals.MISMATCHES):
        mask = getattr(cls, name_)
        want = (np.asarray(mask) & ~same) if mask is not None else np.zeros(x.size, bool)
        assert np.array_equal((mism >> k) & 1 == 1, want), name_
    both = ~np.isnan(o.view(np.float32)) & ~np.isnan(e.view(np.float32))
    assert np.array_equal(dist[both], cls.dist[both])
    assert len(seen) > 2  # the mangling reached several checks


def _is_sub_variant(i: int, hit, kind: str) -> bool:
    """Which of the subnormal variants of the same order is this kind's."""
    if hit.order:
        return True
    return {"exact": 3, "declared": 6}.get(kind, 14) == i


class Mangling(Backend):
    """torch's function, then the mistakes of ``_mangled`` on some elements."""

    name = "mangling"
    device = "cuda"

    def __init__(self, fn):
        self.fn = fn

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        x = call.inputs[0].to_array()
        y = self.fn(torch.from_numpy(x)).numpy().view(np.uint32)
        rng = np.random.default_rng(int(x.view(np.uint32)[0]))
        return [_mangled(x.view(np.uint32), y, rng).view(np.float32)]


CHUNKS = [0x3F80, 0x0000, 0x8000, 0x7F80, 0x42B0, 0xC2C0, 0x0080]  # of 2^16 inputs


def _same_sweep(a, b) -> list[str]:
    ra, rb = a.row.as_dict(), b.row.as_dict()
    out = [f"row {k}: {ra[k]!r} != {rb[k]!r}" for k in ra
           if k not in ("seconds", "started_at", "finished_at") and ra[k] != rb[k]]
    timed = {"adapter_s", "reference_s", "settle_s", "inputs_per_s"}
    out += [f"metric {k}: {a.metrics[k]!r} != {b.metrics.get(k)!r}" for k in a.metrics
            if k not in timed and a.metrics[k] != b.metrics.get(k)]
    if a.message != b.message:
        out.append(f"message {a.message!r} != {b.message!r}")
    return out


def _same_reference(monkeypatch, contract) -> None:
    """The array passes take their F64 reference from the twin's libm (as, on a GPU, both paths
    call the same libdevice function), so the error maxima can be compared bit for bit."""
    engine = _engine(contract)

    def reference_chunk(torch_, opdef, xg):
        ref = torch.from_numpy(engine.ref_at(xg.view(torch.int32).numpy().view(np.uint32).astype(np.uint64))[0])
        r_bits, flagged = f32_reference.near_boundary(torch, ref)
        return r_bits, ref, flagged

    monkeypatch.setattr(f32_reference, "reference_chunk", reference_chunk)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ("exp", "sin", "sqrt", "log"))
def test_a_fused_sweep_tallies_what_the_array_passes_tally(reference, name, kind, monkeypatch):
    contract = _variant(reference(name), kind)
    _same_reference(monkeypatch, contract)
    backend = Mangling(getattr(torch, name))
    runs = [gpu_f32.sweep_f32(contract, backend, chunk_log2=16, chunks=CHUNKS, device="cpu", fused=f,
                              log=lambda m: None) for f in (False, True)]
    assert any("fused" in n for n in runs[1].notes) and not any("fused:" in n for n in runs[0].notes)
    assert _same_sweep(*runs) == []
    assert runs[1].row.verdict == "fail" or kind == "sanity"  # the mangling is caught


def _wide_margin_sweeps(monkeypatch, contract, chunks):
    """The array passes' and the fused sweep of a mangled exp, the fused one certified with a
    margin of 2^27 F64 ulps, wide enough to flag most elements."""
    _same_reference(monkeypatch, contract)
    wide = fused.engine_for("cpu", fused.defines(contract, _opdef(contract), margin=1 << 27))
    real = fused.FusedScorer.__init__

    def with_wide_margin(self, contract, opdef, where, *, engine=None):
        real(self, contract, opdef, where, engine=wide)

    monkeypatch.setattr(fused.FusedScorer, "__init__", with_wide_margin)
    backend = Mangling(torch.exp)
    return tuple(gpu_f32.sweep_f32(contract, backend, chunk_log2=16, chunks=chunks, device="cpu", fused=flag,
                                   log=lambda m: None) for flag in (False, True))


def test_settled_elements_take_the_pure_oracles_bits(reference, monkeypatch):
    """Most elements flagged: they are settled on the host, and the tally is the array passes'
    all the same."""
    a, f = _wide_margin_sweeps(monkeypatch, reference("exp"), [0x3F80, 0x42B0])
    assert f.metrics["settled"] > 10000 and a.metrics["settled"] == 0
    assert [d for d in _same_sweep(a, f) if not d.startswith("metric settled:")] == []


def _boundary_cases() -> list[tuple[float, bool]]:
    """F64 values at known distances (in F64 ulps) from F32 rounding boundaries, with the flag the
    certificate gives them (f32_reference's tests, and more)."""
    cases = []
    for mid, ulp64 in ((1.0 + 2.0**-24, 2.0**-52), (1.5 + 2.0**-24, 2.0**-52), (-(3.0 + 2.0**-23), 2.0**-51),
                       (2.0**-100 * (1 + 2.0**-24), 2.0**-152)):
        margin = abs(mid) * 2.0**-52 * f32_reference.MARGIN_F64_ULPS  # 16 "ulps of ref"
        for k in (0, 1, -1, 15, -15, 16, -16, 17, -17, 24, -24, 25, 40):
            cases.append((mid + k * ulp64, abs(k) * ulp64 <= margin))
    top = float(np.finfo(np.float32).max) + 2.0**103  # the overflow threshold
    cases += [(top, True), (top - 2.0**75, True), (top + 2.0**82, False), (2.0**-150, True),
              (1.0, False), (0.0, False), (float("inf"), False), (float("nan"), False)]
    return cases


def _flag_disagreements(engine) -> list[float]:
    refs = [r for r, _ in _boundary_cases()]
    _, want = f32_reference.near_boundary(torch, torch.tensor(refs, dtype=torch.float64))
    return [r for r, w in zip(refs, want.tolist(), strict=True) if engine.near_boundary(r)[0] != w]


def test_the_kernels_certificate_flags_what_f32_reference_flags(reference):
    engine = _engine(reference("exp"))
    assert _flag_disagreements(engine) == []
    for r, flagged in _boundary_cases():
        assert engine.near_boundary(r)[0] is flagged, r


@pytest.mark.parametrize("plant", [("MARGIN", 15), ("MARGIN", 17), ("PLANT_ONE_SIDED", 1)])
def test_a_planted_off_by_one_in_the_tie_flagging_is_caught(reference, plant):
    contract = reference("exp")
    defs = fused.defines(contract, _opdef(contract))
    defs[plant[0]] = str(plant[1])
    planted = fused.engine_for("cpu", defs)
    assert _flag_disagreements(planted) != []


def test_the_fused_path_says_why_it_does_not_run(reference, monkeypatch):
    monkeypatch.setattr(fused_build, "_compiler", lambda: None)
    contract, backend = reference("exp"), Mangling(torch.exp)
    result = gpu_f32.sweep_f32(contract, backend, chunk_log2=16, chunks=[0x3F80], device="cpu", fused=None,
                               log=lambda m: None)
    assert not any("fused" in n for n in result.notes)  # not the default on the CPU
    with pytest.raises(RuntimeError, match="no C compiler"):
        gpu_f32.sweep_f32(contract, backend, chunk_log2=16, chunks=[0x3F80], device="cpu", fused=True,
                          log=lambda m: None)


@pytest.mark.parametrize("name", ("exp", "sin", "log"))
def test_the_one_pass_lists_exactly_the_elements_its_certificate_flags(reference, name):
    """score_listing leaves out of its totals exactly the elements ref_at flags, and lists them;
    at a margin of 2^27 F64 ulps most elements are listed, and score_listed's totals of them
    hold the rest of the chunk's hits."""
    contract = _variant(reference(name), "ulp")
    rng = np.random.default_rng(7)
    for margin in (f32_reference.MARGIN_F64_ULPS, 1 << 27):
        engine = _engine(contract, margin=margin)
        listed_total = listed_hits = 0
        for start in (0x3F800000, 0x00000000, 0x7F7F0000, 0xBF000000):
            n = 1 << 14
            x = (start + np.arange(n, dtype=np.uint64)).astype(np.uint32)
            _, e, flag = engine.ref_at(x.astype(np.uint64))
            y = _mangled(x, e, rng)
            first, listed = engine.score_listing(start, n, y)
            assert np.array_equal(listed, np.flatnonzero(flag)), (margin, start)
            listed_hits += sum(engine.score_listed(start, y, listed, e[listed]).vcount)
            listed_total += listed.size
        assert margin < 1 << 20 or (listed_total > (1 << 14) and listed_hits > 0)


def test_a_merge_that_drops_the_listed_elements_is_caught(reference, monkeypatch):
    """The wide-margin sweep with a merge that keeps only the first pass's totals no longer
    tallies what the array passes tally."""
    monkeypatch.setattr(fused_totals, "merge", lambda first, listed: first)
    a, f = _wide_margin_sweeps(monkeypatch, reference("exp"), [0x3F80])
    assert [d for d in _same_sweep(a, f) if not d.startswith("metric settled:")] != []


@pytest.mark.parametrize("start,n", [(0, 16), (2**31 - 16, 16), (2**31, 16), (2**32 - 16, 16), (2**31 - 8, 16)])
@pytest.mark.parametrize("cached", [False, True])
def test_the_input_patterns_of_a_chunk_are_its_bits_as_int32(start, n, cached):
    iota = torch.arange(64, dtype=torch.int32) if cached else None  # longer than the chunk, as a sweep's
    got = gpu_f32.bits_range(torch, start, n, "cpu", iota=iota)
    assert got.dtype == torch.int32
    assert got.numpy().view(np.uint32).tolist() == [(start + i) & 0xFFFFFFFF for i in range(n)]


def _rel_cases(rng, n: int = 4000) -> list[tuple[float, float, float]]:
    """(err, habs, m) with err at and around RN(m * habs), the filter's edge, over wide exponents,
    and at the edges of the range (t subnormal, t overflowing)."""
    cases = []
    for _ in range(n):
        m = float(np.ldexp(rng.uniform(1, 2), int(rng.integers(-60, 60))))
        habs = float(np.ldexp(rng.uniform(1, 2), int(rng.integers(-1000, 1000))))
        t = m * habs
        for k in range(-4, 3):
            err = t
            for _ in range(abs(k)):
                err = float(np.nextafter(err, np.inf if k > 0 else -np.inf))
            cases.append((err, habs, m))
    cases += [(1e-310, 1e-300, 1e-20), (5e-324, 1.0, 1e-320), (1e300, 1e-300, 1e300), (0.0, 1.0, 0.0)]
    return [c for c in cases if np.isfinite(c[0])]


def _wrongly_skipped(engine, cases) -> list[tuple[float, float, float]]:
    with np.errstate(all="ignore"):
        return [(e, h, m) for e, h, m in cases
                if not engine.rel_may_raise(e, h, m) and float(np.float64(e) / np.float64(h)) > m]


def test_the_relative_error_is_divided_wherever_it_may_raise_the_maximum(reference):
    """acc_add divides err / |hi| only where the quotient may exceed the running maximum; a
    quotient it skips never rounds above it, at the filter's edge too (rel_may_raise)."""
    rng = np.random.default_rng(7)
    cases = _rel_cases(rng)
    engine = _engine(reference("exp"))
    assert _wrongly_skipped(engine, cases) == []
    below = [(float(np.nextafter(m * h, 0)), h, m) for e, h, m in cases if m * h > 0]  # just below the product
    assert not any(engine.rel_may_raise(*c) for c in below)  # these it does skip
    contract = reference("exp")
    planted = fused.engine_for("cpu", {**fused.defines(contract, _opdef(contract)), "PLANT_REL_FILTER_EQUAL": "1"})
    assert _wrongly_skipped(planted, cases) != []
