"""In-place outputs (SPEC §4 "Layouts and the executor"): the output is the input's own memory.

Where a contract declares ``aliasing: in_place(x)`` on an output, the executor hands the kernel
an output ``TensorArg`` over the very base buffer of input ``x``, with ``x``'s offset and
strides (a strided view where the contract accepts one). The base is first extended by a tail
of guard elements past the last element the view reaches, so that a kernel writing one element
beyond its region writes memory the Judge watches.

After the call the result is what the target memory holds. A backend may still return arrays
(SPEC §5 allows replacements): for an in-place output, a returned array whose bits differ from
the target memory means the kernel did not compute in place, which fails ``in_place``; the
target memory is never replaced by what was returned. Every element of the base buffer outside
the region the view covers must keep its bits, else ``outside_written``.

Where no output is declared in place, no two buffers of a call may overlap at all;
``assert_disjoint`` holds the executor to that.
"""

from __future__ import annotations

import numpy as np

from judge.api import TensorArg
from judge.guards import MIN_GUARD_BYTES
from numerics.formats import get_format

# Guard elements appended past the end of an in-place target, inside its own buffer (a store
# one past the view is ``outside_written``); the red zone of ``judge.guards`` lies beyond them.
TAIL_BYTES = MIN_GUARD_BYTES
# Finite, distinct values exactly representable in every float format.
_TAIL_VALUES = (5.5, -0.8125, 40.0, -2.25, 0.046875, 13.0, -96.0, 0.75)


def aliases(contract) -> dict[int, int]:
    """Output index -> index of the input it is declared in place of."""
    names = [s.name for s in contract.inputs]
    found = {}
    for j, spec in enumerate(contract.outputs):
        if spec.aliasing == "none":
            continue
        if spec.aliasing not in names:
            raise ValueError(f"output {spec.name!r} is declared in_place({spec.aliasing}) but the "
                             f"contract has no input of that name (inputs: {', '.join(names)})")
        found[j] = names.index(spec.aliasing)
    return found


def with_tail(t: TensorArg) -> TensorArg:
    """A fresh copy of ``t`` whose base continues past the view's last element by a tail of
    guard elements (same offset and strides, so the same layout features)."""
    fmt = get_format(t.dtype)
    n = max(2, -(-TAIL_BYTES // t.base.itemsize))
    if fmt.is_float:
        tail = np.resize(np.array(_TAIL_VALUES, dtype=np.float64), n).astype(t.base.dtype)
    else:
        tail = np.arange(1, n + 1).astype(t.base.dtype)
    return TensorArg(np.concatenate([t.base, tail]), t.shape, t.strides, t.offset, t.dtype)


def alias_of(t: TensorArg, shape: tuple[int, ...], dtype: str, where: str) -> TensorArg:
    """The output ``TensorArg`` over ``t``'s own memory (the same base object)."""
    if tuple(shape) != tuple(t.shape) or dtype != t.dtype:
        raise ValueError(f"{where}: an in-place output must have its input's shape and dtype; the "
                         f"rules give {list(shape)} {dtype}, the input is {list(t.shape)} {t.dtype}")
    return TensorArg(t.base, t.shape, t.strides, t.offset, t.dtype)


def region(t: TensorArg) -> np.ndarray:
    """Mask over ``t.base``: the elements the view covers (where the kernel may write)."""
    mask = np.zeros(t.base.size, dtype=bool)
    if t.size == 0:
        return mask
    index = np.full(t.shape, t.offset, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(t.shape, t.strides, strict=True)):
        step = np.arange(n, dtype=np.int64) * s
        index += step.reshape((1,) * axis + (n,) + (1,) * (t.ndim - axis - 1))
    mask[index.reshape(-1)] = True
    return mask


def target(t: TensorArg) -> np.ndarray:
    """The target memory as an array of the logical shape (a copy, taken after the call)."""
    return t.to_array()


def _bits(a: np.ndarray, dtype: str) -> np.ndarray:
    return np.ascontiguousarray(a).view(get_format(dtype).bits_dtype).reshape(np.shape(a))


def outside_changes(before: TensorArg, after: TensorArg) -> np.ndarray:
    """Base indices outside the view's region whose bits the call changed."""
    changed = _bits(before.base, before.dtype) != _bits(after.base, after.dtype)
    return np.flatnonzero(changed & ~region(after))


def returned_elsewhere(returned, memory: np.ndarray, dtype: str) -> int:
    """How many elements of a returned array differ in bits from the target memory (0 where
    the backend returned the target itself or an identical copy)."""
    returned = np.asarray(returned)
    if returned.shape != memory.shape or returned.dtype != memory.dtype:
        return 0  # the shape and dtype checks report it
    return int((_bits(returned, dtype) != _bits(memory, dtype)).sum())


def assert_disjoint(inputs, outputs, pairs: dict[int, int]) -> None:
    """No two buffers of one call overlap, except an output and the input it is declared in
    place of, which share one base buffer with the same offset and strides."""
    buffers = [("input", i, t) for i, t in enumerate(inputs)] + [("output", j, t) for j, t in enumerate(outputs)]
    for a in range(len(buffers)):
        for b in range(a + 1, len(buffers)):
            (ka, ia, ta), (kb, ib, tb) = buffers[a], buffers[b]
            if not np.may_share_memory(ta.base, tb.base):
                continue
            declared = ka == "input" and kb == "output" and pairs.get(ib) == ia
            same = ta.base is tb.base and (ta.offset, ta.strides) == (tb.offset, tb.strides)
            assert declared and same, (
                f"executor error: {ka} {ia} and {kb} {ib} share memory, and the contract declares "
                "no such in-place pair (aliasing: none never gets overlapping buffers)")
