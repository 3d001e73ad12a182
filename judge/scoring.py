"""Scoring: what the backend returned against the oracle and the contract (SPEC §4).

Per element, in this order: NaN-ness must match the oracle; where the op is exact by definition
(or the contract says ``bitwise``) the bits must match; otherwise the element must meet every
bound the contract declares, or — with none declared — the derived reduction bound (sums and
means) or the sanity bound. An element equal to the correctly rounded result always passes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from judge import ulp
from judge.contracts.model import RULE_MEANINGS, Contract
from judge.executor import Finding
from judge.formats import Format, get_format

REDUCTION_BOUND_OPS = {"SumReduce", "MeanReduce", "ReduceSumTo"}
_ELEMENTWISE = {"unary", "binary", "compare", "where", "affine", "clamp", "powi"}
_MAX_REPORTED = 3  # elements spelled out per failing check


@dataclass
class Score:
    """Everything measured on one case (one or more outputs)."""

    elements: int = 0
    ulp: list[int] = field(default_factory=list)  # integer ULP distances of finite elements
    ulp_real: list[float] = field(default_factory=list)
    rel_max: float = 0.0
    abs_max: float = 0.0
    nan_mismatch: int = 0
    inf_mismatch: int = 0
    signed_zero_mismatch: int = 0
    implausible: int = 0
    findings: list[Finding] = field(default_factory=list)
    reported: list[Finding] = field(default_factory=list)  # mismatches under an unspecified rule


def _f(x) -> float:
    """float() of an exact value, saturating to ±inf beyond F64's range instead of raising."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


def bound_kind(contract: Contract, opdef) -> str:
    """Which bound holds numeric elements: declared, exact, reduction or sanity."""
    if opdef.exact or contract.determinism == "bitwise":
        return "exact"
    if contract.precision.declares_bound:
        return "declared"
    if contract.op_kind in REDUCTION_BOUND_OPS:
        return "reduction"
    return "sanity"


def nan_involved(opdef, values: tuple[np.ndarray, ...], params: dict, out_shape: tuple[int, ...]) -> np.ndarray:
    """Output elements that a NaN input contributes to (to tell NaN-rule failures apart)."""
    masks = [np.isnan(v.astype(np.float64)) if v.dtype.kind == "f" or v.dtype.name == "bfloat16"
             else np.zeros(v.shape, bool) for v in values]
    family = opdef.family
    if family in _ELEMENTWISE:
        out = np.zeros(out_shape, bool)
        for m in masks:
            out = out | np.broadcast_to(m, out_shape)
        return out
    m = masks[0]
    if family in ("reduce", "argreduce"):
        dims = tuple(params.get("dims", ()))
        r = np.any(m, axis=dims, keepdims=bool(params.get("keepdim", False))) if dims else m
        return np.broadcast_to(r, out_shape)
    if family in ("reduce_to", "reduce_to_backward"):
        target = tuple(params["output_shape"])
        axes = tuple(a for a, (i, o) in enumerate(zip(m.shape, target, strict=True)) if o == 1 and i != 1)
        r = np.any(m, axis=axes, keepdims=True) if axes else m
        r = np.broadcast_to(r, m.shape) if family == "reduce_to_backward" else r
        if family == "reduce_to_backward":
            r = r | np.broadcast_to(np.isnan(values[1].astype(np.float64)).reshape(target), m.shape)
        return np.broadcast_to(r, out_shape)
    return np.zeros(out_shape, bool)


def _hex(bits: int, fmt: Format) -> str:
    return f"0x{bits:0{max(fmt.bits // 4, 1)}X}"


def _show(value, bits: int, fmt: Format) -> str:
    return f"{value!r} ({_hex(bits, fmt)})"


def _input_at(values: tuple[np.ndarray, ...], names: tuple[str, ...], index, out_shape, family) -> str:
    parts = []
    for name, v in zip(names, values, strict=True):
        if family in _ELEMENTWISE and v.ndim <= len(out_shape):
            b = np.asarray(np.broadcast_to(v, out_shape)[index] if out_shape else v[()])
            bits = int(b.view(_bits_dtype(b))) if b.dtype != np.bool_ else int(b)
            parts.append(f"{name}={b.item()!r} (0x{bits:X})")
        elif v.size <= 16:
            parts.append(f"{name}={v.astype(np.float64).tolist() if v.dtype != np.bool_ else v.tolist()}")
        else:
            parts.append(f"{name}=<{v.size} elements, see the repro>")
    return ", ".join(parts)


def _bits_dtype(v: np.ndarray) -> np.dtype:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[v.itemsize])


