"""Every misread of a stored format bites: each broken backend is caught at the ci seed, the
correct mini backend passes, and so do the format owners' dequantizers (``backends.standins``)."""

from __future__ import annotations

import pytest

from judge.profiles import get_profile
from judge.runner import Item, run_item

VALUE = {"reduction_bound", "nan", "inf"}
CASES = [
    ("ScaleReadAsF32", "qmatmul_cpu", "F32", VALUE),
    ("Nf4NibblesSwapped", "nf4_matmul_cpu", "F32", VALUE),
]


@pytest.mark.parametrize("cls, kernel, dtype, checks", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_broken_backend_is_caught(broken_quant, quant_contract, cls, kernel, dtype, checks):
    result = run_item(Item(quant_contract(kernel), getattr(broken_quant, cls)(), dtype), get_profile("ci"))
    row = result.row
    assert row.verdict == "fail", f"{cls} was not caught: {row.verdict} {row.reason}"
    assert row.reason.split(":", 1)[0] in checks, result.message
    assert result.case is not None and row.counterexample == result.case.case_id


@pytest.mark.parametrize("kernel, dtype", [("qmatmul_cpu", "F32"), ("nf4_matmul_cpu", "BF16")])
def test_correct_backend_passes(broken_quant, quant_contract, kernel, dtype):
    result = run_item(Item(quant_contract(kernel), broken_quant.MiniQuant(), dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message


@pytest.mark.parametrize("name, kernel, dtype", [("GgufBackend", "qmatmul_cpu", "F32"),
                                                 ("BitsandbytesBackend", "nf4_matmul_cpu", "F16")])
def test_stand_in_backends_conform(quant_contract, name, kernel, dtype):
    import backends.standins as standins

    backend = getattr(standins, name)()
    assert backend.available() is True, backend.available()
    result = run_item(Item(quant_contract(kernel), backend, dtype), get_profile("ci"))
    assert result.row.verdict == "pass", result.message
