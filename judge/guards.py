"""Red zones: every buffer a kernel is handed sits between poisoned guard bytes (SPEC §4).

The executor copies each operand's base buffer into an allocation of its own, laid out as

    [front guard][base buffer][back guard]

and hands the kernel the base buffer alone (a numpy view of the middle: same size, same offset
and strides as before, so every adapter reads and writes it as it always did). The guards lie
outside that array but inside the same allocation, right against it: a kernel that stores through
the buffer's address past its end, or before its start, changes guard bytes, which the executor
compares after the call (``out_of_bounds``). A guard holds at least the contract's
``alignment_bytes``, one access granule (``access_granularity_bits``) and ``MIN_GUARD_BYTES``.

Guard bytes hold the buffer dtype's poison pattern (``numerics.values.POISON_BITS``: a NaN for
floats), so a kernel that reads past either end gets a result that shows it. Where the contract
accepts a start offset on an operand, about half the cases also place its base one element past
an ``alignment_bytes`` boundary (``plan``): a kernel that assumes aligned bases reads or writes
across its boundary there.

A sandboxed backend gets the whole allocation (``for_wire`` / ``from_wire``) and sends it back
(``storage``), so what a kernel did to the guards in its worker is checked like any other write::

    zone_arg, zone = guarded(arg, "input 'x'", Plan(64, 64, (0,)), shift=0)
    ...  # the kernel runs on zone_arg
    messages = breaches(zone)  # [] where no guard byte changed
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from judge.api import KernelCall, TensorArg

MIN_GUARD_BYTES = 64  # one cache line: a vector store's worth past either end
_SHOWN = 16  # written bytes quoted in a message


@dataclass(frozen=True)
class Plan:
    """How one call's buffers are guarded: ``guard`` bytes each side, allocations aligned to
    ``align`` bytes, and per input the bytes its base sits past that alignment (0: aligned)."""

    guard: int
    align: int
    shifts: tuple[int, ...]


@dataclass(frozen=True)
class Zone:
    """One buffer's allocation: ``memory`` (bytes) holds the front guard, the base buffer's
    ``nbytes`` from byte ``front`` on, then the back guard. The view the kernel was handed spans
    bytes ``view_start`` to ``view_end`` of the base (where messages count from)."""

    name: str
    memory: np.ndarray
    front: int
    nbytes: int
    dtype: str
    base_dtype: np.dtype
    align: int
    view_start: int
    view_end: int

    def base(self) -> np.ndarray:
        return self.memory[self.front:self.front + self.nbytes].view(self.base_dtype)


def guard_bytes(caps) -> int:
    """Bytes of guard on each side: at least ``MIN_GUARD_BYTES``, the contract's alignment and
    one access granule, in whole ``MIN_GUARD_BYTES`` lines (so every element size divides it)."""
    granule = -(-(caps.access_granularity_bits or 0) // 8)
    need = max(MIN_GUARD_BYTES, caps.alignment_bytes or 0, granule)
    return -(-need // MIN_GUARD_BYTES) * MIN_GUARD_BYTES


def plan(contract, inputs: tuple[TensorArg, ...]) -> Plan:
    """The guards of one case's calls. Inputs whose layout accepts a start offset are misaligned
    by one element in about half the cases, chosen from the case's first bytes (so repeats of a
    case, and a replay of it, get the same addresses)."""
    guard = guard_bytes(contract.caps)
    align = max(MIN_GUARD_BYTES, contract.caps.alignment_bytes or 0)
    first = inputs[0].base[:64].tobytes() if inputs and isinstance(inputs[0].base, np.ndarray) else b""
    misalign = zlib.crc32(first) % 2 == 1
    shifts = tuple(t.base.itemsize if misalign and spec.layout.start_offset else 0
                   for t, spec in zip(inputs, contract.inputs, strict=True))
    return Plan(guard, align, shifts)


@cache
def _pattern(dtype: str, itemsize: int, nbytes: int) -> np.ndarray:
    """``nbytes`` of the dtype's poison pattern, element after element (read-only, cached)."""
    from numerics.formats import get_format
    from numerics.values import POISON_BITS

    bits_dtype = get_format(dtype).bits_dtype if dtype in POISON_BITS else None
    if bits_dtype is None or np.dtype(bits_dtype).itemsize != itemsize:
        one = np.full(itemsize, 0xA5, dtype=np.uint8)
    else:
        one = np.array([POISON_BITS[dtype]], dtype=bits_dtype).view(np.uint8)
    out = np.resize(one, nbytes)
    out.flags.writeable = False
    return out


def _aligned(nbytes: int, align: int) -> np.ndarray:
    raw = np.empty(nbytes + align, dtype=np.uint8)
    pad = (-raw.ctypes.data) % align
    return raw[pad:pad + nbytes]


def _span(t: TensorArg) -> tuple[int, int]:
    """Bytes of the base the view reaches: (first, one past the last)."""
    item = t.base.itemsize
    if t.size == 0:
        return t.offset * item, t.offset * item
    lo = hi = t.offset
    for n, s in zip(t.shape, t.strides, strict=True):
        lo, hi = lo + min(0, (n - 1) * s), hi + max(0, (n - 1) * s)
    return lo * item, (hi + 1) * item


