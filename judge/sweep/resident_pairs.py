"""The 16-bit pair sweep's pairs, born and checked on the device (``Backend.device_arrays``).

Pair p of a chunk is born on the device as two int16 tensors (x = p >> 16, y = p & 0xFFFF, as
bit patterns) and the backend gets them, and a poisoned output buffer, as DLPack arrays
(``judge.sweep.resident.resident_call``); its result stays on the device, where the
repeat-determinism and unwritten-element checks read it and the fused pair kernel scores it. No
pair crosses to the host: on a GPU a chunk of 2^24 pairs costs the backend's kernel, the fused
kernel and the few pairs settled or cross-checked by the pure oracle.
"""

from __future__ import annotations

from judge.sweep.resident import resident_call
from numerics.formats import get_format
from numerics.values import POISON_BITS

TORCH_DTYPES = {"F16": "float16", "BF16": "bfloat16"}


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


def pair_call(torch, backend, contract, inputs, shape, dtype: str, fill: int | None = None):
    """Run ``backend`` on the device tensors ``inputs`` (into an output filled with the poison, or
    with ``fill``); its output bits as a flat int16 tensor."""
    return resident_call(torch, backend, contract, inputs, shape, dtype, "pair-sweep",
                         fill).contiguous().view(torch.int16)


def second_fill(dtype: str) -> int:
    """Another quiet NaN than the poison, every payload bit flipped: an output that holds the
    poison after one call and this after a call into this fill was never written. (A kernel may
    write the poison's very bits: torch's vectorised F16 remainder turns the NaN 0x7CA6 into
    0x7EA5.)"""
    fmt = get_format(dtype)
    return POISON_BITS[dtype] ^ ((1 << (fmt.mantissa_bits - 1)) - 1)


def held_poison(y, a_bits, b_bits, dtype: str):
    """Where the outputs ``y`` still hold the poison, except where an input NaN carries the
    poison's payload (a kernel that propagates it writes the poison back: indistinguishable, so
    not counted). Elementwise on numpy arrays (the host path, ``judge.sweep.pairs``) or torch
    tensors of the bits."""
    fmt = get_format(dtype)
    poison = POISON_BITS[dtype]
    keep = ~((1 << (fmt.bits - 1)) | (1 << (fmt.mantissa_bits - 1))) & ((1 << fmt.bits) - 1)
    return (y == poison) & ((a_bits & keep) != (poison & keep)) & ((b_bits & keep) != (poison & keep))


def unwritten(torch, y16, start: int, dtype: str, again=None) -> tuple[int, int | None]:
    """(count, first pair number) of outputs still holding the poison (``held_poison``, on the
    device). ``again``: a callable giving the outputs of the same call into ``second_fill``,
    asked only where some output holds the poison; those that changed were written."""
    p = pair_numbers(torch, y16.device, start, y16.numel())
    held = held_poison(y16.to(torch.int32) & 0xFFFF, p >> 16, p & 0xFFFF, dtype)
    if again is not None and bool(held.any()):
        held &= (again().to(torch.int32) & 0xFFFF) == second_fill(dtype)
    count = int(held.sum())
    return count, (start + int(torch.nonzero(held)[0, 0]) if count else None)
