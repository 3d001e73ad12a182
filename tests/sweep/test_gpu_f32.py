"""The F32 sweep's certified reference, scoring and verdicts, run on the CPU with small chunks.

The same code runs on a CUDA device (scripts/gpu-sweep-f32.sh); here torch's CPU kernels stand
in for both the backend and the F64 reference.
"""

from __future__ import annotations

import numpy as np
import pytest

from judge.api import Backend
from judge.sweep import f32_reference, gpu_f32

torch = pytest.importorskip("torch")

CHUNKS = [0x3F80, 0x0000, 0x7F80, 0x42B0, 0xC2C0]  # of 2^16 inputs: near 1, tiny, inf/NaN, ...


def _f64(x: float) -> torch.Tensor:
    return torch.tensor([x], dtype=torch.float64)


def test_elements_near_a_rounding_boundary_are_flagged():
    mid = 1.0 + 2.0**-24  # between 1 and 1 + 2^-23
    ulp64 = 2.0**-52
    for k, flagged in [(0, True), (3, True), (-16, True), (17, False), (-40, False), (2**20, False)]:
        _, f = f32_reference.near_boundary(torch, _f64(mid + k * ulp64))
        assert bool(f[0]) is flagged, k
    threshold = float(np.finfo(np.float32).max) + 2.0**103  # the overflow boundary
    assert bool(f32_reference.near_boundary(torch, _f64(threshold))[1][0])
    assert bool(f32_reference.near_boundary(torch, _f64(2.0**-150))[1][0])  # half the smallest subnormal
    for far in (1.0, 0.0, 3.0 + 2.0**-30, float("inf"), float("nan")):
        assert not bool(f32_reference.near_boundary(torch, _f64(far))[1][0]), far


def test_rounding_of_the_reference_is_f32_round_to_nearest_even():
    bits, _ = f32_reference.near_boundary(torch, _f64(1.0 + 2.0**-24))  # a tie: to even (1.0)
    assert int(bits[0]) == 0x3F800000


class PlusUlps(Backend):
    """torch's exp, then nudged by some ulps on every 1000th element."""

    name = "nudged"
    device = "cuda"

    def __init__(self, ulps: int):
        self.ulps = ulps

    def supports(self, contract, dtypes):
        return True

    def run(self, contract, call):
        y = torch.exp(torch.from_numpy(call.inputs[0].to_array())).numpy().view(np.int32).copy()
        y[::1000] += self.ulps
        return [y.view(np.float32)]


def test_an_honest_kernel_passes(reference):
    res = gpu_f32.sweep_f32(reference("exp"), PlusUlps(0), chunk_log2=16, chunks=CHUNKS,
                            device="cpu", log=lambda m: None)
    assert res.row.verdict == "pass", res.summary()
    assert res.row.cases == 5 * 65536 and res.metrics["cross_checked"] == 5 * 64


def test_errors_beyond_the_bound_fail_with_the_worst_input(reference):
    res = gpu_f32.sweep_f32(reference("exp"), PlusUlps(3), chunk_log2=16, chunks=CHUNKS,
                            device="cpu", log=lambda m: None)
    assert res.row.verdict == "fail" and res.metrics["over_bound"] > 0
    assert res.row.ulp_max >= 2
    assert "worst" in res.summary() and "0x" in res.metrics["worst"]


def test_flagged_elements_are_settled_by_the_pure_oracle(reference, monkeypatch):
    monkeypatch.setattr(f32_reference, "MARGIN_F64_ULPS", 2**19)  # flag one element in 512
    res = gpu_f32.sweep_f32(reference("exp"), PlusUlps(0), chunk_log2=16, chunks=[0x3F80],
                            device="cpu", log=lambda m: None)
    assert res.metrics["settled"] > 50
    assert res.row.verdict == "pass"


def test_support_reasons(reference):
    from backends.numpy_backend import NumpyBackend

    assert "GPU backend" in str(gpu_f32.sweep_support(reference("exp"), NumpyBackend()))
    assert "no certified F64 reference" in str(gpu_f32.sweep_support(reference("relu"), PlusUlps(0)))
    assert "--cross" in str(gpu_f32.sweep_support(reference("exp"), PlusUlps(0)))


