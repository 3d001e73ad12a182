"""The slices family: WriteSlice (a rectangular slab of the source written into the destination,
in place), WriteSliceRotating (the same, but along one axis a ring: source row k lands on slot
(position + k) mod modulus, the position a rank-0 U32 operand) and Copy (a whole buffer, bit
for bit). All three move bits, so their outputs must carry them exactly, NaN payloads and
signed zeros included (``oracles.families.slices.evaluate``).

The destination of a slab write is the kernel's output and its own memory (the contract's
``aliasing: in_place(dest)``): whatever lies outside the slab must keep its bits, and a write
past the destination's end lands in the executor's guarded tail. Cases draw slabs that end at
the destination's end, rings that wrap, positions many turns on and near the top of U32, and
odd element counts for Copy (``oracles.families.slices.draw``).
"""

from __future__ import annotations

import numpy as np

from oracles.families.slices import evaluate as e
from oracles.families.slices.draw import draw_input, draw_shapes
from oracles.family import Family
from oracles.opdef import OpDef, copy_row


def rows() -> list[OpDef]:
    return [
        copy_row("WriteSlice", 2, e.write_slice, "in place: dest[start_d:end_d per axis] = source"),
        copy_row("WriteSliceRotating", 3, e.write_slice_rotating,
             "in place: along axis, source row k to slot (position + k) mod modulus; elsewhere as WriteSlice"),
        copy_row("Copy", 1, e.copy, "out = x, bit for bit"),
    ]


def reach(opdef, flagged, params, out_shape) -> np.ndarray:
    """A flagged destination (or Copy operand) element reaches its own output; a flagged source
    element the output it is written to, or, on a ring (whose position is not known here),
    every slot of the ring axis in its line."""
    hit = np.array(flagged[0], dtype=bool).reshape(-1).copy()
    if opdef.op_kind == "Copy" or len(flagged) < 2:
        return hit.reshape(out_shape)
    src = np.array(flagged[1], dtype=bool)
    if not src.any():
        return hit.reshape(out_shape)
    if opdef.op_kind == "WriteSlice":
        targets = e.slab_targets(tuple(out_shape), src.shape, params)
        hit[[t for t, f in zip(targets, src.reshape(-1).tolist(), strict=True) if f]] = True
        return hit.reshape(out_shape)
    axis = int(params["axis"])
    lines = np.zeros(out_shape, dtype=bool)
    at = tuple(slice(None) if d == axis else slice(s, t) for d, (s, t) in enumerate(e.ranges_of(params, len(out_shape))))
    lines[at] = src.any(axis=axis, keepdims=True)
    return (hit.reshape(out_shape) | lines)


def size_plan(contract, opdef, n):
    """``judge measure``'s call at size n: a destination of n elements and a slab of half of
    it (a ring over the whole axis whose write wraps), or a copy of n elements."""
    if opdef.op_kind == "Copy":
        return [(n,)], {}
    half = max(n // 2, 0)
    if opdef.op_kind == "WriteSlice":
        start = n // 4
        return [(n,), (half,)], {"dest_shape": [n], "ranges": [[start, start + half]]}
    return [(n,), (half,), ()], {"dest_shape": [n], "axis": 0, "modulus": max(n, 1),
                                 "ranges": [[0, half]]}


FAMILY = Family(
    name="slices",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    reach=reach,
    size_plan=size_plan,
)
