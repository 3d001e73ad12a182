"""The fused 16-bit pair sweep: ``judge sweep --pairs`` with its reference and scoring in one kernel.

``judge.sweep.pairs`` builds each chunk's reference on the host (``oracles.fast.pairs``) and
scores it with the array scorer. Here ``fused_pairs.cu`` does both per pair: the same binary64
reference with TwoSum's ``lo``, the same rounding with its ties, the rulebook's checks with
``lo`` (``fused_common.h``), the ULP histogram, the first failing pair of each check, the error
maxima and the exponent grid. The open ties (a quotient or a BF16 sum exactly on a rounding
boundary) are listed by a first pass and settled on the host by the pure oracle
(``oracles.fast.pairs.settle``), and the scoring pass takes their settled bits and exact value.
The chunk's totals fold into the sweep's tally as the array scorer's would
(``judge.sweep.fused.FusedScorer.add``), so verdicts, histograms and messages are the same.

NVRTC through cupy on a CUDA device; the same source compiled for this CPU (the twin) elsewhere.
"""

from __future__ import annotations

import ctypes

import numpy as np

from judge.scoring.rules import bound_kind
from judge.sweep import fused, fused_totals
from numerics.formats import get_format

CROSS_CHECK = 64


def _op_code(op_kind: str) -> int | None:
    """fused_pairs.cu's OP: the binary64 operation of ``oracles.fast.pairs.KERNELS``, or the
    libm function certified for the OpKind (``judge.sweep.pair_reference``)."""
    from judge.sweep.pair_reference import libm_name
    from oracles.fast.pairs import KERNELS

    name = KERNELS[op_kind].name if op_kind in KERNELS else libm_name(op_kind)
    return OPS.get(name)


# fused_pairs.cu's OP of each operation: oracles.fast.pairs.KERNELS' names, and pow by its libm name
OPS = {"add": 0, "sub": 1, "mul": 2, "div": 3, "pow": 4, "maximum": 5, "minimum": 6, "rem": 7}


def covered(op_kind: str) -> bool:
    return _op_code(op_kind) is not None


def covered_kinds() -> list[str]:
    from judge.sweep.pair_reference import covered_kinds as certified

    return [k for k in certified() if covered(k)]


def pair_defines(contract, opdef, dtype: str) -> dict[str, str]:
    """The kernel's configuration: the operation, the format, the bound (``fused.defines``)."""
    from oracles.fast.pairs import KERNELS
    from oracles.output import resolve_rule

    fmt = get_format(dtype)
    op = KERNELS.get(contract.op_kind)
    known = op is not None and (op.exact_f16 if dtype == "F16" else op.exact_bf16)
    rules = contract.semantics.values()

    def rule(key: str, allowed: tuple[str, ...]) -> str | None:
        return resolve_rule(rules, key, opdef.defaults, allowed) if key in opdef.defaults else None

    defs = fused.bound_defines(contract, opdef, fmt)
    defs.update(OP=str(_op_code(contract.op_kind)), KNOWN_EXACT=str(int(known)),
                NAN_IGNORE=str(int(rule("nan", opdef.nan_rules or ("propagate",)) == "ignore")),
                ZEROS_UNORDERED=str(int(rule("zeros", ("ordered", "unordered")) == "unordered")),
                REM_TRUNCATED=str(int(rule("remainder", ("floored", "truncated")) == "truncated")),
                FMT_E=str(fmt.exponent_bits), FMT_M=str(fmt.mantissa_bits), MARGIN=str(fused.MARGIN_F64_ULPS))
    return defs


def _grids(side: int):
    return np.zeros(side * side, np.uint64), np.zeros(side * side, np.uint64)