def score_output(contract: Contract, opdef, rules, values, names, params, observed: np.ndarray,
                 oracle_out, out_dtype: str, output: int, score: Score) -> None:
    """Score one output array against one oracle output; appends to ``score``."""
    fmt = get_format(out_dtype)
    expected = np.asarray(oracle_out.expected)
    shape = expected.shape
    n = expected.size
    score.elements += n
    if n == 0:
        return
    kind = bound_kind(contract, opdef)
    obs_bits = np.ascontiguousarray(observed).view(fmt.bits_dtype).reshape(-1)
    exp_bits = np.ascontiguousarray(expected).view(fmt.bits_dtype).reshape(-1)
    nan_mask = nan_involved(opdef, values, params, shape).reshape(-1)
    nan_rule = rules.nan
    failures: dict[str, list[str]] = {}

    def fail(check: str, i: int, why: str) -> None:
        idx = np.unravel_index(i, shape) if shape else ()
        idx = tuple(int(v) for v in idx)
        msgs = failures.setdefault(check, [])
        msgs.append(idx)  # type: ignore[arg-type]
        if len(msgs) <= _MAX_REPORTED:
            obs_v = observed.reshape(-1)[i].item()
            exp_v = expected.reshape(-1)[i].item()
            detail = (
                f"output {output} element {list(idx)}: inputs {_input_at(values, names, idx, shape, opdef.family)}; "
                f"expected {_show(exp_v, int(exp_bits[i]), fmt)}, observed {_show(obs_v, int(obs_bits[i]), fmt)}; {why}"
            )
            msgs[-1] = detail  # type: ignore[call-overload]

    if not fmt.is_float:
        for i in np.flatnonzero(obs_bits != exp_bits):
            i = int(i)
            check, why = _classify_integer_mismatch(opdef, values, params, shape, i, observed, expected)
            if check == "nan" or (check == "exact" and nan_mask[i] and opdef.family != "argreduce"):
                check, why = "nan", f"the NaN rule is {nan_rule.value} (from {nan_rule.source})"
            fail(check, i, why)
        _emit(score, failures, nan_rule, n)
        return

    obs_f = observed.astype(np.float64).reshape(-1)
    exp_f = expected.astype(np.float64).reshape(-1)
    obs_nan, exp_nan = np.isnan(obs_f), np.isnan(exp_f)
    admitted = _admitted(oracle_out, obs_f, n)
    for i in np.flatnonzero((obs_nan != exp_nan) & ~admitted):
        i = int(i)
        score.nan_mismatch += 1
        want = "NaN" if exp_nan[i] else "a number"
        fail("nan", i, f"expected {want}; NaN rule {nan_rule.value} (from {nan_rule.source})"
             + _rule_note(rules, "init") + _rule_note(rules, "order"))
    both = ~obs_nan & ~exp_nan
    same = (obs_bits == exp_bits) | admitted
    dist = ulp.ulp_distance(obs_bits, exp_bits, fmt)
    exact = oracle_out.exact.reshape(-1) if oracle_out.exact is not None else None
    terms = oracle_out.terms.reshape(-1) if oracle_out.terms is not None else None
    p = contract.precision
    for i in np.flatnonzero(both):
        i = int(i)
        d = int(dist[i])
        ex = exact[i] if exact is not None else None
        obs_inf, exp_inf = np.isinf(obs_f[i]), np.isinf(exp_f[i])
        if not obs_inf and not exp_inf:
            score.ulp.append(d)
        if ex is not None and not obs_inf:
            exq = ulp.as_fraction(ex)
            err = abs(Fraction(float(obs_f[i])) - exq)  # float64 holds every format's values exactly
            score.ulp_real.append(round(_f(err / ulp.ulp_of(exq, fmt)), 3))
            score.abs_max = max(score.abs_max, _f(err))
            if exq != 0:
                score.rel_max = max(score.rel_max, _f(err / abs(exq)))
        else:
            exq, err = None, None
        if same[i]:
            continue
        if obs_inf != exp_inf or (obs_inf and exp_inf):
            if ex is None or kind == "exact":
                score.inf_mismatch += 1
                fail("inf", i, "±inf must match the oracle exactly" + _rule_note(rules, "init")
                     + _rule_note(rules, "order"))
                continue
        if kind == "exact":
            if obs_f[i] == 0 and exp_f[i] == 0:
                score.signed_zero_mismatch += 1
                fail("signed_zero", i, "the sign of zero must match for an exact op" + _rule_note(rules, "zeros"))
            elif _flushed(obs_f[i], exp_f[i], fmt):
                fail("subnormal", i, "a subnormal result was flushed to zero; the op is exact by definition")
            else:
                fail("exact", i, f"{d} ulp; the op is exact by definition (bit-for-bit)")
            continue
        # a flushed subnormal is what broke, whichever bound it broke
        flushed = _flushed(obs_f[i], exp_f[i], fmt)
        named = "subnormal (flushed to zero): " if flushed else ""

        def check(name: str) -> str:
            return "subnormal" if flushed else name

        if kind == "declared":
            if p.max_ulp is not None and d > p.max_ulp:
                fail(check("ulp"), i, f"{named}{d} ulp > max_ulp {p.max_ulp}")
            if err is not None and p.max_absolute is not None and err > Fraction(p.max_absolute):
                fail(check("bound"), i, f"{named}|error| {_f(err):.3g} > max_absolute {p.max_absolute}")
            if err is not None and p.max_relative is not None and exq and err / abs(exq) > Fraction(p.max_relative):
                fail(check("bound"), i, f"{named}relative error {_f(err / abs(exq)):.3g} > max_relative {p.max_relative}")
            if err is None and (p.max_absolute is not None or p.max_relative is not None):
                fail("bound", i, "infinite error against a finite exact value")
            continue
        if kind == "reduction" and terms is not None:
            count, abs_sum = terms[i]
            acc = get_format(oracle_out.acc_format or fmt.name)
            u = Fraction(1, 2 ** acc.precision)
            bound = (max(count - 1, 0) * u * abs_sum) / (count if contract.op_kind == "MeanReduce" and count else 1)
            bound += ulp.ulp_of(exq if exq is not None else Fraction(0), fmt)
            if err is None or err > bound:
                fail(check("reduction_bound"), i, f"{named}|error| {_f(err) if err is not None else 'inf'} > derived bound "
                     f"(n-1)·u_acc·Σ|x|+ulp = {_f(bound):.3g} (n={count}, accumulator {acc.name})"
                     + _rule_note(rules, "order"))
            continue
        limit = 2.0 ** (-fmt.precision / 2) * max(1.0, abs(_f(exq))) if exq is not None else None
        if err is None or _f(err) > limit:
            score.implausible += 1
            fail(check("implausible"), i, f"{named}error beyond the sanity bound 2^(-p/2)·max(1,|exact|) (p={fmt.precision})")
    _emit(score, failures, nan_rule, n)


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


