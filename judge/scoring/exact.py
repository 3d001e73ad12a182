"""The per-element scorer: one output of a generated case against the oracle, in exact
arithmetic (``Fraction``), with the rules of ``judge.scoring.rules``.

Right for a search's cases of a few hundred elements; sweeps use ``judge.scoring.vector``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from judge.executor import Finding
from judge.scoring.bound_use import BoundUse
from judge.scoring.bound_use import as_float as _f
from judge.scoring.describe import bits_dtype, describe_bits
from judge.scoring.rules import (
    MAX_REPORTED,
    Counts,
    bound_kind,
    flushed,
    is_reported,
    keeps_subnormals,
    nan_involved,
    rule_note,
    sanity_factor,
    sanity_text,
    subnormal_inputs,
)
from numerics import ulp
from numerics.formats import Format, get_format


@dataclass
class Score(Counts):
    """Everything measured on one case (one or more outputs)."""

    ulp: list[int] = field(default_factory=list)  # integer ULP distances of finite elements
    ulp_real: list[float] = field(default_factory=list)
    bound_used: float | None = None  # max over elements of |error| / their bound (None: exact op)
    admitted_ulp: int = -1  # the largest ULP distance of an admitted alternative result

    def aim(self) -> list[int]:
        """The distances the search aims at: every measured one and the admitted ones'."""
        return self.ulp + [self.admitted_ulp] if self.admitted_ulp >= 0 else self.ulp


def _input_at(values: tuple[np.ndarray, ...], names: tuple[str, ...], index, out_shape,
              elementwise: bool) -> str:
    """The inputs behind output element ``index``: each one's element there where the family
    is elementwise, else the whole operand (small ones spelled out)."""
    parts = []
    for name, v in zip(names, values, strict=True):
        if elementwise and v.ndim <= len(out_shape):
            b = np.asarray(np.broadcast_to(v, out_shape)[index] if out_shape else v[()])
            bits = int(b.view(bits_dtype(b.itemsize))) if b.dtype != np.bool_ else int(b)
            parts.append(f"{name}={b.item()!r} (0x{bits:X})")
        elif v.size <= 16:
            with np.errstate(invalid="ignore"):  # a signalling NaN widens to a quiet one: still NaN
                shown = v.astype(np.float64).tolist() if v.dtype != np.bool_ else v.tolist()
            parts.append(f"{name}={shown}")
        else:
            parts.append(f"{name}=<{v.size} elements, see the repro>")
    return ", ".join(parts)


@dataclass
class _Output:
    """One output being scored, and the failures found on it so far (per check, in order)."""

    contract: object
    opdef: object
    family: object
    rules: object
    values: tuple
    names: tuple
    params: dict
    observed: np.ndarray
    expected: np.ndarray
    fmt: Format
    output: int
    kind: str
    obs_bits: np.ndarray
    exp_bits: np.ndarray
    failures: dict[str, list] = field(default_factory=dict)
    _flush_evidence: tuple | None = None

    def flushed(self, i: int, obs: float, exp: float) -> bool:
        """``rules.flushed`` with this output's evidence: in an elementwise family, a subnormal
        input of element i; elsewhere (an element may come from anywhere in the inputs) no
        flush in an output that keeps a subnormal."""
        if self._flush_evidence is None:
            shape = self.expected.shape
            daz = (subnormal_inputs(self.values, shape).reshape(-1) if self.family.elementwise
                   else np.zeros(self.expected.size, bool))
            self._flush_evidence = (daz, not self.family.elementwise and keeps_subnormals(self.observed, self.fmt))
        daz, keeps = self._flush_evidence
        return not keeps and bool(flushed(obs, exp, self.fmt, bool(daz[i])))

    def fail(self, check: str, i: int, why: str) -> None:
        shape = self.expected.shape
        idx = tuple(int(v) for v in (np.unravel_index(i, shape) if shape else ()))
        msgs = self.failures.setdefault(check, [])
        msgs.append(idx)
        if len(msgs) <= MAX_REPORTED:
            inputs = _input_at(self.values, self.names, idx, shape, self.family.elementwise)
            msgs[-1] = (f"output {self.output} element {list(idx)}: inputs {inputs}; expected "
                        f"{describe_bits(int(self.exp_bits[i]), self.fmt)}, observed "
                        f"{describe_bits(int(self.obs_bits[i]), self.fmt)}; {why}")

    def note(self, *keys: str) -> str:
        return "".join(rule_note(self.rules, k) for k in keys)


