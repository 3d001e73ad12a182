"""One sweep end to end: verdicts, counts and counterexamples, on honest and broken backends."""

from __future__ import annotations

import numpy as np
import pytest

from judge.api import Backend
from judge.cases import CaseRecord
from judge.expectations import Expectation, Expectations
from judge.sweep.run import sweep, sweep_support


class Negating(Backend):
    """Negation written out by hand, with one switchable defect."""

    device = "cpu"

    def __init__(self, defect: str = "", name: str = "hand-neg"):
        self.name = name
        self.defect = defect
        self.calls = 0

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        self.calls += 1
        x = call.inputs[0].to_array()
        bits = x.view(np.uint16) ^ np.uint16(0x8000)
        if self.defect == "zero_sign":  # -x for every value except zeros, which keep their sign
            bits = np.where(x.view(np.uint16) & 0x7FFF, bits, x.view(np.uint16))
        if self.defect == "skip_last":  # never writes the last element
            out = call.outputs[0].base
            out[:-1] = bits[:-1].view(out.dtype)
            return None
        if self.defect == "flaky" and self.calls % 2 == 0:
            bits = bits.copy()
            bits[123] ^= 1
        return [bits.view(x.dtype)]


@pytest.fixture(scope="module")
def neg(reference):
    return reference("neg")


def test_numpy_exp_bf16_sweep_passes_with_every_input(reference, table_dir, exp_bf16_table):
    from backends.numpy_backend import NumpyBackend

    result = sweep(reference("exp"), NumpyBackend(), "BF16", table_dir=table_dir)
    row = result.row
    assert (row.verdict, row.cases, row.elements) == ("pass", 65536, 65536)
    assert row.ulp_max is not None and row.ulp_max <= 1
    assert row.nan_mismatch == row.inf_mismatch == row.signed_zero_mismatch == 0
    assert result.table_cached


def test_honest_negation_passes(neg, table_dir):
    result = sweep(neg, Negating(), "BF16", table_dir=table_dir)
    assert result.row.verdict == "pass", result.message
    assert result.row.ulp_max == 0 and result.row.derived_bound == "exact"


def test_wrong_zero_sign_fails_with_a_counterexample(neg, table_dir, tmp_path):
    result = sweep(neg, Negating("zero_sign"), "BF16", table_dir=table_dir)
    assert result.row.verdict == "fail"
    assert result.row.signed_zero_mismatch == 2  # +0 and -0
    assert result.row.reason.startswith("signed_zero: 2 of 65536")
    case = CaseRecord.load(result.case.save(tmp_path))
    assert case.inputs[0].base.view(np.uint16)[0] in (0x0000, 0x8000)
    assert result.row.counterexample == case.case_id


def test_unwritten_element_fails(neg, table_dir):
    result = sweep(neg, Negating("skip_last"), "BF16", table_dir=table_dir)
    assert result.row.verdict == "fail" and result.row.unwritten_outputs == 1
    assert any(f.check == "unwritten" and "65535" in f.message for f in result.findings)


def test_nondeterminism_fails(neg, table_dir):
    result = sweep(neg, Negating("flaky"), "BF16", table_dir=table_dir)
    assert result.row.verdict == "fail" and result.row.nondeterministic_runs == 1


def test_known_divergence_is_xfail_and_a_stale_one_fails(neg, table_dir):
    known = Expectations((Expectation(neg.kernel, "hand-neg", "BF16", "signed_zero", "zeros kept"),))
    bad = sweep(neg, Negating("zero_sign"), "BF16", table_dir=table_dir, expectations=known)
    assert bad.row.verdict == "xfail"
    good = sweep(neg, Negating(), "BF16", table_dir=table_dir, expectations=known)
    assert good.row.verdict == "fail" and "stale" in good.row.reason


@pytest.mark.parametrize("check", ["accepts_invalid", "out_of_bounds", "batch_invariant", "in_place"])
def test_a_known_divergence_a_sweep_cannot_see_is_neither_seen_nor_stale(neg, table_dir, check):
    known = Expectations((Expectation(neg.kernel, "hand-neg", "BF16", check, "refuses nothing"),))
    result = sweep(neg, Negating(), "BF16", table_dir=table_dir, expectations=known)
    assert result.row.verdict == "pass", result.row.reason
    known = Expectations(known.entries + (Expectation(neg.kernel, "hand-neg", "BF16", "signed_zero", "zeros"),))
    assert sweep(neg, Negating(), "BF16", table_dir=table_dir, expectations=known).row.verdict == "fail"


class SecondZero(Backend):
    """max ignoring NaNs, returning the second operand where the two compare equal (so
    max(+0, -0) is -0): right under unordered zeros, wrong under ordered ones."""

    name = "second-zero"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        a, b = (t.to_array() for t in call.inputs)
        return [np.where(a == b, b, np.fmax(a, b))]


@pytest.mark.parametrize("zeros, verdict", [("unordered", "pass"), ("ordered", "fail")])
def test_a_grid_sweep_admits_either_zero_where_the_zeros_are_unordered(reference, table_dir, zeros, verdict):
    import dataclasses

    from judge.contracts.model import Rule

    contract = reference("maximum")
    contract = dataclasses.replace(contract, semantics=dataclasses.replace(
        contract.semantics, zeros=Rule(zeros, "semantics", "semantics.zeros")))
    result = sweep(contract, SecondZero(), "BF16", table_dir=table_dir, grid_size=64)
    assert result.row.verdict == verdict, result.row.reason
    assert verdict == "pass" or result.row.reason.startswith("signed_zero")


def test_support_reasons(reference, suite):
    from backends.numpy_backend import NumpyBackend

    assert "F32" in str(sweep_support(reference("exp"), NumpyBackend(), "F32"))
    assert "PowIElementwise (elementwise) has no exhaustive input set" in \
        str(sweep_support(reference("powi"), NumpyBackend(), "BF16"))
    (vk,) = [c for c in suite.find("exp") if c.backend == "Vulkan"]
    assert "--cross" in str(sweep_support(vk, NumpyBackend(), "F16"))
    (argmax,) = suite.find("argmax_dim_cpu")
    assert "elementwise" in str(sweep_support(argmax, NumpyBackend(), "BF16"))


def test_binary_kernel_sweeps_every_grid_pair(reference, table_dir):
    from backends.numpy_backend import NumpyBackend
    from judge.sweep.inputs import grid_values

    result = sweep(reference("add"), NumpyBackend(), "F16", grid_size=64, table_dir=table_dir)
    n = grid_values("F16", 64).size
    assert result.input_set == "grid64" and result.row.cases == n * n
    assert result.row.verdict == "pass", result.message
    assert result.row.ulp_max == 0
