"""Slab writes and copies: WriteSlice, WriteSliceRotating, Copy.

These kernels move bits. WriteSlice leaves its destination with a rectangular slab replaced by
the source; WriteSliceRotating does the same except along one axis, where source row k lands on
ring slot (position + k) mod modulus; Copy returns its operand unchanged. Every evaluation works
on bit patterns as Python integers and computes by index arithmetic over Fuel's op params which
destination element each source element overwrites (``slab_targets``), so the expected output
carries the inputs' exact bits, NaN payloads and signed zeros included.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from numerics.formats import dtype_name, get_format
from oracles.output import OracleOutput, out_format

Shape = tuple[int, ...]


def bits_list(array: np.ndarray) -> list[int]:
    """The elements of ``array`` as bit-pattern integers, C order."""
    a = np.ascontiguousarray(array)
    return a.view(get_format(dtype_name(a.dtype)).bits_dtype).reshape(-1).tolist()


def _box(bits: list[int], out_dtypes: Sequence, shape: Shape) -> list[OracleOutput]:
    fmt = get_format(out_format(out_dtypes))
    raw = np.array(bits, dtype=fmt.bits_dtype).reshape(shape)
    return [OracleOutput(expected=raw.view(fmt.numpy_dtype))]


def ranges_of(params: Mapping[str, Any], rank: int) -> list[tuple[int, int]]:
    """``ranges`` as (start, end) per axis, one per destination axis."""
    try:
        ranges = [(int(a), int(b)) for a, b in params["ranges"]]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"op params need ranges, one [start, end] per axis (got {dict(params)})") from e
    if len(ranges) != rank:
        raise ValueError(f"ranges {ranges} has {len(ranges)} entries for a rank-{rank} destination")
    return ranges


def _dest_shape(params: Mapping[str, Any], dest: Shape) -> Shape:
    stated = tuple(int(s) for s in params.get("dest_shape", dest))
    if stated != tuple(dest):
        raise ValueError(f"dest_shape {list(stated)} is not the destination's shape {list(dest)}")
    return stated


def ring_axis(params: Mapping[str, Any], rank: int) -> tuple[int, int]:
    """(axis, modulus) of a rotating write, checked."""
    try:
        axis, modulus = int(params["axis"]), int(params["modulus"])
    except KeyError as e:
        raise ValueError(f"WriteSliceRotating params need axis and modulus (got {dict(params)})") from e
    if not 0 <= axis < rank or modulus < 1:
        raise ValueError(f"axis {axis} must be in 0..{rank} and modulus {modulus} at least 1")
    return axis, modulus


def slab_targets(dest: Shape, source: Shape, params: Mapping[str, Any],
                 position: int | None = None) -> list[int]:
    """The destination element (flat, C order) each source element (flat) overwrites.

    On every axis d source index j lands on ``ranges[d][0] + j``; with a ``position`` (a rotating
    write) the ring axis instead puts source index k on ``(position + k) mod modulus``, and its
    range's start is not read (only its width)."""
    dest = _dest_shape(params, dest)
    ranges = ranges_of(params, len(dest))
    axis, modulus = ring_axis(params, len(dest)) if position is not None else (-1, 0)
    lines: list[list[int]] = []
    for d, ((start, end), n, m) in enumerate(zip(ranges, dest, source, strict=True)):
        if end - start != m or start < 0:
            raise ValueError(f"axis {d}: range [{start}, {end}) does not hold the source's {m} elements")
        if d == axis:
            if m > modulus or modulus > n:
                raise ValueError(f"ring axis {d}: width {m} must be <= modulus {modulus} <= {n}")
            lines.append([(position + k) % modulus for k in range(m)])
        else:
            if end > n:
                raise ValueError(f"axis {d}: range [{start}, {end}) leaves the destination's {n} elements")
            lines.append(list(range(start, end)))
    strides = [math.prod(dest[d + 1:]) for d in range(len(dest))]
    return [sum(i * s for i, s in zip(at, strides, strict=True)) for at in itertools.product(*lines)]


def _scalar(position: np.ndarray) -> int:
    values = np.asarray(position).reshape(-1).tolist()
    if len(values) != 1:
        raise ValueError(f"the position operand must hold one element, it holds {len(values)}")
    return int(values[0])


def _write(dest: np.ndarray, source: np.ndarray, targets: list[int], out_dtypes) -> list[OracleOutput]:
    out = bits_list(dest)
    for t, b in zip(targets, bits_list(source), strict=True):
        out[t] = b
    return _box(out, out_dtypes, tuple(np.shape(dest)))


def write_slice(inputs, params, out_dtypes, rules):
    """out = dest; out[start_0:end_0, start_1:end_1, ...] = source."""
    dest, source = (np.asarray(x) for x in inputs[:2])
    return _write(dest, source, slab_targets(dest.shape, source.shape, params or {}), out_dtypes)


def write_slice_rotating(inputs, params, out_dtypes, rules):
    """out = dest; along the ring axis source row k goes to slot (position + k) mod modulus,
    elsewhere as WriteSlice."""
    dest, source, position = (np.asarray(x) for x in inputs[:3])
    targets = slab_targets(dest.shape, source.shape, params or {}, _scalar(position))
    return _write(dest, source, targets, out_dtypes)


def copy(inputs, params, out_dtypes, rules):
    """out = x, bit for bit."""
    x = np.asarray(inputs[0])
    return _box(bits_list(x), out_dtypes, tuple(x.shape))