def score_output(contract, opdef, rules, values, names, params, observed: np.ndarray,
                 oracle_out, out_dtype: str, output: int, score: Score) -> None:
    """Score one output array against one oracle output; appends to ``score``."""
    import oracles

    fmt = get_format(out_dtype)
    expected = np.asarray(oracle_out.expected)
    n = expected.size
    score.elements += n
    if n == 0:
        return
    out = _Output(contract, opdef, oracles.family_of(opdef.op_kind), rules, values, names, params,
                  observed, expected, fmt, output, bound_kind(contract, opdef),
                  np.ascontiguousarray(observed).view(fmt.bits_dtype).reshape(-1),
                  np.ascontiguousarray(expected).view(fmt.bits_dtype).reshape(-1))
    if not fmt.is_float:
        _score_integers(out)
    else:
        _score_floats(out, oracle_out, score)
    _emit(score, out.failures, rules, n)


def _score_integers(out: _Output) -> None:
    """Integer and BOOL outputs: bit for bit. A mismatch the OpKind's family explains (an index
    reduction's tie) is what it says; otherwise one a NaN input reaches is a NaN failure."""
    shape = out.expected.shape
    nan_mask = nan_involved(out.family, out.opdef, out.values, out.params, shape).reshape(-1)
    nan_rule = out.rules.nan
    nan_why = f"the NaN rule is {nan_rule.value} (from {nan_rule.source})"
    for i in np.flatnonzero(out.obs_bits != out.exp_bits):
        i = int(i)
        explained = out.family.explain_mismatch(out.opdef, out.values, out.params, shape, i,
                                                out.observed, out.expected)
        if explained is None:
            check, why = ("nan", nan_why) if nan_mask[i] else ("exact", "exact by definition (bit-for-bit)")
        else:
            check, why = explained
            why = nan_why if check == "nan" else why
        out.fail(check, i, why)


def _score_floats(out: _Output, oracle_out, score: Score) -> None:
    n = out.expected.size
    with np.errstate(invalid="ignore"):  # a signalling NaN widens to a quiet one: NaN-ness kept
        obs_f = out.observed.astype(np.float64).reshape(-1)
        exp_f = out.expected.astype(np.float64).reshape(-1)
    obs_nan, exp_nan = np.isnan(obs_f), np.isnan(exp_f)
    admitted = _admitted(oracle_out, obs_f, n)
    nan_rule = out.rules.nan
    for i in np.flatnonzero((obs_nan != exp_nan) & ~admitted):
        i = int(i)
        score.nan_mismatch += 1
        want = "NaN" if exp_nan[i] else "a number"
        if out.opdef.copies_bits:  # a copy has no NaN rule: a NaN out of place is a wrong value
            out.fail("exact", i, f"expected {want}; the op copies bits (bit-for-bit)")
            continue
        out.fail("nan", i, f"expected {want}; NaN rule {nan_rule.value} (from {nan_rule.source})"
                 + out.note("init", "order"))
    if out.opdef.copies_bits:
        _judge_payloads(out, obs_nan & exp_nan)
    # An admitted alternative (an overflowed sum's ±inf, a norm's ±0) is not an approximation
    # of the exact value: it is judged by no bound and measured by none (its ULP distance, often
    # saturated, would hide the kernel's accuracy), but the search still aims at it.
    same = (out.obs_bits == out.exp_bits) | admitted
    dist = ulp.ulp_distance(out.obs_bits, out.exp_bits, out.fmt)
    other = admitted & (dist != 0)  # (either zero of an equal pair is 0 ulp away: measured)
    exact = oracle_out.exact.reshape(-1) if oracle_out.exact is not None else None
    terms = oracle_out.terms.reshape(-1) if oracle_out.terms is not None else None
    same_l, dist_l, obs_l, exp_l = same.tolist(), dist.tolist(), obs_f.tolist(), exp_f.tolist()
    use = BoundUse(out, oracle_out.acc_format) if out.kind != "exact" else None
    for i in np.flatnonzero(~obs_nan & ~exp_nan).tolist():
        ex = exact[i] if exact is not None else None
        term = terms[i] if terms is not None else None
        if other[i]:
            if np.isfinite(obs_f[i]) and np.isfinite(exp_f[i]):
                score.admitted_ulp = max(score.admitted_ulp, dist_l[i])
            continue
        if same_l[i]:
            handled, err_f = _measure_dyadic(score, out.fmt, dist_l[i], ex, obs_l[i], exp_l[i])
            if handled:
                if use is not None and err_f is not None:
                    use.add(score, dist_l[i], ex, err_f, term)
                continue
        exq, err = _measure(score, out.fmt, int(dist[i]), ex, obs_f[i], exp_f[i])
        if use is not None and err is not None:
            finite = not (np.isinf(obs_f[i]) or np.isinf(exp_f[i]))
            use.add(score, int(dist[i]) if finite else None, ex, _f(err), term)
        if not same[i]:
            _judge_element(out, score, i, int(dist[i]), ex, exq, err, obs_f[i], exp_f[i],
                           term, oracle_out.acc_format)


