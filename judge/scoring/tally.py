"""The rulebook summed over the chunks of an exhaustive sweep of 2^32 inputs: every F32 input of a
unary kernel, or every pair of 16-bit inputs of a binary one.

A chunk of 2^28 elements is classified where it lives (``judge.scoring.vector.classify`` on
torch tensors of a CUDA device, or numpy arrays): per check, the number of failing elements and
the first of them (its input, expected and observed bits, and why), never their whole index
list; a histogram of ULP distances; the worst ULP and ULP-real errors with their inputs.
``findings`` turns the totals into the ``Finding``s the verdict takes, failed or reported as
the rulebook says.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from judge.executor import Finding
from judge.scoring.describe import describe_bits
from judge.scoring.rules import is_reported
from judge.scoring.vector import Classified, classify, error_maxima, errors
from judge.scoring.xp import ops_for
from numerics.formats import Format

HIST_BINS = 4096  # ULP distances counted exactly up to this; larger ones share the last bin
# Checks whose failing elements broke a numeric bound (the "over bound" count of a sweep).
BOUND_CHECKS = ("exact", "subnormal", "ulp", "bound")


@dataclass
class Tally:
    """Running totals of one sweep over its chunks."""

    fmt: Format
    elements: int = 0
    counts: dict[str, int] = field(default_factory=dict)  # check -> failing elements
    first: dict[str, tuple[tuple[int, int], str]] = field(default_factory=dict)  # check -> (position, detail)
    at: dict[str, int] = field(default_factory=dict)  # check -> the input index of that first element
    mismatches: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("nan", "inf", "signed_zero", "implausible"), 0))
    over_bound: int = 0
    hist: object = None  # ULP distances of finite pairs (an array of the chunks' module)
    worst_ulp: int = -1
    worst_idx: int = -1
    worst_real: float = -1.0
    worst_real_idx: int = -1
    rel_max: float = 0.0
    abs_max: float = 0.0

    def ulp_p99(self) -> float | None:
        hist = np.asarray(_host(self.hist)) if self.hist is not None else np.zeros(1, np.int64)
        finite = int(hist.sum())
        if not finite:
            return None
        p99 = int(np.searchsorted(np.cumsum(hist), 0.99 * finite))
        return float(p99) if p99 < HIST_BINS else math.inf

    def histogram(self) -> dict[str, int]:
        hist = np.asarray(_host(self.hist)) if self.hist is not None else np.zeros(0, np.int64)
        return {str(i): int(v) for i, v in enumerate(hist) if v}


def _host(array):
    return array.cpu().numpy() if hasattr(array, "cpu") else (array.get() if hasattr(array, "get") else array)


def add_chunk(tally: Tally, start: int, x_bits, obs_bits, exp_bits, ref, *, kind: str, precision,
              rules, describe_input, lo=None, subnormal_input=None) -> None:
    """Score one chunk: output bits ``obs_bits`` against the correctly rounded ``exp_bits`` and the
    F64 reference ``ref`` (which stands in for the exact value, certified by the caller).

    An element whose bits equal the correctly rounded result (or a NaN where a NaN is expected)
    breaks no rule, so only the others (a few percent for a kernel within an ulp) go through
    ``classify``; the measurements (ULP histogram, worst ULP-real error, error maxima) still
    cover every element. ``lo``: where given, the exact value is ``ref + lo`` (a double-double).
    ``subnormal_input``: the elements with a nonzero subnormal input (where a zero is a flush
    whatever its sign); by default read from ``x_bits`` as one input in the output's format.
    """
    fmt = tally.fmt
    ops = ops_for(ref)
    xp = ops.xp
    tally.elements += int(ref.shape[0])
    exp_nan = xp.isnan(_as_float(ops, exp_bits, fmt))
    obs_nan = xp.isnan(_as_float(ops, obs_bits, fmt))
    # two NaNs (whatever their payloads) break no rule either
    same = (obs_bits == exp_bits) | (exp_nan & obs_nan)
    d = ops.indices(~same)  # the elements that differ, ascending
    with ops.quiet():
        obs_f = ops.cast(_as_float(ops, obs_bits, fmt), ops.float64)
        obs_finite = xp.isfinite(obs_f)
        known = obs_finite & ~exp_nan & xp.isfinite(ref)
        measured = Measured(*errors(ops, obs_f, known, ref, lo, fmt))
    equal_finite = ops.count(same & obs_finite)  # finite pairs at 0 ulp
    cls = None
    if d.shape[0]:
        o_b, e_b, r = obs_bits[d], exp_bits[d], ref[d]
        daz = subnormal_input[d] if subnormal_input is not None else _subnormal(x_bits[d], fmt)
        cls = classify(obs_bits=o_b, exp_bits=e_b, obs_f=obs_f[d],
                       exp_f=ops.cast(_as_float(ops, e_b, fmt), ops.float64), hi=r,
                       lo=lo[d] if lo is not None else None, has_exact=xp.isfinite(r), kind=kind,
                       precision=precision, rules=rules, fmt=fmt, daz=daz)
        _count_hits(tally, ops, cls, start, d, x_bits[d], o_b, e_b, describe_input)
    _measure(tally, ops, cls, start, d, equal_finite)
    _measure_errors(tally, ops, measured, start, ref, obs_f)


@dataclass
class Measured:
    """``judge.scoring.vector.errors`` over a whole chunk."""

    err_known: object
    err: object
    real: object


def _subnormal(bits, fmt: Format):
    """Nonzero subnormals among bit patterns of ``fmt`` (signed or unsigned integers)."""
    exponent = ((1 << fmt.exponent_bits) - 1) << fmt.mantissa_bits
    return ((bits & exponent) == 0) & ((bits & ((1 << fmt.mantissa_bits) - 1)) != 0)


def _as_float(ops, bits, fmt: Format):
    if fmt.bits == 16:  # the pair sweeps' F16 and BF16 (ml_dtypes' on numpy)
        dtype = fmt.numpy_dtype if ops.xp is np else getattr(ops.xp, "float16" if fmt.name == "F16" else "bfloat16")
        return bits.view(dtype)
    dtype = {32: ops.xp.float32, 64: ops.xp.float64}[fmt.bits]
    return bits.view(dtype)


def _count_hits(tally: Tally, ops, cls: Classified, start, d, x_bits, obs_bits, exp_bits,
                describe_input) -> None:
    """Count the differing elements ``d`` (whose arrays these are) per failing check."""
    over = None
    for hit in cls.hits:
        count = ops.count(hit.mask)
        if hit.check in BOUND_CHECKS:
            over = hit.mask if over is None else over | hit.mask
        if not count:
            continue
        tally.counts[hit.check] = tally.counts.get(hit.check, 0) + count
        i = ops.first(hit.mask)
        pos = (-1, 0) if hit.first else (start + ops.item(d, i), hit.order)
        if hit.check in tally.first and tally.first[hit.check][0] <= pos:
            continue
        why = hit.why.replace("{ulp}", str(ops.item(cls.dist, i)))
        fmt = tally.fmt
        tally.at[hit.check] = start + ops.item(d, i)
        tally.first[hit.check] = (pos, (
            f"first at {describe_input(ops.item(x_bits, i))}: expected "
            f"{describe_bits(ops.item(exp_bits, i), fmt)}, observed "
            f"{describe_bits(ops.item(obs_bits, i), fmt)}; {why}"))
    if over is not None:
        tally.over_bound += ops.count(over)
    for name in tally.mismatches:
        mask = getattr(cls, name)
        tally.mismatches[name] += ops.count(mask) if mask is not None else 0


def _measure(tally: Tally, ops, cls: Classified | None, start: int, d, equal_finite: int) -> None:
    """The ULP histogram and the worst ULP distance: equal elements are finite pairs at 0 ulp."""
    xp = ops.xp
    if tally.hist is None:
        tally.hist = ops.zeros_int64(HIST_BINS + 1, like=d)
    tally.hist[0] += equal_finite
    top = 0
    if cls is not None:
        dist = xp.where(cls.finite_pair, cls.dist, 0)
        # Almost every distance is 0 or 1: count those with reductions, and histogram only the
        # rest (a bincount over values that all hit two bins serialises on their atomics).
        tally.hist[0] += (cls.finite_pair & (dist == 0)).sum()
        tally.hist[1] += (cls.finite_pair & (dist == 1)).sum()
        wide = dist[cls.finite_pair & (dist > 1)]
        if wide.shape[0]:
            tally.hist += xp.bincount(ops.clamp_max(wide, HIST_BINS), minlength=HIST_BINS + 1)
        top = int(dist.max())
    if top > tally.worst_ulp:  # the first element of the chunk when every distance is 0
        tally.worst_ulp = top
        tally.worst_idx = start + (ops.item(d, int(dist.argmax())) if top else 0)


def _measure_errors(tally: Tally, ops, m: Measured, start: int, ref, obs_f) -> None:
    real = ops.xp.where(m.err_known, m.real, -1.0)
    k = int(real.argmax())
    if float(real[k]) > tally.worst_real:
        tally.worst_real, tally.worst_real_idx = float(real[k]), start + k
    abs_max, rel_max = error_maxima(m, ref, obs_f)
    tally.abs_max, tally.rel_max = max(tally.abs_max, abs_max), max(tally.rel_max, rel_max)


def findings(tally: Tally, rules) -> tuple[list[Finding], list[Finding]]:
    """(failed, reported): one finding per failing check, in the order the elements meet them."""
    failed, reported = [], []
    for check in sorted(tally.counts, key=lambda c: tally.first[c][0]):
        text = f"{check}: {tally.counts[check]:,} of {tally.elements:,} element(s)\n    {tally.first[check][1]}"
        (reported if is_reported(check, rules) else failed).append(Finding(check, text))
    return failed, reported


def merge(tallies: list[Tally]) -> Tally:
    """One tally of several sweeps over disjoint chunks, as if one sweep had scored every chunk
    in ascending input order: counts and histograms add up; the first failing element of each
    check, and the worst errors (ties to the lowest input), are the lowest-indexed ones."""
    out = Tally(tallies[0].fmt)
    hists = [np.asarray(_host(t.hist)) for t in tallies if t.hist is not None]
    out.hist = np.sum(hists, axis=0) if hists else None
    for t in tallies:
        out.elements += t.elements
        out.over_bound += t.over_bound
        for check, n in t.counts.items():
            out.counts[check] = out.counts.get(check, 0) + n
        for check, first in t.first.items():
            if check not in out.first or first[0] < out.first[check][0]:
                out.first[check] = first
                if check in t.at:
                    out.at[check] = t.at[check]
        for check, n in t.mismatches.items():
            out.mismatches[check] = out.mismatches.get(check, 0) + n
        if (t.worst_ulp, -t.worst_idx) > (out.worst_ulp, -out.worst_idx):
            out.worst_ulp, out.worst_idx = t.worst_ulp, t.worst_idx
        if t.worst_real_idx >= 0 and (t.worst_real, -t.worst_real_idx) > (out.worst_real, -out.worst_real_idx):
            out.worst_real, out.worst_real_idx = t.worst_real, t.worst_real_idx
        out.rel_max, out.abs_max = max(out.rel_max, t.rel_max), max(out.abs_max, t.abs_max)
    return out


def to_host(tally: Tally) -> Tally:
    """The tally with its histogram in host memory (to cross a process boundary)."""
    if tally.hist is not None:
        tally.hist = np.asarray(_host(tally.hist))
    return tally
