"""Fuel's slab-write op params decoded into the arguments a library kernel takes (shared by the
numpy-API and torch tables): the slab's per-axis slices and a ring write's geometry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SLICE_KINDS = ("WriteSlice", "WriteSliceRotating", "Copy")
# The byte kernels' dtypes: every float format and the integers the inventory lists.
SLICE_DTYPES = ("U8", "U32", "I16", "I32", "I64")


def slab(params: Mapping[str, Any]) -> tuple[slice, ...]:
    """WriteSlice: ``ranges`` as one slice per destination axis."""
    return tuple(slice(int(start), int(end)) for start, end in params["ranges"])


def ring(params: Mapping[str, Any], position: int) -> tuple[int, int, int]:
    """WriteSliceRotating: (axis, modulus, first slot), the first slot ``position`` reduced
    mod ``modulus`` (a U32 read as an unbounded integer, as the wrapper reads it into usize)."""
    axis, modulus = int(params["axis"]), int(params["modulus"])
    return axis, modulus, int(position) % modulus
