"""The array scorer: whole outputs at once, with the rules of ``judge.scoring.rules``.

``judge.scoring.exact`` walks elements in Python with exact ``Fraction`` arithmetic: right for a
generated case of a few hundred elements, minutes for a sweep's 65,536 (or a million), hours for
2^32. ``classify`` applies the same rules, in the same order, with whole-array operations on a
double-double exact value ``hi + lo`` (a 16-bit sweep's oracle table) or on an F64 reference
(``lo`` None: the F32 sweep's certified reference), on numpy, cupy or torch arrays
(``judge.scoring.xp``). It is proven to give the exact scorer's counts, ULP distances, ULP-real
errors and failing checks (tests/sweep/test_vscore.py, tests/sweep/test_one_rulebook.py).

Only the OpKinds a sweep covers are scored here: elementwise ones of one or two operands, where
output element i depends on input element i alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judge.executor import Finding
from judge.scoring import rules as rulebook
from judge.scoring.describe import describe, describe_bits
from judge.scoring.rules import MAX_REPORTED, Counts, bound_kind, flushed, is_reported
from judge.scoring.xp import ops_for
from numerics.formats import Format, get_format


@dataclass(frozen=True)
class Expected:
    """The oracle's answer, flattened: correctly rounded bits and the exact value as hi + lo."""

    bits: np.ndarray
    hi: np.ndarray
    lo: np.ndarray
    has_exact: np.ndarray
    tiny: np.ndarray | None = None  # exact nonzero but below F64's range (hi = lo = 0)
    alt: np.ndarray | None = None  # bits of a further result the contract admits, where has_alt
    has_alt: np.ndarray | None = None


@dataclass(frozen=True)
class Hit:
    """Elements failing one check for one reason; ``first`` puts the check before any other
    (the NaN check comes first per element), ``order`` breaks ties at the same element."""

    check: str
    mask: object
    why: str
    first: bool = False
    order: int = 0
    with_distance: bool = False  # ``why`` holds "{ulp}", the element's ULP distance


@dataclass
class Classified:
    """What the rules found, per element: failing checks and the measurements behind them."""

    hits: list[Hit]
    nan: object  # NaN-ness differs
    dist: object  # integer ULP distance (meaningful where neither side is NaN)
    finite_pair: object  # both sides finite: where ULP distances are measured
    err_known: object  # a finite observed value against a known exact value
    err: object  # |observed − exact| where err_known
    real: object  # err in units of ulp_F(exact) where err_known
    inf: object = None
    signed_zero: object = None
    implausible: object = None


def classify(*, obs_bits, exp_bits, obs_f, exp_f, hi, lo, has_exact, kind: str, precision,
             rules, fmt: Format, daz=None) -> Classified:
    """Apply the rulebook to flat arrays of one module (F64 ``obs_f``/``exp_f``/``hi``/``lo``);
    ``daz``: the elements with a nonzero subnormal input (``rules.flushed``)."""
    ops = ops_for(obs_f)
    xp = ops.xp
    with ops.quiet():
        obs_nan, exp_nan = xp.isnan(obs_f), xp.isnan(exp_f)
        nan_mis = obs_nan != exp_nan
        hits = [Hit("nan", nan_mis, f"NaN rule {rules.nan.value} (from {rules.nan.source})", first=True)]
        both = ~obs_nan & ~exp_nan
        dist = ops.ulp_distance(obs_bits, exp_bits, fmt)
        obs_inf, exp_inf = xp.isinf(obs_f), xp.isinf(exp_f)
        err_known, err, real = errors(ops, obs_f, both & has_exact & ~obs_inf, hi, lo, fmt)
        cls = Classified(hits, nan_mis, dist, both & ~obs_inf & ~exp_inf, err_known, err, real)
        differ = both & (obs_bits != exp_bits)
        inf_case = differ & ((obs_inf != exp_inf) | (obs_inf & exp_inf))
        cls.inf = inf_case if kind == "exact" else inf_case & ~has_exact
        hits.append(Hit("inf", cls.inf, "±inf must match the oracle exactly"))
        rest = differ & ~cls.inf
        fl = flushed(obs_f, exp_f, fmt, daz)
        if kind == "exact":
            _exact_hits(cls, rest, fl, obs_f, exp_f)
        elif kind == "declared":
            _declared_hits(cls, ops, rest, fl, hi, precision)
        else:  # sanity (a "reduction" bound needs reduction terms, which elementwise ops lack)
            limit = rulebook.sanity_factor(fmt) * ops.clamp_min(xp.abs(hi), 1.0)
            cls.implausible = rest & (~err_known | (err > limit))
            _flushed_or(hits, fl, "implausible", cls.implausible, rulebook.sanity_text(fmt))
    return cls