class PairTwin:
    where = "cpu"

    def __init__(self, defs: dict[str, str], side: int, *, extra: tuple[str, ...] = ()):
        self.side = side
        self.lib = fused.compile_twin("fused_pairs.cu", defs, extra)
        u64, p = ctypes.c_uint64, ctypes.c_void_p
        self.lib.twin_pair_ref_at.argtypes = [p, u64, p, p, p, p]
        self.lib.twin_round16.restype = ctypes.c_uint32
        self.lib.twin_round16.argtypes = [ctypes.c_double, p]
        self.lib.twin_score_pairs.argtypes = [u64, u64, p, p, p, p, p, ctypes.c_uint32, p, p, p, p]
        self.lib.twin_classify_pairs.argtypes = [u64, p, p, p, p, p, p, p, p]

    def flag(self, start: int, n: int) -> np.ndarray:
        return fused.twin_flags(self.lib, start, n)

    def ref_at(self, pairs):
        p = np.ascontiguousarray(pairs, dtype=np.uint64)
        bits, hi, lo, open_ = (np.zeros(p.size, np.uint32), np.zeros(p.size), np.zeros(p.size),
                               np.zeros(p.size, np.uint32))
        self.lib.twin_pair_ref_at(p.ctypes.data, p.size, bits.ctypes.data, hi.ctypes.data, lo.ctypes.data,
                                  open_.ctypes.data)
        return bits, hi, lo, open_.astype(bool)

    def round16(self, y: float) -> tuple[int, bool]:
        tie = ctypes.c_uint32()
        return int(self.lib.twin_round16(y, ctypes.byref(tie))), bool(tie.value)

    def score(self, start: int, n: int, y, settled):
        y = np.ascontiguousarray(np.asarray(y).reshape(-1).view(np.uint16))
        s_idx, s_bits, s_hi, s_lo = settled
        hist = np.zeros(fused_totals.HIST_BINS + 1, np.uint32)
        off, worst = _grids(self.side)
        st = fused_totals.Stats()
        self.lib.twin_score_pairs(start, n, y.ctypes.data, s_idx.ctypes.data, s_bits.ctypes.data, s_hi.ctypes.data,
                                  s_lo.ctypes.data, s_idx.size, hist.ctypes.data, ctypes.byref(st),
                                  off.ctypes.data, worst.ctypes.data)
        return fused_totals.stats_of(fused_totals.hist_of(hist, st), st), off.astype(np.int64), worst.astype(np.int64)

    def classify(self, p, o, e, hi, lo):
        arrays = [np.ascontiguousarray(a, dtype=np.uint32) for a in (p, o, e)]
        hi, lo = (np.ascontiguousarray(a, dtype=np.float64) for a in (hi, lo))
        n = hi.size
        variants, mism, dist = np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.zeros(n, np.int64)
        self.lib.twin_classify_pairs(n, *(a.ctypes.data for a in arrays), hi.ctypes.data, lo.ctypes.data,
                                     variants.ctypes.data, mism.ctypes.data, dist.ctypes.data)
        return variants, mism, dist


