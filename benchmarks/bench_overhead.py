"""The Judge's own cost per generated case, excluding backend and oracle time.

Run: pytest benchmarks/bench_overhead.py --benchmark-only
Each round judges one item (ci profile: a fixed number of cases) on a trivial in-process backend
(exact negation) and reports the per-case overhead: wall time minus backend minus oracle time,
divided by the cases judged. The per-case figure lands in ``extra_info``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import judge
from judge.profiles import get_profile
from judge.runner import Item, run_item
from judge.suite import load_paths

SUITE = Path(__file__).resolve().parents[1] / "suites" / "fuel"


class Negate(judge.Backend):
    name = "bench-negate"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        out = call.outputs[0]
        np.negative(call.inputs[0].view(), out=out.base.reshape(out.shape))
        return [out.base.reshape(out.shape)]


@pytest.mark.parametrize("kernel, file, dtype", [
    ("neg", "reference-elementwise.fkc.md", "F32"),
    ("neg", "vulkan-elementwise.fkc.md", "F32"),  # strided layouts accepted: views, no copies
])
def test_overhead_per_case(benchmark, kernel, file, dtype):
    contract = next(c for c in load_paths([SUITE]).contracts if c.kernel == kernel and c.file.endswith(file))
    item = Item(contract, Negate(), dtype)
    results = []

    def once():
        r = run_item(item, get_profile("ci"))
        results.append(r)
        return r

    benchmark.pedantic(once, rounds=3, iterations=1)
    cases = sum(r.row.cases for r in results)
    overhead = sum(r.overhead_seconds for r in results)
    benchmark.extra_info["cases"] = cases
    benchmark.extra_info["overhead_ms_per_case"] = round(1000 * overhead / cases, 3)
    assert all(r.row.verdict == "pass" for r in results)
