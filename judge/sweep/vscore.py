"""Vectorised scoring of elementwise outputs against an oracle table (SPEC §4, §6 fast path).

``judge.scoring.score_output`` walks elements in Python with exact ``Fraction`` arithmetic: right
for a generated case of a few hundred elements, minutes for a sweep's 65,536 (or a million).
This module applies the same rules, in the same order, with whole-array numpy operations on the
table's double-double exact values, and is proven to give the same counts, ULP distances, ULP-real
errors and failing checks on samples (tests/sweep/test_vscore.py). Only elementwise families are
scored here (unary, binary, compare), where output element i depends on input element i alone.

The rules, per element (as in ``score_output``): NaN-ness must match; then, for elements whose
bits differ from the correctly rounded result, ±inf must match where the exact value is infinite
or the op is exact; an exact op must match bit for bit (a ±0 difference is a signed-zero
mismatch); otherwise the declared bounds apply (max_ulp, max_absolute, max_relative), or, with
none declared, the sanity bound 2^(-p/2)·max(1, |exact|).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judge import ulp as ulp_math
from judge.executor import Finding
from judge.formats import Format, get_format
from judge.scoring import bound_kind, nan_involved

MAX_REPORTED = 3  # elements spelled out per failing check, as in judge.scoring


@dataclass(frozen=True)
class Expected:
    """The oracle's answer, flattened: correctly rounded bits and the exact value as hi + lo."""

    bits: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    has_exact: np.ndarray
    tiny: np.ndarray | None = None  # exact nonzero but below F64's range (hi = lo = 0)


@dataclass
class VectorScore:
    """What scoring measured over all elements of one output."""

    elements: int = 0
    ulp: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # finite pairs
    ulp_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # their elements
    ulp_real: np.ndarray = field(default_factory=lambda: np.zeros(0))  # unrounded, finite obs
    ulp_real_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    rel_max: float = 0.0
    abs_max: float = 0.0
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    signed_zero_mismatch: int = 0
    implausible: int = 0
    failing: dict[str, np.ndarray] = field(default_factory=dict)  # check -> element indices
    findings: list[Finding] = field(default_factory=list)
    reported: list[Finding] = field(default_factory=list)  # mismatches under an unspecified rule

    def ulp_real_rounded(self) -> list[float]:
        """The ULP-real errors as ``score_output`` records them (three decimals)."""
        return [round(float(v), 3) for v in self.ulp_real]

    def ulp_real_max(self) -> float | None:
        return round(float(self.ulp_real.max()), 3) if self.ulp_real.size else None


