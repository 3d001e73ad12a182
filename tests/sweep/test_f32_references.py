"""Every certified F64 reference of the F32 sweeps (an OpKind entry's ``f64_reference``) against
the pure oracle: torch's F64 function (the array passes) and the fused kernel's C function (its
CPU twin) round, with the flagged elements settled, to the pure oracle's bits on every special
input (±0, ±inf, NaNs, subnormals, the largest values, values near 1 and the OpKind's hints) and
on a random sample. A reference off its claimed bound is shown to be caught."""

from __future__ import annotations

import numpy as np
import pytest

import oracles
from judge.sweep import f32_reference, fused

torch = pytest.importorskip("torch")

CERTIFIED = sorted(k for k in oracles.op_kinds() if oracles.get(k).f64_reference and oracles.get(k).arity == 1)


def _inputs(op_kind: str) -> np.ndarray:
    rng = np.random.default_rng(len(op_kind))
    special = [0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 1, 0x80000001,
               0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x3F800000, 0xBF800000,
               0x3F000000, 0xBF000000, 0x3FC00000, 0xBFC00000, 0x4B000000, 0x4AFFFFFF, 0x3EFFFFFF]
    hints = np.asarray(oracles.get(op_kind).hints("F32"), dtype=np.float32).view(np.uint32)
    return np.unique(np.concatenate([np.asarray(special, np.uint32), hints, np.abs(hints.view(np.float32)).view(np.uint32),
                                     rng.integers(0, 1 << 32, 3000, dtype=np.uint64).astype(np.uint32),
                                     (0x3F800000 + rng.integers(-(1 << 22), 1 << 22, 500)).astype(np.uint32)]))


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    fa, fb = a.view(np.float32), b.view(np.float32)
    return (a == b) | (np.isnan(fa) & np.isnan(fb))


def _settled(op_kind, x, bits, flagged, rules):
    if flagged.any():
        bits = bits.copy()
        bits[flagged] = f32_reference.pure_f32(op_kind, x[flagged], rules).view(np.uint32)
    return bits


@pytest.mark.parametrize("op_kind", CERTIFIED)
def test_the_array_reference_is_the_pure_oracle(op_kind):
    x = _inputs(op_kind)
    rules = dict(oracles.get(op_kind).defaults)
    xg = torch.from_numpy(x.view(np.float32))
    r_bits, _, flagged = f32_reference.reference_chunk(torch, oracles.get(op_kind), xg)
    got = _settled(op_kind, x, r_bits.numpy().view(np.uint32), flagged.numpy(), rules)
    want = f32_reference.pure_f32(op_kind, x, rules).view(np.uint32)
    same = _same(got, want)
    assert same.all(), [(hex(int(i)), hex(int(g)), hex(int(w))) for i, g, w in zip(x[~same][:4], got[~same][:4], want[~same][:4], strict=True)]


@pytest.mark.skipif(fused.fused_unavailable("cpu") is not None, reason=str(fused.fused_unavailable("cpu")))
@pytest.mark.parametrize("op_kind", CERTIFIED)
def test_the_fused_kernels_reference_is_the_pure_oracle(op_kind, suite):
    (contract,) = [c for c in suite.contracts if c.op_kind == op_kind and c.backend == "Cpu"][:1]
    engine = fused.engine_for("cpu", fused.defines(contract, oracles.get(op_kind)))
    x = _inputs(op_kind)
    _, bits, flags = engine.ref_at(x.astype(np.uint64))
    rules = contract.semantics.values()
    got = _settled(op_kind, x, np.asarray(bits, np.uint32), np.asarray(flags, bool), rules)
    want = f32_reference.pure_f32(op_kind, x, rules).view(np.uint32)
    same = _same(got, want)
    assert same.all(), [(hex(int(i)), hex(int(g)), hex(int(w))) for i, g, w in zip(x[~same][:4], got[~same][:4], want[~same][:4], strict=True)]


def test_a_reference_off_its_bound_differs_from_the_pure_oracle(monkeypatch):
    """The comparison above can fail: a reciprocal 2^-20 off (far past its 16-ulp margin)."""
    x = _inputs("RecipElementwise")
    rules = dict(oracles.get("RecipElementwise").defaults)
    monkeypatch.setattr(torch, "reciprocal", lambda t: (1.0 / t) * (1 + 2.0**-20))
    r_bits, _, flagged = f32_reference.reference_chunk(torch, oracles.get("RecipElementwise"), torch.from_numpy(x.view(np.float32)))
    got = _settled("RecipElementwise", x, r_bits.numpy().view(np.uint32), flagged.numpy(), rules)
    assert not _same(got, f32_reference.pure_f32("RecipElementwise", x, rules).view(np.uint32)).all()
