"""Test-only backends for the slices family: a small correct one and broken variants, each a
mistake a slab-write or copy kernel's author makes:

- ``RingForgetsModulus``: a ring write that reduces the position once and then walks the slab
  from there, never wrapping back to slot 0: rows past the ring's end land in the slots beyond
  the modulus, the next line, or past the destination's end.
- ``RingReadsRangeStart``: a ring write that takes its first slot from ``ranges[axis]`` (which
  Fuel leaves undefined on the ring axis) instead of the position operand.
- ``WriteSliceInclusiveEnd``: a slab write whose row loop runs to the range's end inclusive
  (``start..=end``), storing one element past each row of the slab.
- ``CopyDropsOddTail``: a copy that moves two elements per step and forgets the last one of an
  odd-length buffer.

Each reads ``inputs`` and writes ``outputs[0]`` through views with their own strides and offset;
the slab writes store into the target's memory and return None. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("WriteSlice", "WriteSliceRotating", "Copy")


def _view(arg, writeable: bool = False) -> np.ndarray:
    if arg.size == 0:
        return np.empty(arg.shape, dtype=arg.base.dtype)
    item = arg.base.itemsize
    return np.lib.stride_tricks.as_strided(arg.base[arg.offset:], shape=arg.shape,
                                           strides=tuple(s * item for s in arg.strides),
                                           writeable=writeable)


def _slab(params) -> list[slice]:
    return [slice(int(a), int(b)) for a, b in params["ranges"]]


class MiniSlices(judge.Backend):
    """Correct for WriteSlice, WriteSliceRotating and Copy, every dtype."""

    name = "mini-slices"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        p, op = dict(call.params), contract.op_kind
        if op == "Copy":
            return self.copy(call)
        dest = _view(call.outputs[0], writeable=True)
        source = _view(call.inputs[1]).copy()
        if op == "WriteSlice":
            self.write_slice(dest, source, p, call)
        else:
            position = int(_view(call.inputs[2]).reshape(-1)[0])
            self.write_ring(dest, source, p, position)
        return None

    def write_slice(self, dest, source, p, call):
        dest[tuple(_slab(p))] = source

    def write_ring(self, dest, source, p, position: int):
        axis, modulus = int(p["axis"]), int(p["modulus"])
        at = _slab(p)
        at[axis] = (position + np.arange(source.shape[axis], dtype=np.int64)) % modulus
        dest[tuple(at)] = source

    def copy(self, call):
        out = call.outputs[0]
        out.base[out.offset:out.offset + out.size] = _view(call.inputs[0]).reshape(-1)
        return None


class RingForgetsModulus(MiniSlices):
    """Slot (position mod modulus) + k, with no second reduction: pointer arithmetic over the
    destination's flat buffer carries the rows past the ring's end into the slots beyond the
    modulus, the next line, or past the buffer's end."""

    name = "broken-ring-no-wrap"

    def run(self, contract, call):
        if contract.op_kind != "WriteSliceRotating":
            return super().run(contract, call)
        p, out = dict(call.params), call.outputs[0]
        source = _view(call.inputs[1])
        position = int(_view(call.inputs[2]).reshape(-1)[0])
        axis, modulus = int(p["axis"]), int(p["modulus"])
        shape = [int(s) for s in p["dest_shape"]]
        strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
        starts = [int(a) for a, _ in p["ranges"]]
        starts[axis] = position % modulus
        for at in np.ndindex(*source.shape):
            offset = out.offset + sum((s + i) * st for s, i, st in zip(starts, at, strides, strict=True))
            if offset < out.base.size:  # further on, a native kernel would fault
                out.base[offset] = source[at]
        return None


class RingReadsRangeStart(MiniSlices):
    name = "broken-ring-range-start"

    def write_ring(self, dest, source, p, position):
        start = int(p["ranges"][int(p["axis"])][0])
        super().write_ring(dest, source, p, start)


class WriteSliceInclusiveEnd(MiniSlices):
    name = "broken-write-slice-inclusive"

    def write_slice(self, dest, source, p, call):
        """Row by row over the flat buffer: each row of the slab along the last axis is stored
        as ``end - start + 1`` elements, the last one read past the source row."""
        out = call.outputs[0]
        flat = out.base
        ranges = [(int(a), int(b)) for a, b in p["ranges"]]
        shape = [int(s) for s in p["dest_shape"]]
        strides = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
        src = np.concatenate([source.reshape(-1), np.zeros(1, dtype=source.dtype)])
        width = ranges[-1][1] - ranges[-1][0]
        rows = [range(a, b) for a, b in ranges[:-1]]
        k = 0
        for at in np.ndindex(*(len(r) for r in rows)) if rows else [()]:
            coords = [rows[d][i] for d, i in enumerate(at)]
            start = out.offset + sum(c * s for c, s in zip(coords, strides, strict=False)) + ranges[-1][0]
            flat[start:start + width + 1] = src[k:k + width + 1]
            k += width


class CopyDropsOddTail(MiniSlices):
    name = "broken-copy-odd-tail"

    def copy(self, call):
        out = call.outputs[0]
        x = _view(call.inputs[0]).reshape(-1)
        pairs = x.size - x.size % 2
        out.base[out.offset:out.offset + pairs] = x[:pairs]
        return None
