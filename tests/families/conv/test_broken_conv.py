"""Every check of the rope, convolution and pad contracts bites: each broken backend
(tests/plugins/broken_conv.py) is caught at the ci profile's seed by the check it targets, and
the correct mini backend passes the same contracts."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

VALUE = {"reduction_bound", "nan", "inf"}
COPY = {"exact", "payload", "nan", "inf", "signed_zero", "subnormal"}  # every check of a bit copy
CASES = [
    # (broken backend class, kernel, dtype, checks that may catch it)
    ("RopeInterleavedPairs", "rope_cpu", "F32", VALUE),
    ("RopeInterleavedPairs", "rope_cuda", "BF16", VALUE),
    ("RopeSinOnTheWrongHalf", "rope_cpu", "F16", VALUE),
    ("CausalConvPadsRight", "causal_conv1d_cpu", "F32", VALUE),
    ("CausalConvPadsRight", "causal_conv1d_cuda", "BF16", VALUE),
    ("Conv2dPaddingSidesSwapped", "conv2d_cpu", "F32", VALUE),
    ("Conv2dPaddingSidesSwapped", "conv2d_bias_cpu", "F64", VALUE),
    ("ConvTransposeUnflipped", "conv_transpose2d_cpu", "F32", VALUE),
    ("ConvTransposeOutputPaddingTop", "conv_transpose2d_bias_cpu", "F32", VALUE),
    ("PadReflectRepeatsEdge", "pad_cuda", "F32", COPY),
    ("PadZeroFillFastPath", "pad_cpu", "F32", {"signed_zero"}),
    ("PadZeroFillFastPath", "pad_cuda", "BF16", {"signed_zero"}),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_conv, conv_contract, cls, kernel, dtype, checks):
    result = run_item(Item(conv_contract(kernel), getattr(broken_conv, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    check = row.reason.split(":", 1)[0]
    assert check in checks, f"{cls} caught by {check!r}, expected one of {checks}: {result.message}"
    assert result.case is not None and row.counterexample == result.case.case_id


CORRECT = sorted({(c[1], c[2]) for c in CASES} | {
    ("rope_interleaved_cpu", "F32"), ("conv_transpose2d_bias_cpu", "BF16"), ("causal_conv1d_cpu", "F64"),
    ("pad_cpu", "U8"), ("pad_backward_cpu", "F32"), ("pad_backward_cuda", "F16")})


@pytest.mark.parametrize("kernel, dtype", CORRECT)
def test_correct_backend_passes(broken_conv, conv_contract, kernel, dtype):
    result = run_item(Item(conv_contract(kernel), broken_conv.MiniConvCpu(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
