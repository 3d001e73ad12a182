"""The share of its bound an element uses (the row's ``bound_used``): |error| / the bound that
holds it, the derived reduction or sanity bound or the declared one; none for an exact op."""

from __future__ import annotations

import numpy as np
import pytest
from contract_variants import variant

from judge.scoring import Score, score_output


def _score(contract, values, params, nudge: int = 0) -> Score:
    """Score the oracle's own result, ``nudge`` ulp away from it (up, in magnitude)."""
    import oracles

    op = oracles.get(contract.op_kind)
    dtype = values[0].dtype
    name = {np.float32: "F32", np.float64: "F64"}[dtype.type]
    (ref,) = op.evaluate(values, params, [name], contract.semantics.values())
    expected = np.asarray(ref.expected)
    observed = (expected.reshape(-1).view(f"u{dtype.itemsize}") + nudge).view(dtype).reshape(expected.shape)
    score = Score()
    with np.errstate(all="ignore"):
        score_output(contract, op, contract.semantics, values, tuple(s.name for s in contract.inputs),
                     params, observed, ref, name, 0, score)
    return score


def test_a_sum_uses_its_derived_bound(suite):
    """1 + 1 in F32, observed one ulp above 2: |error| 2^-22 against (n−1)·u·Σ|x| + ulp(2) =
    2^-23 + 2^-22: two thirds of the bound."""
    score = _score(suite("reduce.fkc.md", "sum_reduce_cpu"), (np.ones(2, np.float32),), {"dims": [0], "keepdim": False}, 1)
    assert score.bound_used == pytest.approx(2 / 3)


def test_an_undeclared_elementwise_op_uses_the_sanity_bound():
    contract = variant("reference-elementwise.fkc.md", "sqrt", ("max_ulp: 0", "max_ulp: ~"))
    score = _score(contract, (np.array([4.0], np.float32),), {}, 1)
    assert score.bound_used == pytest.approx(2.0**-22 / (2.0**-12 * 2))


def test_a_declared_bound_is_shared_by_its_measures():
    contract = variant("reference-elementwise.fkc.md", "sqrt", ("max_ulp: 0", "max_ulp: 2"))
    assert _score(contract, (np.array([4.0, 9.0], np.float32),), {}, 1).bound_used == pytest.approx(0.5)


def test_an_exact_op_has_no_share(suite):
    assert _score(suite("reference-elementwise.fkc.md", "neg"), (np.array([4.0], np.float32),), {}).bound_used is None


def test_a_count_beyond_f64_does_not_break_the_measure(suite):
    """A softmax row with a gap of 3.4e308 has a derived count past F64's range."""
    values = (np.array([[1.7e308, -1.7e308, 0.0]], np.float64),)
    score = _score(suite("softmax-norm.fkc.md", "softmax_last_dim_cpu"), values, {"outer_count": 1, "last_dim": 3})
    assert score.bound_used is not None and score.bound_used < 1
