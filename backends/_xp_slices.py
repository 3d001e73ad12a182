"""Slab writes and copies for numpy-API libraries. WriteSlice and WriteSliceRotating write into
their target, ``args[0]`` (a writable view of the destination's own memory), with the library's
slice assignment, and return None; a ring write assigns along the ring axis through an index
array of slots (position + k) mod modulus. Copy returns the library's ``copy`` of its operand.
Merged into ``_xp_ops.XP_TABLE``."""

from __future__ import annotations

from backends._slice_params import ring, slab


def _write_slice(env, args):
    dest, source = args[:2]
    dest[slab(env.op.params)] = source


def _write_slice_rotating(env, args):
    dest, source, position = args[:3]
    xp = env.xp
    axis, modulus, first = ring(env.op.params, int(position.reshape(-1)[0]))
    at = list(slab(env.op.params))
    at[axis] = (first + xp.arange(source.shape[axis])) % modulus
    dest[tuple(at)] = source


def _copy(env, args):
    return env.xp.copy(args[0])


XP_SLICES: dict = {
    "WriteSlice": _write_slice,
    "WriteSliceRotating": _write_slice_rotating,
    "Copy": _copy,
}
