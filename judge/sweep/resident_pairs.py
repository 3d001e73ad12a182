"""Kernel calls of the 16-bit pair sweep that stay on the device (``Backend.device_arrays``).

Pair p of a chunk is born on the device as two int16 tensors (x = p >> 16, y = p & 0xFFFF, as
bit patterns) and the backend gets them, and a poisoned output buffer, as DLPack arrays; its
result stays on the device, where the repeat-determinism and unwritten-element checks read it
and the fused pair kernel scores it. No pair crosses to the host: on a GPU a chunk of 2^24 pairs
costs the backend's kernel, the fused kernel and the few pairs settled or cross-checked by the
pure oracle. A backend that returns a host array anyway (cupy's BF16) is uploaded.
"""

from __future__ import annotations

import numpy as np

from judge.api import KernelCall, TensorArg, contiguous_strides
from numerics.formats import get_format
from numerics.values import POISON_BITS

TORCH_DTYPES = {"F16": "float16", "BF16": "bfloat16"}


def _i16(u: int) -> int:
    return u - (1 << 16) if u >= 1 << 15 else u


def pair_numbers(torch, dev, start: int, n: int):
    return torch.arange(start, start + n, dtype=torch.int64, device=dev)


def _as_i16(torch, v):
    """int64 values in [0, 2^16) as int16 with the same bits."""
    return ((v ^ 0x8000) - 0x8000).to(torch.int16)


def pair_inputs(torch, dev, start: int, n: int, dtype: str):
    """(x, y) of pairs ``start`` .. ``start + n - 1`` as flat device tensors of ``dtype``."""
    p = pair_numbers(torch, dev, start, n)
    kind = getattr(torch, TORCH_DTYPES[dtype])
    return _as_i16(torch, p >> 16).view(kind), _as_i16(torch, p & 0xFFFF).view(kind)


def pair_call(torch, backend, contract, inputs, shape, dtype: str):
    """Run ``backend`` on the device tensors ``inputs`` (flat, ``dtype``); its output bits as a
    flat int16 device tensor."""
    x = inputs[0]
    kind = getattr(torch, TORCH_DTYPES[dtype])
    out = torch.full((x.numel(),), _i16(POISON_BITS[dtype]), dtype=torch.int16, device=x.device).view(kind)
    strides = contiguous_strides(shape)
    call = KernelCall([TensorArg(t, shape, strides, 0, dtype) for t in inputs], {},
                      [TensorArg(out, shape, strides, 0, dtype)], [dtype], "pair-sweep")
    result = backend.run(contract, call)
    if result is None:
        y = out
    elif isinstance(result[0], np.ndarray):
        y = torch.from_numpy(np.ascontiguousarray(result[0]).view(get_format(dtype).bits_dtype).view(np.int16))
        y = y.to(x.device).view(kind)
    else:
        y = torch.from_dlpack(result[0])
    if y.dtype != kind or y.numel() != x.numel():
        raise AssertionError(f"{backend.name} returned {y.dtype} {tuple(y.shape)}, expected {dtype} {shape}")
    return y.reshape(-1).contiguous().view(torch.int16)


def unwritten(torch, y16, start: int, dtype: str) -> tuple[int, int | None]:
    """(count, first pair number) of outputs still holding the poison, except where an input NaN
    carries the poison's payload (``judge.sweep.pairs._unwritten``'s rule, on the device)."""
    fmt = get_format(dtype)
    poison = POISON_BITS[dtype]
    keep = ~((1 << (fmt.bits - 1)) | (1 << (fmt.mantissa_bits - 1))) & ((1 << fmt.bits) - 1)
    p = pair_numbers(torch, y16.device, start, y16.numel())
    held = ((y16.to(torch.int32) & 0xFFFF) == poison) & (((p >> 16) & keep) != (poison & keep)) \
        & ((p & keep) != (poison & keep))
    count = int(held.sum())
    return count, (start + int(torch.nonzero(held)[0, 0]) if count else None)
