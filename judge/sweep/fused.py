"""The fused F32 sweep: reference, certificate and rulebook in one pass per chunk.

``judge.sweep.gpu_f32`` scores a chunk of 2^28 inputs with whole-array passes: the F64 reference,
its distance to the F32 rounding boundaries, then the rulebook's classification over F64 arrays,
a few dozen passes over gigabytes. Here one kernel (``fused_f32.cu``) does all of it per element,
in registers: it evaluates the F64 reference, rounds it, and scores the observed output against
it, adding the ULP histogram, the failing elements of each check (count and first element), the
mismatch counts and the error maxima up per block. The chunk's outputs are a few kilobytes.

*The certificate* is the one ``judge.sweep.f32_reference`` writes down, unchanged: an element
whose F64 reference lies more than ``MARGIN_F64_ULPS`` F64 ulps from every F32 rounding boundary
rounds to the correctly rounded result, since the F64 function's documented error is at most 2
F64 ulps. The one pass (``score_listing``) scores every other element and lists these
(*flagged*: a few per 2^28); the host settles them with the pure oracle, and a small second
launch (``score_listed``) scores them against their settled bits into totals that merge exactly,
so every element is scored by one code path against the correctly rounded result. A sample of
every chunk is cross-checked against the pure oracle, as before.

*Registers.* A thread keeps in registers only what every element updates (histogram bins 0 and 1,
the worst key, the error maxima); the counts and first elements of the failing checks, which
only failing elements touch, are the block's, in shared memory, by shared atomics
(``fused_common.h``'s ``Block``). That halves the registers a thread needs (ptxas for sm_90: 46,
from 90), so more warps hide the F64 latency.

*One rulebook.* The kernel applies ``judge.scoring.vector.classify``'s rules in its order; each
failing element sets bits for the hits it is in (a check, its order, whether a flush broke it:
``VARIANTS``). The counts add up per hit as ``judge.scoring.tally.add_chunk`` adds them, and the
first element of each check is spelled out by ``classify`` itself on that one element, so the
tally, the verdict and the messages are the array scorer's, bit for bit. The C source is also
compiled for the CPU (the *twin*): tests hold it to ``add_chunk`` element by element.

On the GPU the kernel is compiled by NVRTC through cupy (``-fmad=false``: every operation rounds
once, as the separate torch passes do); the twin by the host C compiler with
``-ffp-contract=off``.
"""

from __future__ import annotations

import ctypes
import struct
from functools import cached_property

import numpy as np

from judge.scoring.rules import bound_kind, sanity_factor
from judge.sweep.f32_reference import MARGIN_F64_ULPS, overflow_threshold
from judge.sweep.fused_build import compile_twin, fused_unavailable, nvrtc_module, source  # noqa: F401
from judge.sweep.fused_totals import (
    HIST_BINS,
    VARIANTS,
    ChunkStats,
    Stats,
    Variant,
    device_totals,
    hist_of,
    reduce_totals,
    stats_of,
)
from numerics.formats import get_format

F32 = get_format("F32")
SETTLE_CAP = 1 << 20  # flagged elements one chunk may hold (a few are expected)
# The F64 functions the kernel can call: the OpKind table's ``f64_reference`` names (torch's), and
# the C function fused_f32.cu computes each with (CUDA's on the GPU, the C library's in the twin).
REF_FUNCTIONS = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tanh": "tanh", "erf": "erf",
                 "sqrt": "sqrt", "neg": "ref_neg", "abs": "fabs", "square": "ref_square",
                 "reciprocal": "ref_reciprocal", "rsqrt": "ref_rsqrt", "floor": "floor", "ceil": "ceil"}

KINDS = {"exact": 0, "declared": 1}  # any other bound kind is held to the sanity bound


def _f64_bits(x: float) -> str:
    return f"0x{struct.unpack('<Q', struct.pack('<d', float(x)))[0]:016X}ULL"


def defines(contract, opdef, *, margin: int = MARGIN_F64_ULPS) -> dict[str, str]:
    """The F32 kernel's configuration for ``contract`` (see fused_f32.cu)."""
    name, _ = opdef.f64_reference
    if name not in REF_FUNCTIONS:
        raise ValueError(f"no fused reference for the F64 function {name!r}")
    out = bound_defines(contract, opdef, F32)
    out.update(REF_FN=REF_FUNCTIONS[name], MARGIN=str(int(margin)), THRESH_BITS=_f64_bits(overflow_threshold()))
    return out


