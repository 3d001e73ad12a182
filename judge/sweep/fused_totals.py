"""What a fused scoring kernel adds up to, per chunk: the hit variants it counts, the totals as
the host reads them (``ChunkStats``), the twin's ``Stats`` layout (fused_common.h), the device's
output arrays and their reduction, and the exact merge of two disjoint sets of elements."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

HIST_BINS = 4096


@dataclass(frozen=True)
class Variant:
    """One hit of ``classify``: its check and order, and whether its message carries the ULP
    distance."""

    check: str
    order: int = 0


# The kernel's hit bits, in classify's order (fused_f32.cu's V_* numbers).
VARIANTS = (
    Variant("nan"), Variant("inf"), Variant("signed_zero"), Variant("subnormal"), Variant("exact"),
    Variant("ulp"), Variant("subnormal"), Variant("bound", 1), Variant("subnormal", 1),
    Variant("bound", 2), Variant("subnormal", 2), Variant("bound", 3), Variant("subnormal", 3),
    Variant("implausible"), Variant("subnormal"),
)
MISMATCHES = ("nan", "inf", "signed_zero", "implausible")
@dataclass
class ChunkStats:
    """What the scoring pass returns for one chunk (local indices)."""

    hist: np.ndarray  # int64[HIST_BINS + 1]
    vcount: list[int]
    vfirst: list[int]  # -1 where none
    mismatches: dict[str, int]
    over: int
    worst: tuple[int, int] | None  # (ULP distance, index) of the worst differing finite pair
    real: tuple[float, int] | None  # (worst ULP-real error, index), None where none is known
    abs_max: float
    rel_max: float
    missing: int  # flagged elements without settled bits: a driver error


class Stats(ctypes.Structure):
    """fused_common.h's Stats."""

    _fields_ = [("vcount", ctypes.c_uint64 * len(VARIANTS)), ("vfirst", ctypes.c_uint64 * len(VARIANTS)),
                ("mism", ctypes.c_uint64 * len(MISMATCHES)), ("over", ctypes.c_uint64),
                ("worst_key", ctypes.c_uint64), ("real_max", ctypes.c_double),
                ("real_idx", ctypes.c_uint64), ("abs_max", ctypes.c_double),
                ("rel_max", ctypes.c_double), ("missing", ctypes.c_uint64),
                ("h0", ctypes.c_uint64), ("h1", ctypes.c_uint64)]


def hist_of(hist32: np.ndarray, st: Stats) -> np.ndarray:
    """A twin's histogram: its bins from 2 up, with bins 0 and 1 from its totals."""
    hist = hist32.astype(np.int64)
    hist[0] += st.h0
    hist[1] += st.h1
    return hist


def stats_of(hist, st: Stats) -> ChunkStats:
    """A twin's Stats as ChunkStats."""
    return _stats(hist, st.vcount, st.vfirst, st.mism, st.over, st.worst_key, st.real_max,
                  st.real_idx, st.abs_max, st.rel_max, st.missing)


def device_totals(cp, blocks: int) -> list:
    """The scoring kernel's output arrays, zeroed: hist, counts, firsts, then per block: worst
    keys, ULP-real maxima and their indices, error maxima."""
    return [cp.zeros(HIST_BINS + 1, cp.uint64), cp.zeros(len(VARIANTS) + len(MISMATCHES) + 2, cp.uint64),
            cp.full(len(VARIANTS), (1 << 64) - 1, cp.uint64), cp.zeros(blocks, cp.uint64), cp.zeros(blocks),
            cp.zeros(blocks, cp.uint64), cp.zeros(blocks), cp.zeros(blocks)]


def reduce_totals(cp, out: list) -> ChunkStats:
    """``device_totals`` after the kernel, as ChunkStats: the blocks' extremes reduced (the
    largest, the lowest index on a tie: blocks are in input order)."""
    hist, counts, firsts, keys, reals, real_idx, abs_max, rel_max = out
    real = float(reals.max())
    ridx = int(cp.where(reals == real, real_idx, cp.uint64((1 << 64) - 1)).min())
    c = cp.asnumpy(counts)
    nv, nm = len(VARIANTS), len(MISMATCHES)
    return _stats(cp.asnumpy(hist), c[:nv], cp.asnumpy(firsts), c[nv:nv + nm], c[nv + nm], int(keys.max()),
                  real, ridx, float(abs_max.max()), float(rel_max.max()), c[nv + nm + 1])


def _unkey(key: int) -> tuple[int, int] | None:
    return None if not key else (key >> 32, 0xFFFFFFFF - (key & 0xFFFFFFFF))


def _stats(hist, vcount, vfirst, mism, over, key, real, real_idx, abs_max, rel_max, missing) -> ChunkStats:
    none = (1 << 64) - 1
    return ChunkStats(
        hist=np.asarray(hist, dtype=np.int64), vcount=[int(v) for v in vcount],
        vfirst=[-1 if int(v) == none else int(v) for v in vfirst],
        mismatches={name: int(v) for name, v in zip(MISMATCHES, mism, strict=True)}, over=int(over),
        worst=_unkey(int(key)), real=None if real < 0 else (float(real), int(real_idx)),
        abs_max=float(abs_max), rel_max=float(rel_max), missing=int(missing))


def merge(a: ChunkStats, b: ChunkStats) -> ChunkStats:
    """The totals of two disjoint sets of a chunk's elements (``score_listing``'s and
    ``score_listed``'s), as one scoring of their union gives them: sums, the lowest first index,
    and maxima with the lowest index on a tie."""
    def first(u: int, v: int) -> int:
        return v if u < 0 else u if v < 0 else min(u, v)

    def top(u, v):
        if u is None or v is None:
            return v if u is None else u
        return max(u, v, key=lambda t: (t[0], -t[1]))

    return ChunkStats(
        hist=a.hist + b.hist, vcount=[u + v for u, v in zip(a.vcount, b.vcount, strict=True)],
        vfirst=[first(u, v) for u, v in zip(a.vfirst, b.vfirst, strict=True)],
        mismatches={k: a.mismatches[k] + b.mismatches[k] for k in a.mismatches}, over=a.over + b.over,
        worst=top(a.worst, b.worst), real=top(a.real, b.real), abs_max=max(a.abs_max, b.abs_max),
        rel_max=max(a.rel_max, b.rel_max), missing=a.missing + b.missing)
