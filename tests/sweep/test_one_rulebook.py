"""One rulebook: the search's scorer, the 16-bit sweeps' scorer and the F32 sweep's chunk scorer
give the same verdict on the same outputs, for every kind of check.

Each scenario takes the correctly rounded F32 answer of exp on a few inputs (ordinary values,
NaN, ±inf, ±0, an overflow, an underflow), puts one fault into it, and judges it three ways:

- ``judge.scoring.exact.score_output`` (per element, exact arithmetic: the search);
- ``judge.scoring.vector.score_elementwise`` on the oracle table's arrays (the 16-bit sweeps);
- ``judge.scoring.tally.add_chunk`` on numpy arrays with the F64 reference the F32 sweep uses,
  exactly as the F32 sweep calls it on GPU tensors.

The findings of each go through ``judge.verdict`` with the same known divergences. Every
scenario states the verdict it must get, so a scorer that lets a fault through (or fails a clean
output) fails here, whichever of the three it is.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import oracles
from judge import verdict
from judge.contracts.model import Rule
from judge.expectations import Expectation, Expectations
from judge.scoring import Score, score_output
from judge.scoring.rules import bound_kind
from judge.scoring.tally import Tally, add_chunk, findings
from judge.scoring.vector import Expected, score_elementwise
from judge.sweep.tables import expected_arrays
from numerics.formats import get_format

X = np.array([1.0, 5.0, 0.5, -1.0, math.nan, math.inf, -math.inf, 0.0, -0.0, 100.0, -200.0,
              2.0, 10.0, -3.0], dtype=np.float32)
AT = {float(v): i for i, v in enumerate(X) if v == v}  # input value -> its element
NAN_AT = 4


class Stub:
    name = "stub"
    device = "cpu"

    def describe(self) -> str:
        return "stub 1.0"


def _contract(reference, *, precision=None, nan=None, determinism=None):
    c = reference("exp")
    changes = {}
    if precision is not None:
        bounds = {"max_ulp": None, "max_relative": None, "max_absolute": None, **precision}
        changes["precision"] = dataclasses.replace(c.precision, **bounds)
    if nan is not None:
        changes["semantics"] = dataclasses.replace(c.semantics, nan=Rule(nan, nan))
    if determinism is not None:
        changes["determinism"] = determinism
    return dataclasses.replace(c, **changes)


def _oracle(contract):
    return oracles.evaluate("ExpElementwise", [X], {}, ["F32"], contract.semantics.values())[0]


def _nudge(bits: np.ndarray, at: int, ulps: int) -> np.ndarray:
    out = bits.view(np.int32).copy()
    out[at] += ulps
    return out.view(np.uint32)


def _set(bits: np.ndarray, at: int, value: float) -> np.ndarray:
    out = bits.copy()
    out[at] = np.array([value], np.float32).view(np.uint32)[0]
    return out


def _search(contract, ref, observed):
    score = Score()
    opdef = oracles.get("ExpElementwise")
    score_output(contract, opdef, contract.semantics, (X,), ("x",), {}, observed, ref, "F32", 0, score)
    return score.findings, score.reported


def _sweep16(contract, ref, observed):
    s = score_elementwise(contract, oracles.get("ExpElementwise"), contract.semantics, (X,), ("x",), {},
                          observed, Expected(*expected_arrays(ref, "F32")), "F32")
    return s.findings, s.reported


def _sweep_f32(contract, ref, observed):
    bits, hi, _lo, _has, _tiny = expected_arrays(ref, "F32")
    tally = Tally(get_format("F32"))
    add_chunk(tally, 0, X.view(np.int32), observed.view(np.int32), bits.view(np.int32), hi,
              kind=bound_kind(contract, oracles.get("ExpElementwise")), precision=contract.precision,
              rules=contract.semantics, describe_input=lambda b: f"x=0x{b & 0xFFFFFFFF:08X}")
    return findings(tally, contract.semantics)


def _verdicts(contract, fault, known=()):
    """(verdict, failing checks, reported checks) of each scorer."""
    ref = _oracle(contract)
    observed = fault(np.ascontiguousarray(ref.expected).view(np.uint32)).view(np.float32)
    entries = tuple(Expectation("exp", "stub", "F32", check, "known") for check in known)
    expected = verdict.known_divergences(Expectations(entries), contract, Stub(), "F32")
    out = {}
    for name, scorer in (("search", _search), ("sweep16", _sweep16), ("sweep_f32", _sweep_f32)):
        failed, reported = scorer(contract, ref, observed)
        unexpected, seen = verdict.split(failed, expected)
        v, _ = verdict.decide(unexpected, expected, seen)
        out[name] = (v, sorted({f.check for f in failed}), sorted({f.check for f in reported}))
    return out


SCENARIOS = {
    # name: (contract changes, fault, known divergences, verdict, failing checks, reported checks)
    "clean": ({}, lambda b: b, (), "pass", [], []),
    "ulp bound": ({"precision": {"max_ulp": 1}}, lambda b: _nudge(b, AT[5.0], 3), (), "fail", ["ulp"], []),
    "ulp within bound": ({"precision": {"max_ulp": 1}}, lambda b: _nudge(b, AT[5.0], 1), (), "pass", [], []),
    "relative bound": ({"precision": {"max_relative": 1e-6}}, lambda b: _nudge(b, AT[1.0], 30), (),
                       "fail", ["bound"], []),
    "relative within bound": ({"precision": {"max_relative": 1e-6}}, lambda b: _nudge(b, AT[1.0], 2),
                              (), "pass", [], []),
    "absolute bound": ({"precision": {"max_absolute": 1e-3}}, lambda b: _nudge(b, AT[5.0], 100), (),
                       "fail", ["bound"], []),
    "absolute within bound": ({"precision": {"max_absolute": 1e-3}}, lambda b: _nudge(b, AT[5.0], 20),
                              (), "pass", [], []),
    "nan for a number": ({}, lambda b: _set(b, AT[2.0], math.nan), (), "fail", ["nan"], []),
    "number for nan": ({}, lambda b: _set(b, NAN_AT, 0.0), (), "fail", ["nan"], []),
    "unspecified nan rule": ({"nan": "unspecified"}, lambda b: _set(b, NAN_AT, 0.0), (), "pass", [], ["nan"]),
    "inf": ({}, lambda b: _set(b, AT[math.inf], 3.0e38), (), "fail", ["inf"], []),
    "signed zero": ({"determinism": "bitwise"}, lambda b: _set(b, AT[-200.0], -0.0), (),
                    "fail", ["signed_zero"], []),
    "exact op": ({"determinism": "bitwise"}, lambda b: _nudge(b, AT[0.5], 1), (), "fail", ["exact"], []),
    "implausible": ({"precision": {}}, lambda b: _set(b, AT[10.0], 5.0), (), "fail", ["implausible"], []),
    "plausible": ({"precision": {}}, lambda b: _nudge(b, AT[10.0], 50), (), "pass", [], []),
    "known divergence": ({"precision": {"max_ulp": 1}}, lambda b: _nudge(b, AT[5.0], 3), ("ulp",),
                         "xfail", ["ulp"], []),
    "stale divergence": ({"precision": {"max_ulp": 1}}, lambda b: b, ("ulp",), "fail", [], []),
    "known divergence, another check": ({"precision": {"max_ulp": 1}},
                                        lambda b: _set(b, AT[2.0], math.nan), ("ulp",), "fail", ["nan"], []),
}


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_the_three_scorers_give_one_verdict(reference, scenario):
    changes, fault, known, want, failing, reported = SCENARIOS[scenario]
    got = _verdicts(_contract(reference, **changes), fault, known)
    assert got["search"] == (want, failing, reported), got
    assert got["sweep16"] == got["search"], got
    assert got["sweep_f32"] == got["search"], got


def test_a_fault_changes_every_verdict(reference):
    """The scenarios are not vacuous: the same contract passes the clean output in all three
    and fails the faulty one in all three."""
    contract = _contract(reference, precision={"max_ulp": 1})
    clean = _verdicts(contract, lambda b: b)
    wrong = _verdicts(contract, lambda b: _nudge(b, AT[0.5], 7))
    assert {v[0] for v in clean.values()} == {"pass"}
    assert {v[0] for v in wrong.values()} == {"fail"}


def test_a_scorer_that_drops_a_rule_is_caught(reference, monkeypatch):
    """The comparison can fail: an array scorer that forgets max_relative (as the F32 sweep once
    did) passes what the search fails, and the three verdicts no longer agree."""
    from judge.scoring import vector

    def ulp_only(cls, ops, rest, fl, hi, p):
        if p.max_ulp is not None:
            vector._flushed_or(cls.hits, fl, "ulp", rest & (cls.dist > p.max_ulp), "{ulp} ulp",
                               with_distance=True)

    monkeypatch.setattr(vector, "_declared_hits", ulp_only)
    changes, fault, known, *_ = SCENARIOS["relative bound"]
    got = _verdicts(_contract(reference, **changes), fault, known)
    assert got["search"][0] == "fail"
    assert got["sweep16"][0] == got["sweep_f32"][0] == "pass"