def bound_defines(contract, opdef, fmt) -> dict[str, str]:
    """The bound the kernel holds outputs of format ``fmt`` to (fused_common.h's macros)."""
    p = contract.precision
    kind = bound_kind(contract, opdef)
    out = {
        "KIND": str(KINDS.get(kind, 2)),
        "SANITY_BITS": _f64_bits(sanity_factor(fmt)),
        "HAS_MAX_ULP": "0", "MAX_ULP": "0", "HAS_MAX_ABS": "0", "MAX_ABS_BITS": "0ULL",
        "HAS_MAX_REL": "0", "MAX_REL_BITS": "0ULL",
    }
    if kind == "declared":
        if p.max_ulp is not None:
            out.update(HAS_MAX_ULP="1", MAX_ULP=f"{int(p.max_ulp)}LL")
        if p.max_absolute is not None:
            out.update(HAS_MAX_ABS="1", MAX_ABS_BITS=_f64_bits(p.max_absolute))
        if p.max_relative is not None:
            out.update(HAS_MAX_REL="1", MAX_REL_BITS=_f64_bits(p.max_relative))
    return out


class TwinEngine:
    """The kernel's C code compiled for this CPU: the same element code, walked sequentially."""

    where = "cpu"

    def __init__(self, defs: dict[str, str], *, extra: tuple[str, ...] = ()):
        self.lib = compile_twin("fused_f32.cu", defs, extra)
        u64, p = ctypes.c_uint64, ctypes.c_void_p
        self.lib.twin_ref_at.argtypes = [p, u64, p, p, p]
        self.lib.twin_near_boundary.argtypes = [ctypes.c_double, p]
        self.lib.twin_rel_may_raise.argtypes = [ctypes.c_double] * 3
        self.lib.twin_classify.argtypes = [u64, p, p, p, p, p, p, p]
        self.lib.twin_score_listing.restype = u64
        self.lib.twin_score_listing.argtypes = [u64, u64, p, p, u64, p, p]
        self.lib.twin_score_listed.argtypes = [u64, p, p, p, ctypes.c_uint32, p, p]

    def ref_at(self, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        x = np.ascontiguousarray(x, dtype=np.uint64)
        ref, bits, flag = np.zeros(x.size), np.zeros(x.size, np.uint32), np.zeros(x.size, np.uint32)
        self.lib.twin_ref_at(x.ctypes.data, x.size, ref.ctypes.data, bits.ctypes.data, flag.ctypes.data)
        return ref, bits, flag.astype(bool)

    def near_boundary(self, ref: float) -> tuple[bool, int]:
        bits = ctypes.c_uint32()
        return bool(self.lib.twin_near_boundary(ref, ctypes.byref(bits))), bits.value

    def rel_may_raise(self, err: float, habs: float, m: float) -> bool:
        """Whether the accumulator divides err / habs to see if it raises the maximum m."""
        return bool(self.lib.twin_rel_may_raise(err, habs, m))

    def score_listing(self, start: int, n: int, y) -> tuple[ChunkStats, np.ndarray]:
        """Every element scored but the flagged ones, and those (local indices, ascending)."""
        y = np.ascontiguousarray(np.asarray(y).reshape(-1).view(np.uint32))
        out = np.zeros(SETTLE_CAP, np.uint32)
        hist = np.zeros(HIST_BINS + 1, np.uint32)
        st = Stats()
        k = int(self.lib.twin_score_listing(start, n, y.ctypes.data, out.ctypes.data, SETTLE_CAP,
                                            hist.ctypes.data, ctypes.byref(st)))
        check_cap(k)
        return stats_of(hist_of(hist, st), st), out[:k].copy()

    def score_listed(self, start: int, y, idx: np.ndarray, bits: np.ndarray) -> ChunkStats:
        """The listed elements ``idx`` (ascending) scored against their settled ``bits``."""
        y = np.ascontiguousarray(np.asarray(y).reshape(-1).view(np.uint32))
        idx = np.ascontiguousarray(idx, dtype=np.uint32)
        bits = np.ascontiguousarray(bits, dtype=np.uint32)
        hist = np.zeros(HIST_BINS + 1, np.uint32)
        st = Stats()
        self.lib.twin_score_listed(start, y.ctypes.data, idx.ctypes.data, bits.ctypes.data, idx.size,
                                   hist.ctypes.data, ctypes.byref(st))
        return stats_of(hist_of(hist, st), st)

    def classify(self, x, o, e, ref) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per element: the hit bits, the mismatch bits and the ULP distance."""
        arrays = [np.ascontiguousarray(a, dtype=np.uint32) for a in (x, o, e)]
        ref = np.ascontiguousarray(ref, dtype=np.float64)
        n = ref.size
        variants, mism, dist = np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.int64)
        self.lib.twin_classify(n, *(a.ctypes.data for a in arrays), ref.ctypes.data,
                               variants.ctypes.data, mism.ctypes.data, dist.ctypes.data)
        return variants, mism, dist


class CudaEngine:
    """The kernel compiled by NVRTC (through cupy) for the current CUDA device."""

    where = "cuda"
    THREADS = 256
    PER_BLOCK = 1 << 13  # elements one block scores

    def __init__(self, defs: dict[str, str]):
        import cupy

        self.cp = cupy
        self.module = nvrtc_module("fused_f32.cu", defs)
        self._ref_at = self.module.get_function("ref_at")
        self._listing = self.module.get_function("score_listing")
        self._listed = self.module.get_function("score_listed")
        self.buf = cupy.zeros(SETTLE_CAP, cupy.uint32)
        self.count = cupy.zeros(1, cupy.uint32)

    def ref_at(self, x) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cp = self.cp
        xs = cp.asarray(np.ascontiguousarray(x, dtype=np.uint64))
        n = int(xs.size)
        ref, bits, flag = cp.zeros(n), cp.zeros(n, cp.uint32), cp.zeros(n, cp.uint32)
        if n:
            self._ref_at(((n + 255) // 256,), (256,), (xs, np.uint64(n), ref, bits, flag))
        return cp.asnumpy(ref), cp.asnumpy(bits), cp.asnumpy(flag).astype(bool)

    def score_listing(self, start: int, n: int, y) -> tuple[ChunkStats, np.ndarray]:
        """Every element scored but the flagged ones, and those (local indices, ascending)."""
        cp = self.cp
        y = cp.asarray(y).reshape(-1).view(cp.uint32)
        blocks = (n + self.PER_BLOCK - 1) // self.PER_BLOCK
        out = device_totals(cp, blocks)
        self.count.fill(0)
        self._listing((blocks,), (self.THREADS,),
                      (np.uint64(start), np.uint64(n), np.uint64(self.PER_BLOCK), y, self.buf, self.count,
                       np.uint32(SETTLE_CAP), *out))
        stats = reduce_totals(cp, out)
        k = int(self.count.get()[0])
        check_cap(k)
        return stats, np.sort(cp.asnumpy(self.buf[:k]))

    def score_listed(self, start: int, y, idx: np.ndarray, bits: np.ndarray) -> ChunkStats:
        """The listed elements ``idx`` (ascending) scored against their settled ``bits``."""
        cp = self.cp
        y = cp.asarray(y).reshape(-1).view(cp.uint32)
        k = int(idx.size)
        blocks = max(1, (k + self.PER_BLOCK - 1) // self.PER_BLOCK)
        out = device_totals(cp, blocks)
        si = cp.asarray(np.ascontiguousarray(idx, dtype=np.uint32))
        sb = cp.asarray(np.ascontiguousarray(bits, dtype=np.uint32))
        self._listed((blocks,), (self.THREADS,),
                     (np.uint64(start), np.uint64(self.PER_BLOCK), y, si, sb, np.uint32(k), *out))
        return reduce_totals(cp, out)


def twin_flags(lib, start: int, n: int) -> np.ndarray:
    """Pass 1 in a CPU twin (fused_passes.h's ``twin_flag_chunk``): the flagged local indices."""
    lib.twin_flag_chunk.restype = ctypes.c_uint64
    lib.twin_flag_chunk.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint64]
    out = np.zeros(SETTLE_CAP, np.uint32)
    k = int(lib.twin_flag_chunk(start, n, out.ctypes.data, SETTLE_CAP))
    check_cap(k)
    return np.sort(out[:k])


def cuda_flags(engine, start: int, n: int) -> np.ndarray:
    """Pass 1 on the GPU (fused_passes.h's ``flag_chunk``, as ``engine._flag``, into
    ``engine.buf`` and ``engine.count``): the flagged local indices."""
    engine.count.fill(0)
    blocks = min((n + engine.THREADS - 1) // engine.THREADS, 1 << 16)
    engine._flag((blocks,), (engine.THREADS,), (np.uint64(start), np.uint64(n), engine.buf, engine.count,
                                                 np.uint32(SETTLE_CAP)))
    k = int(engine.count.get()[0])
    check_cap(k)
    return np.sort(engine.cp.asnumpy(engine.buf[:k]))


def check_cap(k: int) -> None:
    if k > SETTLE_CAP:
        raise AssertionError(f"{k:,} elements of one chunk are near a rounding boundary (at most "
                             f"{SETTLE_CAP:,} are settled); the reference cannot be certified")


def engine_for(where: str, defs: dict[str, str]):
    """The fused engine on ``where`` ("cuda": NVRTC through cupy; "cpu": the twin)."""
    return CudaEngine(defs) if where == "cuda" else TwinEngine(defs)


class FusedScorer:
    """The fused path of one sweep: an engine, plus the host's part (settling, messages)."""

    def __init__(self, contract, opdef, where: str, *, engine=None):
        self.contract, self.opdef = contract, opdef
        self.engine = engine or engine_for(where, defines(contract, opdef))

    @cached_property
    def kind(self) -> str:
        return bound_kind(self.contract, self.opdef)

    def first_detail(self, variant: Variant, element, describe_input, fmt=F32) -> str:
        """``_count_hits``'s words for the first element of a hit: classify on that element.
        ``element``: (input bits as described, observed bits, expected bits, hi, lo or None,
        whether an input is a nonzero subnormal)."""
        from judge.scoring.describe import describe_bits
        from judge.scoring.vector import classify

        x, o, e, hi, lo, daz = element
        os_, es = (np.asarray([v & ((1 << fmt.bits) - 1)], fmt.bits_dtype) for v in (o, e))
        r = np.asarray([hi], np.float64)
        with np.errstate(all="ignore"):
            cls = classify(obs_bits=os_, exp_bits=es, obs_f=os_.view(fmt.numpy_dtype).astype(np.float64),
                           exp_f=es.view(fmt.numpy_dtype).astype(np.float64), hi=r,
                           lo=None if lo is None else np.asarray([lo], np.float64),
                           has_exact=np.isfinite(r), kind=self.kind, precision=self.contract.precision,
                           rules=self.contract.semantics, fmt=fmt, daz=np.asarray([daz]))
        for hit in cls.hits:
            if hit.check == variant.check and hit.order == variant.order and bool(hit.mask[0]):
                why = hit.why.replace("{ulp}", str(int(cls.dist[0])))
                return (f"first at {describe_input(x)}: expected {describe_bits(e, fmt)}, observed "
                        f"{describe_bits(o, fmt)}; {why}")
        raise AssertionError(f"the fused kernel and classify disagree on input {describe_input(x)} "
                             f"({variant.check}, order {variant.order})")

    def f32_element(self, start: int, settled: dict[int, int], y_at):
        """``element_at`` of an F32 chunk: local index -> what ``first_detail`` takes."""
        from judge.scoring.tally import _subnormal

        def element_at(i: int):
            ref, bits, flag = self.engine.ref_at([start + i])
            e = settled.get(i, int(bits[0])) if flag[0] else int(bits[0])
            x = (start + i) & 0xFFFFFFFF
            daz = bool(_subnormal(np.asarray([x], np.uint32), F32)[0])
            return _signed(x), _signed(y_at(i)), _signed(e), float(ref[0]), None, daz

        return element_at

    def add(self, tally, start: int, n: int, stats: ChunkStats, element_at, describe_input, fmt=F32) -> None:
        """Fold one chunk's stats into ``tally`` exactly as ``judge.scoring.tally.add_chunk`` does;
        ``element_at(i)``: what ``first_detail`` takes for local element i."""
        tally.elements += n
        if tally.hist is None:
            tally.hist = np.zeros(HIST_BINS + 1, np.int64)
        tally.hist = np.asarray(tally.hist) + stats.hist
        for v, (variant, count) in enumerate(zip(VARIANTS, stats.vcount, strict=True)):
            if not count:
                continue
            tally.counts[variant.check] = tally.counts.get(variant.check, 0) + count
            i = stats.vfirst[v]
            pos = (-1, 0) if variant.check == "nan" else (start + i, variant.order)
            if variant.check in tally.first and tally.first[variant.check][0] <= pos:
                continue
            tally.first[variant.check] = (pos, self.first_detail(variant, element_at(i), describe_input, fmt))
            tally.at[variant.check] = start + i
        tally.over_bound += stats.over
        for name, count in stats.mismatches.items():
            tally.mismatches[name] += count
        top, idx = stats.worst if stats.worst else (0, 0)
        if top > tally.worst_ulp:
            tally.worst_ulp = top
            tally.worst_idx = start + (idx if top else 0)
        if stats.real is not None and stats.real[0] > tally.worst_real:
            tally.worst_real, tally.worst_real_idx = stats.real[0], start + stats.real[1]
        tally.abs_max, tally.rel_max = max(tally.abs_max, stats.abs_max), max(tally.rel_max, stats.rel_max)


def _signed(u: int) -> int:
    """Bits as the torch path's int32 items carry them (describe_* mask them back)."""
    u &= 0xFFFFFFFF
    return u - (1 << 32) if u >= 1 << 31 else u
