"""Kernel calls of the F32 sweep that stay on the GPU (``Backend.device_arrays == "dlpack"``).

The sweep's inputs are born on the device (an iota over bit patterns) and its reference and
scoring run there; a backend that takes device-resident calls gets the inputs and a poisoned
output buffer as device tensors and returns a device array, so no element crosses to the host.
A backend that returns a host array anyway (or declares no device arrays) still works: its
result is uploaded.
"""

from __future__ import annotations

import numpy as np

from judge.api import KernelCall, TensorArg
from numerics.values import POISON_BITS

POISON_F32 = POISON_BITS["F32"]


def _i32(u: int) -> int:
    return u - (1 << 32) if u >= 1 << 31 else u


def resident_call(torch, backend, contract, xb, shape):
    """Run ``backend`` on the F32 inputs whose bits are the int32 device tensor ``xb``; return its
    result as a flat float32 device tensor."""
    x = xb.view(torch.float32)
    out = torch.full((x.numel(),), _i32(POISON_F32), dtype=torch.int32, device=x.device).view(torch.float32)
    call = KernelCall([TensorArg(x, shape, (1,), 0, "F32")], {}, [TensorArg(out, shape, (1,), 0, "F32")],
                      ["F32"], "f32-sweep")
    result = backend.run(contract, call)
    if result is None:
        y = out
    elif isinstance(result[0], np.ndarray):
        y = torch.from_numpy(np.ascontiguousarray(result[0])).to(x.device)
    else:
        y = torch.from_dlpack(result[0])
    if y.dtype != torch.float32 or tuple(y.shape) != tuple(shape):
        raise AssertionError(f"{backend.name} returned {y.dtype} {tuple(y.shape)}, expected float32 {shape}")
    return y.reshape(-1)


def takes_device_arrays(backend, device) -> bool:
    """Whether ``backend`` takes calls on ``device`` (a torch device) as DLPack arrays."""
    return getattr(backend, "device_arrays", None) == "dlpack"