def test_a_vulkan_contract_is_swept_on_a_vulkan_backend_without_cross(suite):
    """A contract is judged on the backends of its own device: kompute against the Vulkan
    contracts needs no --cross (a CUDA contract on kompute does)."""
    class OnVulkan(PlusUlps):
        device = "vulkan"

    (vulkan_exp,) = [c for c in suite.find("exp") if c.device == "vulkan"]
    assert "--cross" not in str(gpu_f32.sweep_support(vulkan_exp, OnVulkan(0)))
    assert "--cross" in str(gpu_f32.sweep_support(vulkan_exp, PlusUlps(0)))
    assert gpu_f32.sweep_support(vulkan_exp, OnVulkan(0), cross=True) == gpu_f32.sweep_support(vulkan_exp, OnVulkan(0))


def _sweep(contract, backend, chunks=CHUNKS, expectations=None):
    return gpu_f32.sweep_f32(contract, backend, chunk_log2=16, chunks=chunks, device="cpu",
                             log=lambda m: None, expectations=expectations)


def test_a_known_divergence_is_an_xfail_and_a_stale_one_fails(reference, tmp_path, monkeypatch):
    from judge.expectations import load_expectations

    path = tmp_path / "expectations.toml"
    path.write_text('[[divergence]]\nkernel = "exp"\nbackend = "nudged"\ndtype = "F32"\n'
                    'check = "ulp"\nreason = "nudged on purpose"\n')
    known = load_expectations(path)
    finite = [0x3F80, 0x0000, 0x42B0]  # no NaN or inf input, which a nudge would break
    res = _sweep(reference("exp"), PlusUlps(3), chunks=finite, expectations=known)
    assert res.row.verdict == "xfail" and "nudged on purpose" in res.row.reason, res.summary()
    # a sweep in part does not see what the inputs it left out hold: not stale there
    res = _sweep(reference("exp"), PlusUlps(0), chunks=CHUNKS[:1], expectations=known)
    assert res.row.verdict == "pass" and any("not judged stale" in n for n in res.notes), res.summary()
    # every input swept (here, the inputs of one chunk are all there are): stale
    monkeypatch.setattr(gpu_f32, "ALL_INPUTS", 1 << 16)
    res = _sweep(reference("exp"), PlusUlps(0), chunks=CHUNKS[:1], expectations=known)
    assert res.row.verdict == "fail" and res.row.reason.startswith("stale expectation")


def _with_bounds(contract, **bounds):
    import dataclasses

    bounds = {"max_ulp": None, "max_relative": None, "max_absolute": None, **bounds}
    return dataclasses.replace(contract, precision=dataclasses.replace(contract.precision, **bounds))


@pytest.mark.parametrize("bounds, verdict", [
    ({"max_relative": 1e-9}, "fail"),  # one ulp of exp is ~6e-8 relative
    ({"max_relative": 1e-6}, "pass"),
    ({"max_absolute": 1e-12}, "fail"),
    ({"max_absolute": 1e30}, "pass"),
])
def test_declared_relative_and_absolute_bounds_apply(reference, bounds, verdict):
    res = _sweep(_with_bounds(reference("exp"), **bounds), PlusUlps(1), chunks=[0x3F80, 0xBF80])
    assert res.row.verdict == verdict, res.summary()
    if verdict == "fail":
        assert res.row.reason.startswith("bound:"), res.row.reason


class ZeroForNan(PlusUlps):
    """torch's exp, but +0 where the input is NaN."""

    def run(self, contract, call):
        x = torch.from_numpy(call.inputs[0].to_array())
        return [torch.where(torch.isnan(x), torch.zeros_like(x), torch.exp(x)).numpy()]


def test_a_nan_mismatch_is_reported_under_an_unspecified_rule_and_fails_under_a_stated_one(reference):
    import dataclasses

    from judge.contracts.model import Rule

    stated = reference("exp")
    unspecified = dataclasses.replace(stated, semantics=dataclasses.replace(
        stated.semantics, nan=Rule("unspecified", "unspecified")))
    chunk = [0x7FC0]  # quiet NaNs among the inputs
    res = _sweep(stated, ZeroForNan(0), chunks=chunk)
    assert res.row.verdict == "fail" and res.row.reason.startswith("nan:"), res.summary()
    res = _sweep(unspecified, ZeroForNan(0), chunks=chunk)
    assert res.row.verdict == "pass" and res.row.nan_mismatch > 0, res.summary()
    assert any(n.startswith("reported, not failed") for n in res.notes)


def test_f32_constants_come_from_the_values_table():
    from numerics.values import POISON_BITS

    assert gpu_f32.POISON_F32 == POISON_BITS["F32"]
    assert f32_reference.overflow_threshold() == float(np.finfo(np.float32).max) + 2.0**103
