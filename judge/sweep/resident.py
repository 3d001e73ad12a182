"""Kernel calls of the sweeps that stay on the GPU (the F32 sweep, the 16-bit pair sweep) (``Backend.device_arrays == "dlpack"``).

The sweep's inputs are born on the device (an iota over bit patterns) and its reference and
scoring run there; a backend that takes device-resident calls gets the inputs and a poisoned
output buffer as device tensors and returns a device array, so no element crosses to the host.
A backend that returns a host array anyway (or declares no device arrays) still works: its
result is uploaded.
"""

from __future__ import annotations

import numpy as np

from judge.api import KernelCall, TensorArg, contiguous_strides
from numerics.values import POISON_BITS


def _signed(bits: int, width: int) -> int:
    return bits - (1 << width) if bits >= 1 << (width - 1) else bits


def resident_call(torch, backend, contract, inputs, shape, dtype: str, label: str, fill: int | None = None):
    """Run ``backend`` on the flat device tensors ``inputs`` (of ``dtype``) as a call of ``shape``,
    on a poisoned device output (or one filled with the bits ``fill``); return its result as a
    flat device tensor of ``dtype``."""
    x = inputs[0]
    width = 8 * x.element_size()
    bits_kind = {16: torch.int16, 32: torch.int32, 64: torch.int64}[width]
    fill = POISON_BITS[dtype] if fill is None else fill
    out = torch.full((x.numel(),), _signed(fill, width), dtype=bits_kind, device=x.device).view(x.dtype)
    strides = contiguous_strides(shape)
    call = KernelCall([TensorArg(t, shape, strides, 0, dtype) for t in inputs], {},
                      [TensorArg(out, shape, strides, 0, dtype)], [dtype], label)
    result = backend.run(contract, call)
    if result is None:
        y = out
    elif isinstance(result[0], np.ndarray):  # a host result (cupy narrows BF16 there): uploaded
        host = np.ascontiguousarray(result[0])
        y = torch.from_numpy(host.view(f"int{width}")).to(x.device).view(x.dtype)
    else:
        y = torch.from_dlpack(result[0])
    if y.dtype != x.dtype or tuple(y.shape) != tuple(shape):
        raise AssertionError(f"{backend.name} returned {y.dtype} {tuple(y.shape)}, expected "
                             f"{str(x.dtype).removeprefix('torch.')} {shape}")
    return y.reshape(-1)


def takes_device_arrays(backend, device) -> bool:
    """Whether ``backend`` takes calls on ``device`` (a torch device) as DLPack arrays."""
    return getattr(backend, "device_arrays", None) == "dlpack"