def errors(ops, obs_f, err_known, hi, lo, fmt: Format):
    """(err_known, |observed − exact| there (NaN elsewhere), that error in units of
    ulp_F(exact)): the measurements behind the bounds and the ULP-real column."""
    xp = ops.xp
    diff = xp.abs(obs_f - hi) if lo is None else xp.abs((obs_f - hi) - lo)  # exact (Sterbenz)
    err = xp.where(err_known, diff, float("nan"))
    real = ops.ldexp(err, -(_ulp_exponent(ops, hi, lo, fmt) - fmt.precision + 1))
    return err_known, err, real


def _ulp_exponent(ops, hi, lo, fmt: Format):
    """floor(log2|hi + lo|), at least emin: hi's binade, one lower when hi is a power of two and
    lo pulls the exact value below it."""
    xp = ops.xp
    h = xp.where(hi == 0, 1.0, hi)
    e = ops.frexp_exponent(xp.abs(h)) - 1
    if lo is not None:
        below = (ops.frexp_mantissa(xp.abs(h)) == 0.5) & (lo != 0) & (xp.signbit(lo) != xp.signbit(h))
        e = e - ops.cast(below, ops.int64)
    return xp.where(hi == 0, fmt.emin, ops.clamp_min(e, fmt.emin))


def _flushed_or(hits: list[Hit], fl, check: str, mask, why: str, **kw) -> None:
    """A flushed subnormal is what broke, whichever check it broke."""
    hits.append(Hit(check, mask & ~fl, why, **kw))
    hits.append(Hit("subnormal", mask & fl, f"subnormal (flushed to zero): {why}", **kw))


def _exact_hits(cls: Classified, rest, fl, obs_f, exp_f) -> None:
    zeros = rest & (obs_f == 0) & (exp_f == 0)
    cls.signed_zero = zeros
    cls.hits += [
        Hit("signed_zero", zeros, "the sign of zero must match for an exact op"),
        Hit("subnormal", rest & ~zeros & fl,
            "a subnormal result was flushed to zero; the op is exact by definition"),
        Hit("exact", rest & ~zeros & ~fl, "{ulp} ulp; the op is exact by definition (bit-for-bit)",
            with_distance=True),
    ]


def _declared_hits(cls: Classified, ops, rest, fl, hi, p) -> None:
    hits, err, known = cls.hits, cls.err, cls.err_known
    if p.max_ulp is not None:
        _flushed_or(hits, fl, "ulp", rest & (cls.dist > p.max_ulp), f"{{ulp}} ulp > max_ulp {p.max_ulp}",
                    with_distance=True)
    if p.max_absolute is not None:
        _flushed_or(hits, fl, "bound", rest & known & (err > p.max_absolute),
                    f"|error| > max_absolute {p.max_absolute}", order=1)
    if p.max_relative is not None:
        rel = err / ops.xp.abs(hi)
        _flushed_or(hits, fl, "bound", rest & known & (hi != 0) & (rel > p.max_relative),
                    f"relative error > max_relative {p.max_relative}", order=2)
    if p.max_absolute is not None or p.max_relative is not None:
        _flushed_or(hits, fl, "bound", rest & ~known, "infinite error against a finite exact value", order=3)


def error_maxima(cls, hi, obs_f, tiny=None) -> tuple[float, float]:
    """(largest |error|, largest relative error) over the elements with a known error
    (``cls``: anything with ``err_known`` and ``err``, as ``Classified``)."""
    ops = ops_for(obs_f)
    xp = ops.xp
    known, err = cls.err_known, cls.err
    if not ops.count(known):
        return 0.0, 0.0
    with ops.quiet():
        abs_max = float(xp.where(known, err, 0.0).max())
        nz = known & (hi != 0)
        rel = xp.where(nz, err / xp.where(nz, xp.abs(hi), 1.0), 0.0)
        rel_max = float(rel.max()) if ops.count(nz) else 0.0
        if tiny is not None and ops.count(known & tiny):
            # |obs − exact| / |exact| is 1 for an observed zero and astronomically large otherwise
            t = known & tiny
            rel_max = max(rel_max, 1.0 if not ops.count(t & (obs_f != 0)) else float("inf"))
    return abs_max, rel_max


@dataclass
class VectorScore(Counts):
    """What scoring measured over all elements of one output."""

    ulp: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # finite pairs
    ulp_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))  # their elements
    ulp_real: np.ndarray = field(default_factory=lambda: np.zeros(0))  # unrounded, finite obs
    ulp_real_index: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    failing: dict[str, np.ndarray] = field(default_factory=dict)  # check -> element indices

    def ulp_real_rounded(self) -> list[float]:
        """The ULP-real errors as ``score_output`` records them (three decimals)."""
        return [round(float(v), 3) for v in self.ulp_real]

    def ulp_real_max(self) -> float | None:
        return round(float(self.ulp_real.max()), 3) if self.ulp_real.size else None


