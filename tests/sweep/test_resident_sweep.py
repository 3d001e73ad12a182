"""Device-resident F32 sweeps: a backend that declares ``device_arrays = "dlpack"`` gets the
inputs and the output buffer as device tensors and its verdict equals the host path's.

Runs with torch's CPU tensors standing in for the GPU's (DLPack works the same way).
"""

from __future__ import annotations

import numpy as np
import pytest

from judge.api import Backend, is_resident
from judge.sweep import gpu_f32

torch = pytest.importorskip("torch")

CHUNKS = [0x3F80, 0x0000, 0x7F80, 0xC2C0]


class HostExp(Backend):
    """torch's exp, nudged by some ulps on every 1000th element, through numpy buffers."""

    name = "host-exp"
    device = "cuda"

    def __init__(self, ulps: int = 0) -> None:
        self.ulps, self.seen_resident = ulps, []

    def supports(self, contract, dtypes):
        return True

    def exp(self, x):
        y = torch.exp(x).view(torch.int32).clone()
        y[::1000] += self.ulps
        return y.view(torch.float32)

    def run(self, contract, call):
        self.seen_resident.append(is_resident(call.inputs[0]))
        return [self.exp(torch.from_numpy(call.inputs[0].to_array())).numpy()]


class ResidentExp(HostExp):
    """The same kernel, taking and returning DLPack arrays."""

    name = "resident-exp"
    device_arrays = "dlpack"

    def run(self, contract, call):
        self.seen_resident.append(is_resident(call.inputs[0]) and is_resident(call.outputs[0]))
        x = torch.from_dlpack(call.inputs[0].base)
        return [self.exp(x)]


@pytest.mark.parametrize("ulps", [0, 3])
def test_resident_and_host_sweeps_agree(reference, ulps):
    def sweep(backend):
        return gpu_f32.sweep_f32(reference("exp"), backend, chunk_log2=16, chunks=CHUNKS,
                                 device="cpu", log=lambda m: None)

    host, resident = HostExp(ulps), ResidentExp(ulps)
    a, b = sweep(host), sweep(resident)
    assert not any(host.seen_resident) and all(resident.seen_resident)
    keep = ("verdict", "ulp_max", "ulp_p99", "ulp_real_max", "nan_mismatch", "inf_mismatch", "cases")
    assert [getattr(a.row, k) for k in keep] == [getattr(b.row, k) for k in keep]
    assert a.metrics["worst"] == b.metrics["worst"]
    assert any("device-resident" in n for n in b.notes)
    assert a.row.verdict == ("pass" if ulps == 0 else "fail")


def test_a_resident_backend_returning_a_wrong_dtype_is_reported(reference):
    class WrongDtype(ResidentExp):
        def run(self, contract, call):
            return [torch.from_dlpack(call.inputs[0].base).double()]

    with pytest.raises(AssertionError, match="expected float32"):
        gpu_f32.sweep_f32(reference("exp"), WrongDtype(), chunk_log2=16, chunks=CHUNKS[:1],
                          device="cpu", log=lambda m: None)


def test_is_resident_tells_numpy_buffers_from_device_arrays():
    from judge.api import TensorArg

    assert not is_resident(TensorArg(np.zeros(2, np.float32), (2,), (1,), 0, "F32"))
    assert is_resident(TensorArg(torch.zeros(2), (2,), (1,), 0, "F32"))


def test_the_torch_adapter_keeps_a_resident_call_on_its_device(reference):
    from backends.torch_backend import TorchBackend
    from judge.api import KernelCall, TensorArg

    x = torch.linspace(-4, 4, 64, dtype=torch.float32)
    out = torch.zeros(64, dtype=torch.float32)
    call = KernelCall([TensorArg(x, (64,), (1,), 0, "F32")], {}, [TensorArg(out, (64,), (1,), 0, "F32")], ["F32"])
    (y,) = TorchBackend("torch-cpu", "cpu").run(reference("exp"), call)
    assert isinstance(y, torch.Tensor) and torch.equal(y, torch.exp(x))
    assert TorchBackend("torch-cuda", "cuda").device_arrays == "dlpack"


def test_the_report_shows_the_table_of_f32_sweeps(reference, tmp_path):
    import json

    res = gpu_f32.sweep_f32(reference("exp"), ResidentExp(3), chunk_log2=16, chunks=CHUNKS[:1],
                            device="cpu", log=lambda m: None)
    from judge.reports import write_audit
    from judge.results import AuditRun
    from judge.verdict import run_meta

    gpu_f32.write_outputs(tmp_path, [res])
    write_audit(AuditRun([res.row], [], {}, run_meta(profile="sweep", seed=None, backends=[])), tmp_path)
    assert json.loads((tmp_path / "f32-sweep.json").read_text())[0]["row"]["kernel"] == "exp"
    (record,) = json.loads((tmp_path / "f32-sweeps.json").read_text())["sweeps"]
    assert record["over_bound"] > 0 and record["resident"] is True
    assert record["worst_ulp_input"].startswith("x=") and "(0x3F" in record["worst_ulp_input"]
    page = (tmp_path / "report.html").read_text()
    assert '<section id="f32-sweeps">' in page and "Exhaustive F32 sweeps" in page
    assert record["worst_ulp_input"] in page and "on device" in page
