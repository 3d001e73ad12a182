"""Slab writes and copies for torch. WriteSlice and WriteSliceRotating write into their target,
``args[0]`` (on the CPU a tensor over the destination's own memory), with ``Tensor.copy_`` on
the slab's view and return None; a ring write is the two ``copy_`` calls of a ring buffer, the
rows up to the ring's end and the rest from slot 0 (``index_copy_`` has no UInt32 kernel).
Copy returns ``Tensor.clone``. Merged into ``_torch_ops.TORCH_TABLE``."""

from __future__ import annotations

from backends._slice_params import ring, slab


def _write_slice(env, args):
    dest, source = args[:2]
    dest[slab(env.op.params)].copy_(source)


def _write_slice_rotating(env, args):
    dest, source, position = args[:3]
    axis, modulus, first = ring(env.op.params, int(position.reshape(-1)[0].item()))
    at = list(slab(env.op.params))
    at[axis] = slice(None)
    view = dest[tuple(at)]
    width = source.shape[axis]
    head = min(width, modulus - first)
    view.narrow(axis, first, head).copy_(source.narrow(axis, 0, head))
    view.narrow(axis, 0, width - head).copy_(source.narrow(axis, head, width - head))


def _copy(env, args):
    return args[0].clone()


TORCH_SLICES: dict = {
    "WriteSlice": _write_slice,
    "WriteSliceRotating": _write_slice_rotating,
    "Copy": _copy,
}
