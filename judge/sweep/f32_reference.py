"""The certified F64 reference of the exhaustive F32 sweeps.

*Why an F64 result may stand in for the exact value.* CUDA documents the maximum error of its
double-precision functions (CUDA C++ Programming Guide, "Mathematical Functions"): exp, log and
tanh within 1 ulp, sin, cos and erf within 2 ulp, sqrt correctly rounded (the OpKind table's
``f64_reference``). An F32 ulp is 2^29 F64 ulps. Let ``r`` be the F64 result and ``m`` the F32
rounding boundary (midpoint between two adjacent F32 values, or the overflow threshold) nearest
to it. When |r − m| exceeds ``MARGIN_F64_ULPS`` = 16 F64 ulps of r (eight times the largest
documented error), the exact value lies on the same side of every boundary as r, so rounding r
to F32 gives the correctly rounded result. Elements closer than that (a few hundred of 2^32 per
function, one chance in 2^24) are *settled*: their inputs go to the pure oracle on the CPU,
whose answer replaces the F64-derived one. A random sample of every chunk is also checked
against the pure oracle, so a reference that breaks its documented bound shows up as a
certification error, not as a verdict.

Runs on torch tensors of any device (CUDA for real sweeps, the CPU in tests).
"""

from __future__ import annotations

import numpy as np

from numerics.formats import get_format

MARGIN_F64_ULPS = 16
CROSS_CHECK_PER_CHUNK = 64
F32 = get_format("F32")


def overflow_threshold(fmt=F32) -> float:
    """The F32 rounding boundary to ±inf: the largest finite value plus half its ulp."""
    return (2.0 - 2.0 ** (1 - fmt.precision)) * 2.0**fmt.emax + 2.0 ** (fmt.emax - fmt.precision)


def reference_chunk(torch, opdef, xg):
    """(correctly rounded F32 bits as int32 — except where flagged —, F64 reference, flagged mask)."""
    name, _ = opdef.f64_reference
    ref = getattr(torch, name)(xg.double())
    r_bits, flagged = near_boundary(torch, ref)
    return r_bits, ref, flagged


def near_boundary(torch, ref):
    """(F32 rounding of ``ref`` as int32 bits, mask of elements within MARGIN_F64_ULPS F64 ulps
    of an F32 rounding boundary: a midpoint between adjacent F32 values or the overflow
    threshold)."""
    r = ref.float()
    rd = r.double()
    inf = torch.tensor(float("inf"), device=ref.device)
    up = torch.nextafter(r, inf).double()
    dn = torch.nextafter(r, -inf).double()
    mid_up = (rd + up) * 0.5
    mid_dn = (rd + dn) * 0.5
    # at ±max the neighbour is ±inf: the boundary is half an ulp beyond, mirroring the other side
    mid_up = torch.where(torch.isinf(up), rd + (rd - mid_dn), mid_up)
    mid_dn = torch.where(torch.isinf(dn), rd - (mid_up - rd), mid_dn)
    dist = torch.minimum((ref - mid_up).abs(), (ref - mid_dn).abs())
    # beyond the overflow threshold r is ±inf: the only boundary nearby is the threshold itself
    dist = torch.where(torch.isinf(r), ref.abs() - overflow_threshold(), dist)
    # an F64 ulp of ref is at most |ref|·2^-52 (and at least 2^-1074)
    bound = (ref.abs() * 2.0**-52 + 2.0**-1074) * MARGIN_F64_ULPS
    flagged = torch.isfinite(ref) & (dist <= bound)
    return r.view(torch.int32), flagged


def pure_f32(op_kind: str, x_bits: np.ndarray, rules: dict[str, str]) -> np.ndarray:
    """The pure oracle's correctly rounded F32 bits for these inputs."""
    import oracles
    from oracles import fast

    x = np.ascontiguousarray(x_bits, dtype=np.uint32).view(np.float32)
    with fast.disabled():
        out = oracles.evaluate(op_kind, [x], {}, ["F32"], rules)[0]
    return np.ascontiguousarray(out.expected).view(np.int32).reshape(-1)


def settle(torch, op_kind: str, xb, r_bits, flagged, rules: dict[str, str], counts: dict) -> None:
    """Replace the F64-derived answer of flagged elements by the pure oracle's (in place)."""
    idx = torch.nonzero(flagged).flatten()
    if not idx.numel():
        return
    settled = pure_f32(op_kind, xb[idx].cpu().numpy().view(np.uint32), rules)
    before = r_bits[idx].cpu().numpy()
    counts["settled"] += int(idx.numel())
    counts["settled_changed"] += int((settled != before).sum())
    r_bits[idx] = torch.from_numpy(settled).to(r_bits.device)


def cross_check(torch, op_kind: str, start: int, r_bits, rng, rules: dict[str, str], counts: dict) -> None:
    """Compare a random sample of the chunk's reference with the pure oracle; a disagreement
    means the certification margin does not hold, and stops the sweep."""
    sample = rng.integers(0, r_bits.numel(), size=CROSS_CHECK_PER_CHUNK)
    got = r_bits[torch.from_numpy(sample).to(r_bits.device)].cpu().numpy()
    check_sample(op_kind, start, sample, got, rules, counts)


def check_sample(op_kind: str, start: int, sample: np.ndarray, got: np.ndarray, rules: dict[str, str],
                 counts: dict) -> None:
    """The reference's bits ``got`` (int32) at inputs start + sample, against the pure oracle."""
    want = pure_f32(op_kind, (sample + start).astype(np.uint32), rules)
    differ = (want != got) & ~(_is_nan(want) & _is_nan(got))  # payloads aside
    if differ.any():
        j = int(np.flatnonzero(differ)[0])
        raise AssertionError(
            f"F64 reference for {op_kind} disagrees with the pure oracle at input "
            f"0x{int(sample[j] + start):08X}: 0x{int(got[j]) & 0xFFFFFFFF:08X} vs "
            f"0x{int(want[j]) & 0xFFFFFFFF:08X}; the certification margin does not hold")
    counts["cross_checked"] += CROSS_CHECK_PER_CHUNK


def _is_nan(bits: np.ndarray) -> np.ndarray:
    inf = ((1 << F32.exponent_bits) - 1) << F32.mantissa_bits
    return (bits & ((1 << (F32.bits - 1)) - 1)) > inf
