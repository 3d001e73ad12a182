"""Synthetic audit runs for the report, gate and CLI tests (no backend or oracle needed)."""

from __future__ import annotations

import numpy as np
import pytest

from judge.api import TensorArg
from judge.cases import CaseRecord
from judge.results import AuditRun, ResultRow


def make_row(kernel: str, backend: str = "numpy", dtype: str = "F32", **kw) -> ResultRow:
    base = dict(
        suite="suites/fuel", file=f"suites/fuel/{kernel.split('_')[0]}.fkc.md", kernel=kernel,
        op_kind="ExpElementwise", contract_backend="Cpu", backend=backend, device="cpu",
        dtype=dtype, revision="rev-" + kernel, cases=50, elements=4000, ulp_max=0.0,
        ulp_p99=0.0, ulp_real_max=0.5, bound_ulp=None, seed=7, judge_version="0.1.0",
        started_at="2026-12-02T11:00:00Z", seconds=0.25,
    )
    base.update(kw)
    return ResultRow(**base)


def make_case(kernel: str, backend: str, dtype: str = "F32", value: float = 1.5) -> CaseRecord:
    base = np.array([value, -0.0, np.inf, np.nan], dtype=np.float32)
    return CaseRecord(
        kernel=kernel, file=f"suites/fuel/{kernel}.fkc.md", backend=backend, dtype=dtype,
        inputs=(TensorArg(base, (4,), (1,), 0, "F32"),), params={},
        check="ulp", message="element 0: expected 4.4816890, got 4.4816895 (3 ulp > bound 1)",
        seed=7,
    )


@pytest.fixture
def audit_run() -> AuditRun:
    """A small run: passes, one ULP failure with a case, an xfail, an error, an unsupported row,
    one nondeterministic row and one special-value mismatch; one backend unavailable."""
    fail_case = make_case("exp_f32", "torch-cpu")
    rng = np.random.default_rng(0)
    rows = [
        make_row("exp_f32", "numpy", ulp_max=1.0, ulp_real_max=0.9, bound_ulp=1.0),
        make_row("exp_f32", "torch-cpu", ulp_max=3.0, ulp_real_max=2.7, bound_ulp=1.0,
                 verdict="fail", reason="ulp 3 > max_ulp 1", counterexample=fail_case.case_id),
        make_row("relu_f32", "numpy", derived_bound="exact"),
        make_row("relu_f32", "torch-cpu", derived_bound="exact", signed_zero_mismatch=2,
                 verdict="xfail", reason="known: torch.relu(-0.0) returns +0.0"),
        make_row("sum_reduce_cpu", "numpy", dtype="BF16", ulp_max=9.223372036854776e18,
                 derived_bound="reduction", bound_used=0.25, audited=False, repeat_spread_ulp=0.0,
                 batch_invariance="invariant (10 cases)",
                 fast_path_cases="all_inputs_contiguous=40 any_input_strided=0"),
        make_row("sum_reduce_cpu", "torch-cpu", dtype="BF16", ulp_max=1.0, bound_used=0.5,
                 nondeterministic_runs=1, verdict="fail", derived_bound="reduction", audited=False,
                 repeat_spread_ulp=1.0, repeat_spread_elements=3,
                 batch_invariance="varies: row 1 of 4 computed in a larger batch (case c-1)",
                 fast_path_cases="all_inputs_contiguous=31 any_input_strided=9",
                 reason="2 runs of identical inputs differ (determinism: bitwise)"),
        make_row("argmax_cpu", "numpy", dtype="F16", verdict="error",
                 reason="adapter raised TypeError: unexpected keyword 'dim'", nan_mismatch=1),
        make_row("argmax_cpu", "torch-cpu", dtype="F16", verdict="unsupported",
                 reason="torch-cpu does not implement F16 argmax"),
    ]
    samples = {
        ("exp_f32", "numpy", "F32"): rng.uniform(0, 0.9, 3000),
        ("exp_f32", "torch-cpu", "F32"): np.concatenate([rng.uniform(0, 1.2, 2990),
                                                         [2.7, np.inf]]),
        ("relu_f32", "numpy", "F32"): np.zeros(500),
        ("sum_reduce_cpu", "numpy", "BF16"): rng.exponential(0.3, 800),
    }
    meta = {
        "seed": 7, "profile": "dev", "backends": ["numpy", "torch-cpu"],
        "unavailable": {"cupy": "cupy is not installed (No module named 'cupy')"},
        "judge_version": "0.1.0", "started_at": "2026-12-02T11:00:00Z",
        "platform": "Linux-x86_64", "devices": ["cpu"],
        "fingerprints": {"numpy": {"numpy": "2.4.6", "cpu": "AVX512_ICL"},
                         "torch-cpu": {"torch": "2.13.0+cpu", "cpu": "AVX2"}},
        "not_applicable": [{"kernel": "gelu_erf", "backend": "torch-cpu", "dtype": "BF16",
                            "check": "subnormal", "scope": "onednn_isa avx512_core_bf16",
                            "line": 12}],
    }
    return AuditRun(rows=rows, cases=[fail_case], ulp_samples=samples, meta=meta)


@pytest.fixture
def row():
    """The row factory: ``row(kernel, backend, dtype, **column_values)``."""
    return make_row


@pytest.fixture
def case():
    """The case factory: ``case(kernel, backend, dtype, value)``."""
    return make_case


# One small contract (a NegElementwise kernel on Cpu) in properly indented FKC.
NEG_FKC = """---
fkc_version: 1
provider: {{name: t, backend: Cpu, kernel_source: t.rs, revision_base: base}}
---
## a
```fkc
kernel: {kernel}
op_kind: NegElementwise
blurb: "{blurb}"
accept:
  inputs:
    - name: x
      dtypes: [F32]
      layout: {{contiguous: required, strided: rejected, broadcast_stride0: rejected, start_offset: rejected, reverse_strides: rejected}}
      rank: any
  op_params: {{variant: None}}
return:
  outputs:
    - name: y
      dtype_rule: passthrough(x)
      shape_rule: same_as(x)
      aliasing: none
precision: {{max_ulp: 0}}
determinism: bitwise
kernel_revision_hash: auto
```
"""


@pytest.fixture
def neg_fkc():
    """``neg_fkc(kernel=..., blurb=...)``: the text of a one-block contract file."""
    return lambda kernel="neg_selftest", blurb="Neg.": NEG_FKC.format(kernel=kernel, blurb=blurb)


@pytest.fixture
def chromium():
    """Headless Chromium for the browser checks (``report_browser.find_chromium``)."""
    from report_browser import find_chromium

    return find_chromium()


# Modules whose test-only backends compute and check nothing, or that run the stand-in libraries
# on a suite of their own without the suite's known divergences: they test isolation, baselines,
# proposals and the CLI, so their items judge what is computed, with no error inputs (those have
# tests of their own: tests/harness/test_error_inputs.py, tests/families/invalid).
COMPUTE_ONLY = {"test_commands"}


@pytest.fixture(autouse=True)
def _compute_only(request, monkeypatch):
    if request.module.__name__.rsplit(".", 1)[-1] in COMPUTE_ONLY:
        monkeypatch.setenv("JUDGE_ERROR_INPUTS", "0")
