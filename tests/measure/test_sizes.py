"""What is measured at size n: plans that every contract of the embedded suite accepts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from judge.measure.sizes import (
    cost_variables,
    make_call,
    parse_log2_range,
    plan_call,
    size_range,
)
from numerics.formats import get_format


@pytest.fixture(scope="module")
def suite():
    from judge.contracts import default_suite_path
    from judge.suite import load_paths

    loaded = load_paths([Path(default_suite_path())])
    assert not loaded.errors
    return [c for c in loaded.contracts if c.registrable]


# OpKinds whose family ties shapes to params (no Family.size_plan): judge measure has no size
# plan for them yet, and says so.
TIED_SHAPES = frozenset({"Cast", "MatMul", "Concat", "IndexSelect", "Gather", "Flip", "Roll", "Triu", "Tril",
                         "MaskedFill",
                         "Pad"})  # its fill is one element of the measured dtype, which a plan is not told


@pytest.mark.parametrize("n", [16, 1024, 1 << 16])
def test_every_suite_contract_has_a_contiguous_call_of_n_elements(suite, n):
    import oracles
    from judge.layouts import accepted

    for contract in suite:
        for dtype in contract.dtype_fan:
            what = f"{contract.kernel}[{dtype}]"
            if contract.op_kind in TIED_SHAPES or oracles.family_of(contract.op_kind).size_plan is None:
                # refused with the reason (an error entry)
                with pytest.raises(ValueError, match="no size plan"):
                    plan_call(contract, dtype, n)
                continue
            plan = plan_call(contract, dtype, n)
            call = make_call(contract, plan)
            assert call.inputs[0].size == n, what
            for arg, spec in zip(call.inputs, contract.inputs, strict=True):
                assert arg.is_contiguous() and accepted(arg, spec.layout), what
                assert spec.rank.contains(arg.ndim), what
                values = arg.base.astype(np.float64)
                assert np.all(np.isfinite(values)), what
                if get_format(arg.dtype).is_float:
                    assert values.min() >= 0.5 and values.max() <= 1.5, what
                elif arg.dtype != "BOOL":  # integers: uniform [0.5, 1.5) truncated
                    assert set(np.unique(values)) <= {0.0, 1.0}, what
            variables = cost_variables(call, dtype)
            assert variables["n_in"] == n and variables["n_out"] == call.outputs[0].size
            from judge.contracts.cost import evaluate

            if contract.cost.bytes_moved is not None:
                assert evaluate(contract.cost.bytes_moved, **variables) > 0, what
            if contract.cost.flops is not None:  # a copy's is 0
                assert evaluate(contract.cost.flops, **variables) >= 0, what


def test_reductions_fold_the_last_axis(suite):
    (contract,) = [c for c in suite if c.kernel == "sum_reduce_cpu"]
    plan = plan_call(contract, "F32", 4096)
    assert plan.shapes == ((16, 256),) and plan.params == {"dims": [1], "keepdim": False}
    call = make_call(contract, plan)
    assert cost_variables(call, "F32")["n_out"] == 16


def test_size_ranges():
    assert size_range(4, 7) == [16, 32, 64, 128]
    assert parse_log2_range("4:20") == (4, 20)
    for bad in ("20:4", "4", "a:b", "4:40"):
        with pytest.raises(ValueError, match=repr(bad).strip("'") if bad != "4" else "LO:HI"):
            parse_log2_range(bad)


def test_each_fast_path_call_takes_the_path_the_audit_counts_it_under(suite):
    """A strided or broadcast call of judge measure is the layout the audit classifies under
    the same fast path, the executor hands it to the kernel as it is (the contract accepts
    it), and its logical values are those of a contiguous call of the same seed's shape."""
    from judge.layouts import accepted, fast_paths_taken
    from judge.measure.sizes import paths_for

    names = {"contiguous": "all_inputs_contiguous", "strided": "any_input_strided",
             "broadcast": "any_input_broadcast"}
    import oracles

    seen = set()
    for contract in suite:
        if contract.op_kind in TIED_SHAPES or oracles.family_of(contract.op_kind).size_plan is None:
            continue
        for path in paths_for(contract):
            call = make_call(contract, plan_call(contract, contract.dtype_fan[0], 256), path=path)
            assert fast_paths_taken(call.inputs) == {names[path]}, (contract.kernel, path)
            assert all(accepted(t, s.layout) for t, s in zip(call.inputs, contract.inputs, strict=True))
            seen.add(path)
    assert seen == {"contiguous", "strided", "broadcast"}