def _floor_log2(hi: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """floor(log2|hi + lo|) for nonzero finite hi: hi's binade, one lower when hi is a power of
    two and lo pulls the exact value below it."""
    mant, exp = np.frexp(np.abs(hi))
    below = (mant == 0.5) & (lo != 0) & (np.signbit(lo) != np.signbit(hi))
    return exp.astype(np.int64) - 1 - below


def ulp_real_errors(observed: np.ndarray, hi: np.ndarray, lo: np.ndarray, fmt: Format) -> tuple[np.ndarray, np.ndarray]:
    """(|observed − exact|, the same in units of ulp_F(exact)) for finite observed values."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs((observed - hi) - lo)  # observed − hi is exact when they are close (Sterbenz)
    e = np.where(hi == 0, fmt.emin, np.maximum(_floor_log2(np.where(hi == 0, 1.0, hi), lo), fmt.emin))
    return err, np.ldexp(err, -(e - fmt.precision + 1).astype(np.int32))


def score_elementwise(contract, opdef, rules, values, names, params, observed: np.ndarray,
                      expected: Expected, out_dtype: str, output: int = 0) -> VectorScore:
    """Score one elementwise output (any shape, flattened in C order) against the oracle."""
    fmt = get_format(out_dtype)
    obs_arr = np.ascontiguousarray(observed)
    shape = obs_arr.shape
    n = obs_arr.size
    score = VectorScore(elements=n)
    if n == 0:
        return score
    obs_bits = obs_arr.view(fmt.bits_dtype).reshape(-1)
    exp_bits = np.asarray(expected.bits, dtype=fmt.bits_dtype).reshape(-1)
    with np.errstate(invalid="ignore"):  # NaN inputs cast to float64 for the mask
        nan_mask = nan_involved(opdef, values, params, shape).reshape(-1)
    report = _Reporter(values, names, obs_bits, exp_bits, fmt, output, n)
    if not fmt.is_float:
        mism = obs_bits != exp_bits
        report.add("nan", mism & nan_mask, f"the NaN rule is {rules.nan.value} (from {rules.nan.source})")
        report.add("exact", mism & ~nan_mask, "exact by definition (bit-for-bit)")
        _emit(score, report, rules.nan)
        return score

    kind = bound_kind(contract, opdef)
    with np.errstate(invalid="ignore"):
        obs_f = obs_arr.reshape(-1).astype(np.float64)
        exp_f = exp_bits.view(fmt.numpy_dtype).astype(np.float64)
    obs_nan, exp_nan = np.isnan(obs_f), np.isnan(exp_f)
    nan_mis = obs_nan != exp_nan
    score.nan_mismatch = int(nan_mis.sum())
    report.add("nan", nan_mis, f"NaN rule {rules.nan.value} (from {rules.nan.source})", first=True)

    both = ~obs_nan & ~exp_nan
    same = obs_bits == exp_bits
    dist = ulp_math.ulp_distance(obs_bits, exp_bits, fmt)
    obs_inf, exp_inf = np.isinf(obs_f), np.isinf(exp_f)
    finite_pair = both & ~obs_inf & ~exp_inf
    score.ulp_index = np.flatnonzero(finite_pair)
    score.ulp = dist[score.ulp_index]

    err_known = both & expected.has_exact & ~obs_inf  # score_output's "err is not None"
    err = np.full(n, np.nan)
    real = np.full(n, np.nan)
    if err_known.any():
        k = np.flatnonzero(err_known)
        err[k], real[k] = ulp_real_errors(obs_f[k], expected.hi[k], expected.lo[k], fmt)
        score.ulp_real_index = k
        score.ulp_real = real[k]
        score.abs_max = float(err[k].max())
        nz = k[expected.hi[k] != 0]
        if nz.size:
            score.rel_max = float((err[nz] / np.abs(expected.hi[nz])).max())
        if expected.tiny is not None and expected.tiny[k].any():
            # |obs − exact| / |exact| is 1 for an observed zero and astronomically large otherwise
            t = k[expected.tiny[k]]
            score.rel_max = max(score.rel_max, float(np.where(obs_f[t] == 0, 1.0, np.inf).max()))

    differ = both & ~same
    inf_case = differ & ((obs_inf != exp_inf) | (obs_inf & exp_inf))
    inf_fail = inf_case & (~expected.has_exact | (kind == "exact"))
    score.inf_mismatch = int(inf_fail.sum())
    report.add("inf", inf_fail, "±inf must match the oracle exactly")
    rest = differ & ~inf_fail

    # a flushed subnormal is what broke, whichever check it broke (as in judge.scoring)
    flushed = (obs_f == 0) & (exp_f != 0) & (np.abs(exp_f) < 2.0 ** fmt.emin)

    def add(check: str, mask: np.ndarray, why: str, **kw) -> None:
        report.add(check, mask & ~flushed, why, **kw)
        report.add("subnormal", mask & flushed, f"subnormal (flushed to zero): {why}", **kw)

    if kind == "exact":
        zeros = rest & (obs_f == 0) & (exp_f == 0)
        score.signed_zero_mismatch = int(zeros.sum())
        report.add("signed_zero", zeros, "the sign of zero must match for an exact op")
        report.add("subnormal", rest & ~zeros & flushed,
                   "a subnormal result was flushed to zero; the op is exact by definition")
        report.add("exact", rest & ~zeros & ~flushed, "{ulp} ulp; the op is exact by definition (bit-for-bit)", dist=dist)
    elif kind == "declared":
        p = contract.precision
        if p.max_ulp is not None:
            add("ulp", rest & (dist > p.max_ulp), f"{{ulp}} ulp > max_ulp {p.max_ulp}", dist=dist)
        if p.max_absolute is not None:
            add("bound", rest & err_known & (err > p.max_absolute),
                f"|error| > max_absolute {p.max_absolute}", order=1)
        if p.max_relative is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                rel = err / np.abs(expected.hi)
            add("bound", rest & err_known & (expected.hi != 0) & (rel > p.max_relative),
                f"relative error > max_relative {p.max_relative}", order=2)
        if p.max_absolute is not None or p.max_relative is not None:
            add("bound", rest & ~err_known, "infinite error against a finite exact value", order=3)
    else:  # sanity (a "reduction" bound needs reduction terms, which elementwise ops lack)
        limit = 2.0 ** (-fmt.precision / 2) * np.maximum(1.0, np.abs(expected.hi))
        with np.errstate(invalid="ignore"):
            bad = rest & (~err_known | (err > limit))
        score.implausible = int(bad.sum())
        add("implausible", bad,
            f"error beyond the sanity bound 2^(-p/2)·max(1,|exact|) (p={fmt.precision})")
    _emit(score, report, rules.nan)
    return score


class _Reporter:
    """Collects failing elements per check, ordered as the per-element loop would meet them."""

    def __init__(self, values, names, obs_bits, exp_bits, fmt: Format, output: int, n: int):
        self.values, self.names = values, names
        self.obs_bits, self.exp_bits, self.fmt, self.output, self.n = obs_bits, exp_bits, fmt, output, n
        self.hits: dict[str, list[tuple[np.ndarray, str, np.ndarray | None]]] = {}
        self.first: dict[str, tuple[int, int]] = {}

    def add(self, check: str, mask: np.ndarray, why: str, *, first: bool = False, order: int = 0,
            dist: np.ndarray | None = None) -> None:
        idx = np.flatnonzero(mask)
        if not idx.size:
            return
        self.hits.setdefault(check, []).append((idx, why, dist))
        pos = (-1, 0) if first else (int(idx[0]), order)
        self.first[check] = min(self.first.get(check, pos), pos)

    def checks(self) -> list[str]:
        return sorted(self.hits, key=lambda c: self.first[c])

    def indices(self, check: str) -> np.ndarray:
        return np.concatenate([h[0] for h in self.hits[check]])

    def message(self, check: str) -> str:
        parts = self.hits[check]
        total = sum(h[0].size for h in parts)
        details = []
        for idx, why, dist in parts:
            for i in idx[: MAX_REPORTED - len(details)]:
                details.append(self._detail(int(i), why.replace("{ulp}", str(int(dist[i])) if dist is not None else "?")))
        more = f"\n    (+{total - len(details)} more)" if total > len(details) else ""
        return f"{check}: {total} of {self.n} element(s)\n    " + "\n    ".join(details) + more

    def _detail(self, i: int, why: str) -> str:
        ins = ", ".join(f"{name}={describe(v.reshape(-1)[i])}" for name, v in zip(self.names, self.values, strict=True))
        return (f"output {self.output} element [{i}]: inputs {ins}; expected "
                f"{describe_bits(int(self.exp_bits[i]), self.fmt)}, observed "
                f"{describe_bits(int(self.obs_bits[i]), self.fmt)}; {why}")


def describe(value) -> str:
    """A scalar as ``value (0xBITS)``."""
    arr = np.asarray(value)
    bits = int(arr.reshape(1).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.itemsize])[0])
    return f"{arr.item()!r} (0x{bits:0{arr.itemsize * 2}X})"


def describe_bits(bits: int, fmt: Format) -> str:
    value = np.asarray([bits], dtype=fmt.bits_dtype).view(fmt.numpy_dtype)[0]
    return f"{value.item()!r} (0x{bits:0{max(fmt.bits // 4, 1)}X})"


def _emit(score: VectorScore, report: _Reporter, nan_rule) -> None:
    for check in report.checks():
        score.failing[check] = report.indices(check)
        finding = Finding(check, report.message(check))
        if check == "nan" and nan_rule.value == "unspecified":
            score.reported.append(finding)
        else:
            score.findings.append(finding)
