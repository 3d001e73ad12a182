"""Known worst cases of CUDA libraries, kept as regression checks of the GPU sweep.

The published worst case of CUDA's binary32 expf is 1.94 ulp at -0x1.bcc73p+3 (0xC15E6398).
The certified F32 sweep of torch-cuda's exp must find it: the 2^24 inputs of the chunk that
holds it are swept (a fraction of a second on the device). Runs on a CUDA machine
(scripts/gpu-cuda.sh); elsewhere it skips saying why.
"""

from __future__ import annotations

import pytest

EXPF_WORST = 0xC15E6398


def _torch_cuda():
    torch = pytest.importorskip("torch", reason="torch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: the GPU sweep regression checks need one")
    return torch


def test_the_sweep_finds_cuda_expf_worst_case():
    _torch_cuda()
    from judge.contracts import default_suite_path
    from judge.registry import default_registry
    from judge.suite import load_paths
    from judge.sweep.gpu_f32 import sweep_f32

    # The reference exp contract (correctly rounded F32 is 0 ulp from exact), judged across
    # devices as `judge sweep --cross` does: the sweep reports the error whatever the bound.
    contract = next(c for c in load_paths([default_suite_path()]).contracts
                    if c.kernel == "exp" and c.file.endswith("reference-elementwise.fkc.md"))
    backend = default_registry().load_all().backends["torch-cuda"]
    result = sweep_f32(contract, backend, chunk_log2=24, chunks=[EXPF_WORST >> 24], log=lambda _: None)
    assert 1.90 <= result.row.ulp_real_max <= 1.95, result.summary()
    assert f"ulp-real max {result.row.ulp_real_max:.3f} at x=" in result.metrics["worst"]
    assert result.metrics["worst"].endswith(f"(0x{EXPF_WORST:08X})"), result.summary()
