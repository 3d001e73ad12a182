"""The executor's side of ``aliasing: in_place(x)``: the output handed to the kernel is x's own
memory (same buffer, offset and strides, a strided view where the layout accepts one), the result
is read from that memory, and the rest of x's buffer must keep its bits."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from judge import aliasing
from judge.api import TensorArg, contiguous_strides
from judge.executor import execute, poison_output
from judge.layouts import LayoutRecipe, build_view

KERNEL = "silu_inplace"
VALUES = np.array([[-3.0, -0.5, 0.0, 1.0], [2.5, -7.0, 0.25, 4.0], [-1.0, 8.0, -0.0, 3.0]], np.float32)


def _strided(contract):
    """The contract with its input's layout also accepting steps (a strided view of a buffer)."""
    spec = contract.inputs[0]
    layout = replace(spec.layout, contiguous_required=False, strided=True)
    return replace(contract, inputs=(replace(spec, layout=layout), *contract.inputs[1:]))


def _recording(base_class):
    class Recording(base_class):
        calls: list = []

        def run(self, contract, call):
            type(self).calls.append((call.inputs[0], call.outputs[0], call.inputs[0].base.copy()))
            return super().run(contract, call)

    return Recording


def _contiguous():
    return TensorArg(VALUES.reshape(-1).copy(), VALUES.shape, contiguous_strides(VALUES.shape), 0, "F32")


def _stepped():
    return build_view(VALUES, VALUES.shape, LayoutRecipe(steps=(1, 2)), "F32")


@pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])
def test_the_output_is_the_inputs_own_memory(broken_inplace, inplace_contract, strided):
    contract = _strided(inplace_contract(KERNEL)) if strided else inplace_contract(KERNEL)
    x = _stepped() if strided else _contiguous()
    backend = _recording(broken_inplace.MiniInplace)()
    ex = execute(backend, contract, (x,), {}, repeats=1)
    assert not ex.findings, ex.findings
    (given, out, before), *_ = backend.calls
    assert out.base is given.base
    assert (out.offset, out.strides, out.shape) == (given.offset, given.strides, given.shape)
    assert (given.offset, given.strides) == (x.offset, x.strides)  # the view as accepted
    assert given.base.size > x.base.size  # a guarded tail past the view's last element
    assert not np.array_equal(given.base, before)  # the kernel wrote through the output
    np.testing.assert_array_equal(ex.outputs[0], out.to_array())  # read from the target memory
    expected = np.copysign(broken_inplace.abs_silu(VALUES), VALUES.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(ex.outputs[0], expected)


def test_a_write_between_a_strided_views_elements_is_outside_written(broken_inplace, inplace_contract):
    ex = execute(broken_inplace.ClobbersPastEnd(), _strided(inplace_contract(KERNEL)), (_stepped(),), {})
    assert [f.check for f in ex.findings] == ["outside_written"], ex.findings
    assert "outside the region the output covers" in ex.findings[0].message


def test_a_returned_array_is_not_the_result(broken_inplace, inplace_contract):
    ex = execute(broken_inplace.ReturnsFresh(), inplace_contract(KERNEL), (_contiguous(),), {})
    assert [f.check for f in ex.findings] == ["in_place"], ex.findings
    assert ex.outputs is None


def test_region_covers_exactly_the_views_elements():
    t = _stepped()
    mask = aliasing.region(t)
    assert mask.sum() == VALUES.size
    assert set(np.flatnonzero(mask)) == {t.offset + i * t.strides[0] + j * t.strides[1]
                                          for i in range(3) for j in range(4)}


def test_overlapping_buffers_are_refused_unless_declared():
    x = _contiguous()
    out = TensorArg(x.base, x.shape, x.strides, x.offset, "F32")
    with pytest.raises(AssertionError, match="share memory"):
        aliasing.assert_disjoint([x], [out], {})
    aliasing.assert_disjoint([x], [out], {0: 0})
    shifted = TensorArg(x.base, (2, 4), (4, 1), 4, "F32")  # the same buffer, another region
    with pytest.raises(AssertionError, match="share memory"):
        aliasing.assert_disjoint([x], [shifted], {0: 0})
    aliasing.assert_disjoint([x], [poison_output(x.shape, "F32")], {})