def score_elementwise(contract, opdef, rules, values, names, params, observed: np.ndarray,
                      expected: Expected, out_dtype: str, output: int = 0) -> VectorScore:
    """Score one elementwise output (numpy; any shape, flattened in C order) against the oracle."""
    fmt = get_format(out_dtype)
    obs_arr = np.ascontiguousarray(observed)
    n = obs_arr.size
    score = VectorScore(elements=n)
    if n == 0:
        return score
    obs_bits = obs_arr.view(fmt.bits_dtype).reshape(-1)
    exp_bits = np.asarray(expected.bits, dtype=fmt.bits_dtype).reshape(-1)
    if expected.has_alt is not None:
        # an observed result the contract admits beside the oracle's (either zero of an equal pair
        # under unordered zeros; score_output's ``admitted``) is the expected one there
        admitted = expected.has_alt & (obs_bits == np.asarray(expected.alt, dtype=fmt.bits_dtype))
        exp_bits = np.where(admitted, obs_bits, exp_bits)
    report = _Reporter(values, names, obs_bits, exp_bits, fmt, output, n)
    if not fmt.is_float:
        import oracles

        family = oracles.family_of(opdef.op_kind)
        with np.errstate(invalid="ignore"):  # NaN inputs cast to float64 for the mask
            nan_mask = rulebook.nan_involved(family, opdef, values, params, obs_arr.shape).reshape(-1)
        mism = obs_bits != exp_bits
        report.add(Hit("nan", mism & nan_mask, f"the NaN rule is {rules.nan.value} (from {rules.nan.source})"))
        report.add(Hit("exact", mism & ~nan_mask, "exact by definition (bit-for-bit)"))
        _emit(score, report, rules)
        return score
    with np.errstate(invalid="ignore"):
        obs_f = obs_arr.reshape(-1).astype(np.float64)
        exp_f = exp_bits.view(fmt.numpy_dtype).astype(np.float64)
    cls = classify(obs_bits=obs_bits, exp_bits=exp_bits, obs_f=obs_f, exp_f=exp_f, hi=expected.hi,
                   lo=expected.lo, has_exact=expected.has_exact, kind=bound_kind(contract, opdef),
                   precision=contract.precision, rules=rules, fmt=fmt,
                   daz=rulebook.subnormal_inputs(values, obs_arr.shape).reshape(-1))
    _measure(score, cls, expected, obs_f)
    for hit in cls.hits:
        report.add(hit, cls.dist)
    _emit(score, report, rules)
    return score


def _measure(score: VectorScore, cls: Classified, expected: Expected, obs_f) -> None:
    score.nan_mismatch = int(cls.nan.sum())
    score.ulp_index = np.flatnonzero(cls.finite_pair)
    score.ulp = cls.dist[score.ulp_index]
    score.ulp_real_index = np.flatnonzero(cls.err_known)
    score.ulp_real = cls.real[score.ulp_real_index]
    score.abs_max, score.rel_max = error_maxima(cls, expected.hi, obs_f, expected.tiny)
    for name, mask in (("inf_mismatch", cls.inf), ("signed_zero_mismatch", cls.signed_zero),
                       ("implausible", cls.implausible)):
        setattr(score, name, int(mask.sum()) if mask is not None else 0)


class _Reporter:
    """Collects failing elements per check, ordered as the per-element loop would meet them."""

    def __init__(self, values, names, obs_bits, exp_bits, fmt: Format, output: int, n: int):
        self.values, self.names = values, names
        self.obs_bits, self.exp_bits, self.fmt, self.output, self.n = obs_bits, exp_bits, fmt, output, n
        self.hits: dict[str, list[tuple[np.ndarray, str, np.ndarray | None]]] = {}
        self.first: dict[str, tuple[int, int]] = {}

    def add(self, hit: Hit, dist: np.ndarray | None = None) -> None:
        idx = np.flatnonzero(hit.mask)
        if not idx.size:
            return
        self.hits.setdefault(hit.check, []).append((idx, hit.why, dist if hit.with_distance else None))
        pos = (-1, 0) if hit.first else (int(idx[0]), hit.order)
        self.first[hit.check] = min(self.first.get(hit.check, pos), pos)

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


def _emit(score: VectorScore, report: _Reporter, rules) -> None:
    for check in report.checks():
        score.failing[check] = report.indices(check)
        finding = Finding(check, report.message(check))
        (score.reported if is_reported(check, rules) else score.findings).append(finding)