def _judge_payloads(out: _Output, both_nan: np.ndarray) -> None:
    """A copy must carry a NaN's bits unchanged: sign, quiet bit and payload."""
    for i in np.flatnonzero(both_nan & (out.obs_bits != out.exp_bits)):
        out.fail("payload", int(i), "the op copies bits: a NaN's sign, quiet bit and payload "
                 "must arrive unchanged")


def _measure(score: Score, fmt: Format, d: int, ex, obs: float, exp: float):
    """Record the element's ULP distance and errors; returns (exact value, |error|) or Nones."""
    obs_inf, exp_inf = np.isinf(obs), np.isinf(exp)
    if not obs_inf and not exp_inf:
        score.ulp.append(d)
    if ex is None or obs_inf:
        return None, None
    exq = ulp.as_fraction(ex)
    err = abs(Fraction(float(obs)) - exq)  # float64 holds every format's values exactly
    score.ulp_real.append(round(_f(err / ulp.ulp_of(exq, fmt)), 3))
    score.abs_max = max(score.abs_max, _f(err))
    if exq != 0:
        score.rel_max = max(score.rel_max, _f(err / abs(exq)))
    return exq, err


def _scaled(n: int, k: int, d: int = 1) -> float:
    """n · 2^k / d as the nearest float (saturating to inf), as ``float()`` of that Fraction
    gives: an int divided by an int is correctly rounded."""
    try:
        return (n << k) / d if k >= 0 else n / (d << -k)
    except OverflowError:
        return math.inf


def _measure_dyadic(score: Score, fmt: Format, d: int, ex, obs: float, exp: float) -> tuple[bool, float | None]:
    """``_measure`` in integer arithmetic, where the exact value is dyadic (a float, an mpf or a
    power-of-two Fraction): the same numbers bit for bit, for a tenth of the cost of Fractions.
    Returns (False, None), having recorded nothing, where it cannot tell (the caller measures
    then); else (True, |error| as a float, or None where no error is known)."""
    obs_inf = math.isinf(obs)
    x = None
    if ex is not None and not obs_inf:
        x = ulp.dyadic(ex)
        if x is None:
            return False, None
    if not obs_inf and not math.isinf(exp):
        score.ulp.append(d)
    if x is None:
        return True, None
    nx, ex2 = x
    no, eo = ulp.dyadic(obs)
    e = min(ex2, eo)
    err = abs((no << (eo - e)) - (nx << (ex2 - e)))  # |obs − exact| = err · 2^e
    top = fmt.emin if nx == 0 else max(abs(nx).bit_length() - 1 + ex2, fmt.emin)
    q = top - fmt.precision + 1  # ulp_F(exact) = 2^q
    score.ulp_real.append(round(_scaled(err, e - q), 3))
    abs_err = _scaled(err, e)
    score.abs_max = max(score.abs_max, abs_err)
    if nx:  # err · 2^e / (|nx| · 2^ex2)
        score.rel_max = max(score.rel_max, _scaled(err, e - ex2, abs(nx)))
    return True, abs_err