class PairCuda:
    where = "cuda"
    THREADS = 256
    PER_BLOCK = 1 << 13

    def __init__(self, defs: dict[str, str], side: int):
        import cupy

        self.cp, self.side = cupy, side
        self.module = fused.nvrtc_module("fused_pairs.cu", defs)
        self._flag = self.module.get_function("flag_chunk")
        self._score = self.module.get_function("score_pairs")
        self._ref_at = self.module.get_function("pair_ref_at")
        self.buf = cupy.zeros(fused.SETTLE_CAP, cupy.uint32)
        self.count = cupy.zeros(1, cupy.uint32)

    def flag(self, start: int, n: int) -> np.ndarray:
        return fused.cuda_flags(self, start, n)

    def ref_at(self, pairs):
        cp = self.cp
        p = cp.asarray(np.ascontiguousarray(pairs, dtype=np.uint64))
        n = int(p.size)
        bits, hi, lo, open_ = cp.zeros(n, cp.uint32), cp.zeros(n), cp.zeros(n), cp.zeros(n, cp.uint32)
        if n:
            self._ref_at(((n + 255) // 256,), (256,), (p, np.uint64(n), bits, hi, lo, open_))
        return cp.asnumpy(bits), cp.asnumpy(hi), cp.asnumpy(lo), cp.asnumpy(open_).astype(bool)

    def score(self, start: int, n: int, y, settled):
        cp = self.cp
        y = cp.asarray(np.asarray(y).reshape(-1).view(np.uint16)) if isinstance(y, np.ndarray) else y
        blocks = (n + self.PER_BLOCK - 1) // self.PER_BLOCK
        out = fused_totals.device_totals(cp, blocks)
        off, worst = cp.zeros(self.side * self.side, cp.uint64), cp.zeros(self.side * self.side, cp.uint64)
        s = [cp.asarray(a) for a in settled]
        self._score((blocks,), (self.THREADS,),
                    (np.uint64(start), np.uint64(n), np.uint64(self.PER_BLOCK), y, s[0], s[1], s[2], s[3],
                     np.uint32(s[0].size), *out, off, worst))
        return fused_totals.reduce_totals(cp, out), cp.asnumpy(off).astype(np.int64), cp.asnumpy(worst).astype(np.int64)


def engine_for(where: str, contract, opdef, dtype: str):
    side = 1 << get_format(dtype).exponent_bits
    defs = pair_defines(contract, opdef, dtype)
    return PairCuda(defs, side) if where == "cuda" else PairTwin(defs, side)


def settle(run, engine, start: int, flagged: np.ndarray):
    """The settled (local index, bits, hi, lo) of the open ties: the pure oracle's."""
    from oracles.fast import pairs, pure

    k = flagged.size
    p = (start + flagged).astype(np.uint64)
    bits, hi, lo, _ = engine.ref_at(p)
    if k:
        a, b = (p >> 16).astype(np.uint16), (p & 0xFFFF).astype(np.uint16)
        fmt = get_format(run.dtype)
        bits16 = bits.astype(fmt.bits_dtype)
        pairs.settle(run.contract.op_kind, a, b, run.dtype, run.contract.semantics.values(),
                     pure(run.opdef.evaluate), np.arange(k), bits16, hi, lo)
        bits = bits16.astype(np.uint32)
    run.counts["settled"] += int(k)
    return (np.ascontiguousarray(flagged, np.uint32), np.ascontiguousarray(bits, np.uint32),
            np.ascontiguousarray(hi, np.float64), np.ascontiguousarray(lo, np.float64))


def cross_check(run, engine, start: int, n: int, settled) -> None:
    """A random sample of the chunk's pairs, and pairs whose y is a special value (±0, ±inf,
    NaN), against the pure oracle: every bit must agree (a NaN with any NaN)."""
    from oracles.fast import pure
    from oracles.fast.errors import FastPathMismatch
    from oracles.fast.pairs import _pure, values_of

    fmt = get_format(run.dtype)
    special_y = np.flatnonzero(~np.isfinite(values_of(run.dtype)) | (values_of(run.dtype) == 0))
    local = run.rng.integers(0, n, CROSS_CHECK)
    rows = run.rng.integers(0, max(n >> 16, 1), CROSS_CHECK // 4)
    specials = (rows << 16) + run.rng.choice(special_y, CROSS_CHECK // 4)
    idx = np.unique(np.concatenate([local, specials[specials < n]]))
    p = (start + idx).astype(np.uint64)
    bits, _, _, open_ = engine.ref_at(p)
    s_idx, s_bits = settled[0], settled[1]
    where = np.searchsorted(s_idx, idx)
    for j in np.flatnonzero(open_):
        bits[j] = s_bits[where[j]]
    a, b = (p >> 16).astype(np.uint16), (p & 0xFFFF).astype(np.uint16)
    out = _pure(run.contract.op_kind, a, b, run.dtype, run.contract.semantics.values(), pure(run.opdef.evaluate))
    want = np.asarray(out.expected).view(fmt.bits_dtype).reshape(-1).astype(np.uint32)
    table = values_of(run.dtype)
    same = (want == bits) | (np.isnan(table[want]) & np.isnan(table[bits]))
    if not same.all():
        k = int(np.flatnonzero(~same)[0])
        raise FastPathMismatch(f"fused pair reference of {run.contract.op_kind} ({run.dtype}) at pair "
                               f"0x{int(p[k]):08X}: 0x{int(bits[k]):04X}, the pure oracle says 0x{int(want[k]):04X}")
    run.counts["cross_checked"] += int(idx.size)


def score_chunk(run, scorer, start: int, n: int, y, describe_input) -> None:
    """``judge.sweep.pairs.score_chunk`` through the fused kernel (``scorer.engine``);
    ``describe_input``: the words for a pair number (``judge.sweep.pairs.describe_pair``)."""
    import time

    engine = scorer.engine
    fmt = get_format(run.dtype)
    t = time.perf_counter()
    settled = settle(run, engine, start, engine.flag(start, n))
    cross_check(run, engine, start, n, settled)
    run.times["reference_s"] += time.perf_counter() - t
    t = time.perf_counter()
    stats, off, worst = engine.score(start, n, y, settled)
    if stats.missing:
        raise AssertionError(f"pairs from 0x{start:08X}: {stats.missing} open tie(s) scored without their "
                             f"settled values (the passes disagree)")
    by_index = {int(i): j for j, i in enumerate(settled[0])}
    y_host = y if isinstance(y, np.ndarray) else None

    def element_at(i: int):
        j = by_index.get(i)
        if j is not None:
            e, hi, lo = int(settled[1][j]), float(settled[2][j]), float(settled[3][j])
        else:
            bits, his, los, _ = engine.ref_at([start + i])
            e, hi, lo = int(bits[0]), float(his[0]), float(los[0])
        p = start + i
        o = int(y_host[i]) if y_host is not None else int(y[i])
        daz = any(_nonzero_subnormal(v, fmt) for v in (p >> 16, p & 0xFFFF))
        return p, o, e, hi, lo, daz

    scorer.add(run.tally, start, n, stats, element_at, describe_input, fmt)
    run.off += off.reshape(run.off.shape)
    np.maximum(run.worst, worst.reshape(run.worst.shape), out=run.worst)
    run.times["scoring_s"] += time.perf_counter() - t


def _nonzero_subnormal(bits: int, fmt) -> bool:
    exponent = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    return (bits & exponent) == 0 and (bits & ((1 << fmt.mantissa_bits) - 1)) != 0


def scorer_for(run, where: str):
    """A ``fused.FusedScorer`` whose engine is the pair kernel for this sweep."""
    engine = engine_for(where, run.contract, run.opdef, run.dtype)
    return fused.FusedScorer(run.contract, run.opdef, where, engine=engine)


def bound_kind_of(run) -> str:
    return bound_kind(run.contract, run.opdef)
