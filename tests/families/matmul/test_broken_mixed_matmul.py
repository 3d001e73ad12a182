"""The Vulkan mixed-precision MatMul contracts bite without a GPU: a numpy stand-in that keeps
its running sum in the 16-bit output type is caught at the ci profile's seed, on both keys with
a 16-bit output, and the correct stand-in passes all five keys."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

MIXED = "matmul-mixed-vulkan.fkc.md"
KEYS = [("matmul_f32_bf16_b", "F32"), ("matmul_bf16_bf16_f32", "BF16"), ("matmul_bf16_bf16_bf16", "BF16"),
        ("matmul_f16_f16_f16", "F16"), ("matmul_f16_f16_f32", "F16")]


@pytest.fixture(scope="module")
def mixed():
    from tests.families.conftest import plugin

    return plugin("broken_mixed_matmul.py")


@pytest.mark.parametrize("kernel, dtype", [("matmul_bf16_bf16_bf16", "BF16"), ("matmul_f16_f16_f16", "F16")])
def test_output_type_accumulation_is_caught(mixed, contract, kernel, dtype):
    result = run_item(Item(contract(MIXED, kernel), mixed.OutputTypeAccumulationMatmul(), dtype),
                      get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] == "reduction_bound", result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel, dtype", KEYS)
def test_correct_standin_passes(mixed, contract, kernel, dtype):
    result = run_item(Item(contract(MIXED, kernel), mixed.MixedMatmulVulkan(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
    assert result.row.cases > 0