def _judge_element(out: _Output, score: Score, i: int, d: int, ex, exq, err, obs: float, exp: float,
                   terms, acc_format) -> None:
    """One element whose bits differ from the correctly rounded result: which rule it breaks."""
    obs_inf, exp_inf = np.isinf(obs), np.isinf(exp)
    if (obs_inf != exp_inf or (obs_inf and exp_inf)) and (ex is None or out.kind == "exact"):
        score.inf_mismatch += 1
        out.fail("inf", i, "±inf must match the oracle exactly" + out.note("init", "order"))
        return
    if out.kind == "exact":
        _judge_exact(out, score, i, d, obs, exp)
        return
    # a flushed subnormal is what broke, whichever bound it broke
    is_flushed = out.flushed(i, obs, exp)
    named = "subnormal (flushed to zero): " if is_flushed else ""

    def check(name: str) -> str:
        return "subnormal" if is_flushed else name

    if out.kind == "declared":
        _judge_declared(out, i, d, exq, err, check, named)
    elif out.kind == "reduction" and terms is not None:
        _judge_reduction(out, i, exq, err, terms, acc_format, check, named)
    else:  # sanity; also a reduction whose oracle gave no terms
        limit = sanity_factor(out.fmt) * max(1.0, abs(_f(exq))) if exq is not None else None
        if err is None or _f(err) > limit:
            score.implausible += 1
            out.fail(check("implausible"), i, f"{named}{sanity_text(out.fmt)}")


def _judge_exact(out: _Output, score: Score, i: int, d: int, obs: float, exp: float) -> None:
    if obs == 0 and exp == 0:
        score.signed_zero_mismatch += 1
        out.fail("signed_zero", i, "the sign of zero must match for an exact op" + out.note("zeros"))
    elif out.flushed(i, obs, exp):
        out.fail("subnormal", i, "a subnormal result was flushed to zero; the op is exact by definition")
    else:
        out.fail("exact", i, f"{d} ulp; the op is exact by definition (bit-for-bit)")


def _judge_declared(out: _Output, i: int, d: int, exq, err, check, named: str) -> None:
    p = out.contract.precision
    if p.max_ulp is not None and d > p.max_ulp:
        out.fail(check("ulp"), i, f"{named}{d} ulp > max_ulp {p.max_ulp}")
    if err is not None and p.max_absolute is not None and err > Fraction(p.max_absolute):
        out.fail(check("bound"), i, f"{named}|error| {_f(err):.3g} > max_absolute {p.max_absolute}")
    if err is not None and p.max_relative is not None and exq and err / abs(exq) > Fraction(p.max_relative):
        out.fail(check("bound"), i, f"{named}relative error {_f(err / abs(exq)):.3g} > max_relative {p.max_relative}")
    if err is None and (p.max_absolute is not None or p.max_relative is not None):
        out.fail("bound", i, "infinite error against a finite exact value")


def _judge_reduction(out: _Output, i: int, exq, err, terms, acc_format, check, named: str) -> None:
    """SPEC §4's derived bound of a sum (or mean): (n-1)·u_acc·Σ|x| (/ n) + one ulp."""
    count, abs_sum = terms
    fmt = out.fmt
    acc = get_format(acc_format or fmt.name)
    u = Fraction(1, 2 ** acc.precision)
    mean = out.opdef.reduction_bound == "mean"
    bound = (max(count - 1, 0) * u * abs_sum) / (count if mean and count else 1)
    bound += ulp.ulp_of(exq if exq is not None else Fraction(0), fmt)
    if err is None or err > bound:
        out.fail(check("reduction_bound"), i, f"{named}|error| {_f(err) if err is not None else 'inf'} > derived bound "
                 f"(n-1)·u_acc·Σ|x|+ulp = {_f(bound):.3g} (n={count}, accumulator {acc.name})"
                 + out.note("order"))


def _admitted(oracle_out, obs_f: np.ndarray, n: int) -> np.ndarray:
    """Elements whose observed value is one of the further results the contract admits
    (``OracleOutput.admitted``: e.g. either zero of an equal pair, an overflowed sum)."""
    out = np.zeros(n, bool)
    alternatives = getattr(oracle_out, "admitted", None)
    if alternatives is None:
        return out
    for i, alts in enumerate(alternatives.reshape(-1)):
        o = float(obs_f[i])
        for a in alts or ():
            if (a != a and o != o) or (a == o and math.copysign(1.0, a) == math.copysign(1.0, o)):
                out[i] = True
                break
    return out


def _emit(score: Score, failures: dict[str, list], rules, n: int) -> None:
    for check, msgs in failures.items():
        shown = "\n    ".join(str(m) for m in msgs[:MAX_REPORTED])
        more = f"\n    (+{len(msgs) - MAX_REPORTED} more)" if len(msgs) > MAX_REPORTED else ""
        finding = Finding(check, f"{check}: {len(msgs)} of {n} element(s)\n    {shown}{more}")
        (score.reported if is_reported(check, rules) else score.findings).append(finding)
