"""In-place kernels' own mistakes are caught at the ci seed, each by the check it targets, and the
correct mini backend passes the same contract. The two-pass SiLU is caught only because the
executor hands it the operand's own memory: given a separate output it passes."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

KERNEL = "silu_inplace"

CASES = [
    # (broken backend class, dtype, checks that may catch it)
    ("TwoPassSilu", "F32", {"ulp", "signed_zero", "inf"}),
    ("ReturnsFresh", "F32", {"in_place"}),
    ("ClobbersPastEnd", "F32", {"outside_written"}),
    ("ClobbersPastEnd", "BF16", {"outside_written"}),
]


def _run(contract, backend, dtype):
    return run_item(Item(contract, backend, dtype), get_profile("ci"))


@pytest.mark.parametrize("cls, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_broken_backend_is_caught(broken_inplace, inplace_contract, cls, dtype, checks):
    result = _run(inplace_contract(KERNEL), getattr(broken_inplace, cls)(), dtype)
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


def test_a_fresh_array_returned_is_named_as_such(broken_inplace, inplace_contract):
    result = _run(inplace_contract(KERNEL), broken_inplace.ReturnsFresh(), "F32")
    assert "did not write its result there" in result.message, result.message


@pytest.mark.parametrize("dtype", ["F32", "BF16"])
def test_correct_backend_passes(broken_inplace, inplace_contract, dtype):
    result = _run(inplace_contract(KERNEL), broken_inplace.MiniInplace(), dtype)
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0


def _separate_output(contract):
    """The same contract with its output declared ``aliasing: none``: a separate buffer."""
    out = replace(contract.outputs[0], aliasing="none")
    return replace(contract, outputs=(out, *contract.outputs[1:]))


def test_the_two_pass_kernel_passes_into_a_separate_output(broken_inplace, inplace_contract):
    result = _run(_separate_output(inplace_contract(KERNEL)), broken_inplace.TwoPassSilu(), "F32")
    assert result.row.verdict == "pass", result.message


def test_the_two_pass_kernel_passes_the_out_of_place_contract(broken_inplace):
    from judge.suite import load_paths

    root = Path(__file__).resolve().parents[3]
    loaded = load_paths([root / "suites" / "fuel" / "reference-elementwise.fkc.md"])
    (silu,) = [c for c in loaded.contracts if c.kernel == "silu"]
    result = _run(silu, broken_inplace.TwoPassSilu(), "F32")
    assert result.row.verdict == "pass", result.message
