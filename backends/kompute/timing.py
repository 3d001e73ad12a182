"""Cost measurement on Vulkan (``judge measure``): a kernel's dispatch alone, fenced.

``timed`` runs the call once through its launcher, which leaves the operands in the device
buffers of the call's slot, then records a sequence holding only that slot's dispatch: each
repeat submits it and waits on its fence (``Sequence.eval``), so the time is the dispatch from
submission to completion, with no upload or download. ``timed_copy`` does the same for a plain
buffer copy (``shaders/copy.comp``; Kompute's OpTensorCopy also copies host memory after the
device copy, so it is not a device copy).
"""

from __future__ import annotations

import numpy as np

from backends.kompute import device
from judge.measure.timed import FunctionCall

CLOCK = "vulkan_fence_wall"
COPY_MAX_WORKGROUPS = 65535


def timed(launcher, entry, kernel: str, call) -> FunctionCall:
    launcher(entry, kernel, call)
    slot = device.last_slot()
    sequence = device.manager().sequence().record(device.kp_module().OpAlgoDispatch(slot.algorithm))
    return FunctionCall(sequence.eval, clock=CLOCK)


def timed_copy(nbytes: int) -> FunctionCall:
    kp = device.kp_module()
    mgr = device.manager()
    vectors = max(1, nbytes // 16)
    src = mgr.tensor_t(np.ones(vectors * 4, dtype=np.uint32))
    dst = mgr.tensor_t(np.zeros(vectors * 4, dtype=np.uint32))
    meta = np.zeros(device.META_WORDS, dtype=np.uint32)
    meta[0] = vectors
    meta_t = mgr.tensor_t(meta)
    groups = min(COPY_MAX_WORKGROUPS, -(-vectors // device.LOCAL_SIZE))
    from backends.kompute.programs import spirv

    algorithm = mgr.algorithm([src, dst, meta_t], spirv("copy"), [groups, 1, 1], [], [])
    mgr.sequence().eval(kp.OpTensorSyncDevice([src, dst, meta_t]))
    sequence = mgr.sequence().record(kp.OpAlgoDispatch(algorithm))
    timed = FunctionCall(sequence.eval, clock=CLOCK)
    timed.tensors = (src, dst)  # kept alive with the call; tests read the copy back
    return timed
