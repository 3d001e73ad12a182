"""Pair sweeps of the extrema and the remainder (``judge sweep --pairs``): their certified references
held to the pure oracle on every special pair, either zero of max(+0, -0) admitted under unordered
zeros and only there, and kernels written with a realistic bug caught by the array passes and
by the fused twin alike."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import oracles
from judge.api import Backend
from judge.sweep import fused, pair_reference, pairs
from oracles.fast import pure
from oracles.fast.pairs import _pure, values_of

FORMATS = ("F16", "BF16")
RULES = [("MaximumElementwise", {}), ("MinimumElementwise", {}),
         ("MaximumElementwise", {"nan": "ignore", "zeros": "ordered"}),
         ("MinimumElementwise", {"nan": "ignore"}),
         ("RemElementwise", {}), ("RemElementwise", {"remainder": "truncated"})]
WAYS = [False] + ([True] if fused.fused_unavailable("cpu") is None else [])


def _specials(fmt: str) -> np.ndarray:
    """±0, ±inf, NaN, ±1, ±min and ±max subnormal, ±min normal, ±max finite, ±0.5, ±3."""
    table = values_of(fmt)
    finite = np.isfinite(table)
    mags = np.abs(table)
    picks = [0.0, np.inf, 1.0, 0.5, 3.0, mags[finite & (table != 0)].min(), mags[finite].max(),
             2.0 ** (-14 if fmt == "F16" else -126)]
    out = [int(np.flatnonzero(table == v)[0]) for v in picks]
    out += [(0x0400 if fmt == "F16" else 0x0080) - 1, int(np.flatnonzero(np.isnan(table))[0])]
    return np.unique(np.array(out + [b | 0x8000 for b in out], np.uint16))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("op_kind, rules", RULES, ids=[f"{k}-{'-'.join(r.values()) or 'defaults'}" for k, r in RULES])
def test_the_reference_is_the_pure_oracle_on_every_special_pair_and_samples(op_kind, rules, fmt):
    rng = np.random.default_rng(11)
    s = _specials(fmt)
    a = np.concatenate([np.repeat(s, s.size), rng.integers(0, 1 << 16, 20000).astype(np.uint16)])
    b = np.concatenate([np.tile(s, s.size), rng.integers(0, 1 << 16, 20000).astype(np.uint16)])
    # divisors near the dividend: floored remainders that add the divisor back, and round (BF16)
    b = np.concatenate([b, ((a.astype(np.int64) ^ 0x8000) + rng.integers(-300, 300, a.size)).astype(np.uint16)])
    a = np.concatenate([a, a])
    evaluate = pure(oracles.get(op_kind).evaluate)
    bits, hi, lo = pair_reference.reference(op_kind, a, b, fmt, rules, evaluate)
    out = _pure(op_kind, a, b, fmt, rules, evaluate)
    want = np.asarray(out.expected).view(np.uint16).reshape(-1)
    table = values_of(fmt)
    same = (bits == want) | (np.isnan(table[bits]) & np.isnan(table[want]))
    assert same.all(), [(hex(int(x)), hex(int(y))) for x, y in zip(a[~same][:5], b[~same][:5], strict=True)]
    # the exact value: hi + lo is the remainder itself wherever it is finite (ULP-real errors)
    exact = np.asarray(out.exact, dtype=object).reshape(-1)
    for k in rng.choice(np.flatnonzero(np.isfinite(hi)), 300, replace=False):
        if exact[k] is not None:
            from fractions import Fraction

            assert Fraction(hi[k]) + Fraction(lo[k]) == Fraction(exact[k]), (hex(a[k]), hex(b[k]))
    # what the contract admits beside the result: the other zero of (+0, -0), only if unordered
    alternative = pair_reference.admitted(op_kind, a, b, fmt, rules)
    zeros = ((a & 0x7FFF) == 0) & ((b & 0x7FFF) == 0) & (a != b)
    if op_kind == "RemElementwise" or rules.get("zeros") == "ordered":
        assert alternative is None
    else:
        alt, has = alternative
        assert np.array_equal(has, zeros) and zeros.any()
        assert (alt[has] ^ bits[has] == 0x8000).all()


def _contract(suite, name: str, **semantics):
    (c,) = [c for c in suite.find(name) if c.file.endswith("elementwise-binary.fkc.md")]
    if not semantics:
        return c
    from judge.contracts.model import Rule

    changed = {k: Rule(v, "semantics") for k, v in semantics.items()}
    return dataclasses.replace(c, semantics=dataclasses.replace(c.semantics, **changed))


class Written(Backend):
    """A kernel as an outside author writes it: a binary64 expression, rounded to the format."""

    device = "cpu"

    def __init__(self, name: str, fn):
        self.name, self.fn = name, fn

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        with np.errstate(all="ignore"):
            x, y = (t.to_array().astype(np.float64) for t in call.inputs)
            z = np.asarray(self.fn(x, y)).astype(call.inputs[0].to_array().dtype)
        return [z]


def _select_max(x, y):
    """``x >= y ? x : y``, NaN first: max(-0, +0) is -0, one of the zeros either rule admits."""
    return np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x >= y, x, y))


def _flooring_by_division(x, y):
    """x - floor(x / y) * y: the textbook formula."""
    return x - np.floor(x / y) * y


# (kernel, changed rule, backend, dtype, the checks it must fail: empty = a pass)
CASES = [
    ("maximum_elementwise_cpu", {}, Written("select-max", _select_max), "F16", set()),
    ("maximum_elementwise_cpu", {"zeros": "ordered"}, Written("select-max", _select_max), "F16", {"signed_zero"}),
    ("maximum_elementwise_cpu", {}, Written("fmax", np.fmax), "BF16", {"nan"}),
    ("minimum_elementwise_cpu", {}, Written("minimum", np.minimum), "BF16", set()),
    ("minimum_elementwise_cpu", {"nan": "ignore"}, Written("minimum", np.minimum), "F16", {"nan"}),
    # the truncated remainder where the floored one is promised: off by the divisor (implausible,
    # rem having no declared bound) and -1 % inf is inf, not -1
    ("rem_elementwise_cpu", {}, Written("fmod", np.fmod), "F16", {"implausible", "inf"}),
    ("rem_elementwise_cpu", {}, Written("remainder", np.remainder), "F16", set()),
    ("rem_elementwise_cpu", {"remainder": "truncated"}, Written("fmod", np.fmod), "BF16", set()),
    # exact enough in binary64 for F16 operands, but NaN where the divisor is infinite
    ("rem_elementwise_cpu", {}, Written("floor-div", _flooring_by_division), "F16", {"nan"}),
]
# x = -0, 1.0 and -3.0 against every y (2^16 pairs each)
CHUNKS = {"F16": [0x8000, 0x3C00, 0xC200], "BF16": [0x8000, 0x3F80, 0xC040]}


@pytest.mark.parametrize("fused_path", WAYS, ids=lambda f: "fused" if f else "array")
@pytest.mark.parametrize("kernel, rules, backend, dtype, fails", CASES,
                         ids=[f"{c[0].split('_')[0]}-{c[2].name}-{'-'.join(c[1].values()) or 'defaults'}-{c[3]}"
                              for c in CASES])
def test_a_written_kernel_gets_its_verdict(suite, kernel, rules, backend, dtype, fails, fused_path):
    contract = _contract(suite, kernel, **rules)
    result = pairs.sweep_pairs(contract, backend, dtype, chunk_log2=16, chunks=CHUNKS[dtype], fused=fused_path)
    failed = {check for check, n in result.metrics["checks"].items() if n}
    assert failed == fails, result.summary()
    assert result.row.verdict == ("fail" if fails else "pass"), result.summary()


def test_extrema_and_the_remainder_can_be_pair_swept(suite):
    from backends.numpy_backend import NumpyBackend

    for name in ("maximum_elementwise_cpu", "minimum_elementwise_cpu", "rem_elementwise_cpu"):
        for dtype in FORMATS:
            assert pairs.pair_support(_contract(suite, name), NumpyBackend(), dtype) is True, name


@pytest.mark.parametrize("fused_path", WAYS, ids=lambda f: "fused" if f else "array")
def test_a_failing_pair_sweep_records_its_first_failing_pair_as_a_replayable_case(suite, fused_path):
    from judge.cases import CaseRecord
    from judge.drivers.case import case_from_record, judge_case

    contract = _contract(suite, "rem_elementwise_cpu")
    backend = Written("fmod", np.fmod)
    result = pairs.sweep_pairs(contract, backend, "F16", chunk_log2=16, chunks=CHUNKS["F16"], fused=fused_path)
    case = result.case
    assert result.row.verdict == "fail" and result.row.counterexample == case.case_id
    assert f"judge repro {case.case_id}" in result.summary()
    first = result.message.split("first at ")[1].split(":")[0]  # "(x, y) = (... (0xXXXX), ... (0xYYYY))"
    x, y = (t.to_array().reshape(-1).view(np.uint16)[0] for t in case.inputs)
    assert first == pairs.describe_pair("F16")((int(x) << 16) | int(y))
    again = CaseRecord.from_bytes(case.to_bytes())
    outcome = judge_case(contract, backend, case_from_record(again), oracles.get(contract.op_kind), repeats=0)
    assert case.check in {f.check for f in outcome.findings}
