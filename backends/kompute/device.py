"""One kp.Manager per process and a cache of ready-to-run dispatches.

Creating a Vulkan pipeline (lavapipe compiles the SPIR-V with LLVM) and allocating device buffers
cost far more than a small kernel, and the suite runs hundreds of small cases. So each
(program, buffer capacities) pair gets one ``Slot``: uint32 tensors rounded up to a power of two,
one algorithm bound to them, and one recorded sequence (upload inputs, metadata and the poisoned
output; dispatch; download the output). A call copies its words into the slots' mapped host
memory and re-submits that sequence. Every kernel walks its elements with a grid-stride loop and
reads its counts from the metadata buffer, so one fixed workgroup count serves every call.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from backends.kompute.programs import spirv

META_WORDS = 48  # M_WORDS in shaders/common.glsl
MIN_WORDS = 256
MAX_WORKGROUPS = 256
LOCAL_SIZE = 64


def kp_module() -> Any:
    """Import kp on first use (the package import stays cheap)."""
    import kp

    return kp


@cache
def manager() -> Any:
    """The process-wide kp.Manager (device 0)."""
    return kp_module().Manager()


@cache
def device_name() -> str:
    return str(manager().get_device_properties()["device_name"])


def capacity(words: int) -> int:
    """Buffer size in words for ``words`` of data: a power of two, at least MIN_WORDS."""
    cap = MIN_WORDS
    while cap < words:
        cap *= 2
    return cap


@dataclass
class Slot:
    tensors: list[Any]
    views: list[np.ndarray]  # writable uint32 views of each tensor's host memory
    algorithm: Any
    sequence: Any


_SLOTS: dict[tuple, Slot] = {}
_LAST: list[Slot] = []  # the slot of the latest dispatch (for backends.kompute.timing)


def last_slot() -> Slot:
    """The slot the latest ``dispatch`` ran in (its buffers still hold that call's operands)."""
    if not _LAST:
        raise RuntimeError("no dispatch has run yet")
    return _LAST[0]


def _slot(program: str, capacities: tuple[int, ...], workgroups: int) -> Slot:
    key = (program, capacities, workgroups)
    slot = _SLOTS.get(key)
    if slot is None:
        kp = kp_module()
        mgr = manager()
        tensors = [mgr.tensor_t(np.zeros(cap, dtype=np.uint32)) for cap in capacities]
        algorithm = mgr.algorithm(tensors, spirv(program), [workgroups, 1, 1], [], [])
        sequence = (
            mgr.sequence()
            .record(kp.OpTensorSyncDevice(tensors))
            .record(kp.OpAlgoDispatch(algorithm))
            .record(kp.OpTensorSyncLocal([tensors[-2]]))
        )
        slot = Slot(tensors, [t.data() for t in tensors], algorithm, sequence)
        _SLOTS[key] = slot
    return slot


def dispatch(program: str, inputs: list[np.ndarray], output: np.ndarray, meta: np.ndarray,
             *, threads: int) -> np.ndarray:
    """Run ``program`` once.

    ``inputs`` and ``output`` are uint32 word arrays (the output pre-filled with the caller's
    poison, so words the kernel leaves unwritten come back as poison); ``meta`` is the
    META_WORDS-word metadata block; bindings are inputs..., output, meta. ``threads`` is how many
    invocations the work could use (the workgroup count is capped; kernels grid-stride).
    Returns a fresh copy of the output words.
    """
    if meta.shape != (META_WORDS,):
        raise ValueError(f"metadata must be {META_WORDS} words, got {meta.shape}")
    buffers = [*inputs, output]
    capacities = (*(capacity(len(b)) for b in buffers), META_WORDS)
    workgroups = min(MAX_WORKGROUPS, max(1, -(-capacity(threads) // LOCAL_SIZE)))
    slot = _slot(program, capacities, workgroups)
    _LAST[:] = [slot]
    for view, words in zip(slot.views, buffers, strict=False):
        view[: len(words)] = words
    slot.views[-1][:] = meta
    slot.sequence.eval()
    return slot.views[-2][: len(output)].copy()