def _flushed(observed: float, expected: float, fmt: Format) -> bool:
    """A nonzero subnormal expected, zero observed: flush-to-zero, whatever rule was in play."""
    return observed == 0 and expected != 0 and abs(expected) < 2.0 ** fmt.emin


def _rule_note(rules, key: str) -> str:
    """The edge rule that decided which results are admitted, and the contract text it came from."""
    rule = rules.get(key) if hasattr(rules, key) else None
    if rule is None or rule.value == "unspecified":
        return ""
    quote = f": {rule.evidence!r}" if rule.source in ("blurb", "notes") else ""
    return f"; {key} {rule.value} (from {rule.source}{quote}; admits {RULE_MEANINGS.get((key, rule.value), '')})"


def _classify_integer_mismatch(opdef, values, params, shape, i, observed, expected) -> tuple[str, str]:
    """Index reductions: an observed index whose value equals the expected one is a tie failure."""
    if opdef.family == "argreduce":
        dim = params["dims"][0]
        x = values[0]
        idx = list(np.unravel_index(i, shape)) if shape else []
        got, want = int(observed.reshape(-1)[i]), int(expected.reshape(-1)[i])
        if 0 <= got < x.shape[dim]:
            a = x[tuple(idx[:dim] + [got] + idx[dim:])]
            b = x[tuple(idx[:dim] + [want] + idx[dim:])]
            if a != a or b != b:  # what broke is which NaN (or number) the NaN rule picks
                return "nan", ""
            if a == b:
                return "ties", "equal values: the tie rule picks the first index"
    return "exact", "exact by definition (bit-for-bit)"


def _emit(score: Score, failures: dict[str, list[str]], nan_rule, n: int) -> None:
    for check, msgs in failures.items():
        shown = "\n    ".join(str(m) for m in msgs[:_MAX_REPORTED])
        more = f"\n    (+{len(msgs) - _MAX_REPORTED} more)" if len(msgs) > _MAX_REPORTED else ""
        finding = Finding(check, f"{check}: {len(msgs)} of {n} element(s)\n    {shown}{more}")
        if check == "nan" and nan_rule.value == "unspecified":
            score.reported.append(finding)
        else:
            score.findings.append(finding)