def guarded(t: TensorArg, name: str, p: Plan, shift: int = 0) -> tuple[TensorArg, Zone]:
    """A copy of ``t`` in a guarded allocation: the same view over a base buffer ``shift`` bytes
    past a ``p.align`` boundary, guards of at least ``p.guard`` bytes around it."""
    zone = _zone(name, t.dtype, t.base.dtype, t.base.nbytes, p, shift, _span(t), fill_base=False)
    base = zone.base()
    base[...] = t.base
    return TensorArg(base, t.shape, t.strides, t.offset, t.dtype), zone


def poisoned(shape: tuple[int, ...], dtype: str, name: str, p: Plan) -> tuple[TensorArg, Zone]:
    """A contiguous output of ``shape`` filled with ``dtype``'s poison pattern, guarded: base and
    guards are written in one fill."""
    from judge.api import contiguous_strides
    from numerics.formats import get_format

    numpy_dtype = np.dtype(get_format(dtype).numpy_dtype)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    zone = _zone(name, dtype, numpy_dtype, n * numpy_dtype.itemsize, p, 0, (0, n * numpy_dtype.itemsize),
                 fill_base=True)
    return TensorArg(zone.base(), tuple(shape), contiguous_strides(tuple(shape)), 0, dtype), zone


def _zone(name, dtype, base_dtype, nbytes, p: Plan, shift, span, *, fill_base: bool) -> Zone:
    front = -(-p.guard // p.align) * p.align + shift  # the base: ``shift`` past an aligned address
    memory = _aligned(front + nbytes + p.guard, p.align)
    item = base_dtype.itemsize
    if fill_base:  # every length here is a whole number of elements
        memory.view(_unsigned(item))[...] = _pattern(dtype, item, item).view(_unsigned(item))[0]
    else:
        memory[:front] = _pattern(dtype, item, front)
        memory[front + nbytes:] = _pattern(dtype, item, p.guard)
    return Zone(name, memory, front, nbytes, dtype, base_dtype, p.align, *span)


def _unsigned(itemsize: int) -> np.dtype:
    return np.dtype(f"u{itemsize}")


@cache
def _pattern_bytes(dtype: str, itemsize: int, nbytes: int) -> bytes:
    return _pattern(dtype, itemsize, nbytes).tobytes()


def breaches(zone: Zone) -> list[str]:
    """What the call did to the guards: one sentence per side whose bytes changed (none: [])."""
    item = zone.base_dtype.itemsize
    end = zone.front + zone.nbytes
    found = []
    for side, lo, hi, origin, word in (("before", 0, zone.front, zone.front + zone.view_start, "start"),
                                       ("after", end, zone.memory.size, zone.front + zone.view_end, "end")):
        now = zone.memory[lo:hi]
        if now.tobytes() == _pattern_bytes(zone.dtype, item, hi - lo):
            continue  # the usual case: one bytes compare
        changed = np.flatnonzero(now != _pattern(zone.dtype, item, hi - lo))
        first, last = lo + int(changed[0]), lo + int(changed[-1])
        written = " ".join(f"{b:02x}" for b in zone.memory[first:min(last + 1, first + _SHOWN)])
        more = " ..." if last + 1 - first > _SHOWN else ""
        found.append(
            f"{zone.name}: {changed.size} guard byte(s) {side} its buffer changed, bytes "
            f"{first - origin:+d} to {last - origin:+d} from the view's {word} "
            f"(the guard holds {hi - lo} bytes; written: {written}{more})")
    return found


def storage(call: KernelCall) -> list[np.ndarray]:
    """What holds each argument's bytes, inputs then outputs: its zone's whole allocation where
    it is guarded, else its base buffer. The sandbox copies these to and from its worker."""
    zones = call.zones or [None] * (len(call.inputs) + len(call.outputs))
    return [z.memory if z is not None else t.base
            for t, z in zip([*call.inputs, *call.outputs], zones, strict=True)]


def for_wire(call: KernelCall) -> KernelCall:
    """``call`` to pickle for a worker: guarded bases travel once, inside their zones."""
    if not call.zones:
        return call
    n = len(call.inputs)
    args = [t if z is None else replace(t, base=None)
            for t, z in zip([*call.inputs, *call.outputs], call.zones, strict=True)]
    return replace(call, inputs=args[:n], outputs=args[n:])


def from_wire(call: KernelCall) -> KernelCall:
    """The worker's side of ``for_wire``: each zone in an allocation aligned as in the parent,
    its arguments' bases views of it again (an in-place pair shares one)."""
    if not call.zones:
        return call
    moved: dict[int, Zone] = {}
    for z in call.zones:
        if z is not None and id(z) not in moved:
            memory = _aligned(z.memory.size, z.align)
            memory[...] = z.memory
            moved[id(z)] = replace(z, memory=memory)
    zones = [None if z is None else moved[id(z)] for z in call.zones]
    bases = {key: z.base() for key, z in moved.items()}
    n = len(call.inputs)
    args = [t if z is None else replace(t, base=bases[id(z)])
            for t, z in zip([*call.inputs, *call.outputs], call.zones, strict=True)]
    return replace(call, inputs=args[:n], outputs=args[n:], zones=zones)
