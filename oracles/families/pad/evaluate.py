"""Pad and PadBackward over every axis, each with its own (before, after) padding.

Along an axis of n input elements, output position p (0 ≤ p < before + n + after) reads input
q = p − before where 0 ≤ q < n, and otherwise, by ``mode_tag``:

- 0, Constant: the fill element (``fill_bytes``, one element of the data's format, its bits);
- 1, Reflect: the mirror image without repeating the edge, q → −q below and 2(n − 1) − q above
  (before and after at most n − 1);
- 2, Replicate: the nearest edge element, q clamped into [0, n − 1] (n ≥ 1 where padded).

An output element reads the input element whose per-axis indices those are (the fill where any
axis falls outside under Constant). Pad copies bits: NaN payloads and the sign of zero arrive
unchanged. PadBackward sums the gradient of every output position into the input position it
read: under Constant each input receives one gradient (a slice of the output's), under Reflect
and Replicate several, in an order the kernel chooses; its accumulator is the data's own format
("typed accumulation"), and each element is held to the derived bound of its sum
(``oracles.families.conv.dot``).

    >>> source_index(-2, 4, 1), source_index(5, 4, 1), source_index(-2, 4, 2)
    (2, 1, 0)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from numerics.formats import dtype_name, get_format
from oracles.output import OracleOutput, float_output, out_format, output_spec
from oracles.shapes import as_floats, object_array

MODES = {0: "Constant", 1: "Reflect", 2: "Replicate"}


def source_index(q: int, n: int, mode: int) -> int | None:
    """The input index output offset q (= p − before) reads along an axis of n, or None for
    the fill."""
    if 0 <= q < n:
        return q
    if mode == 0:
        return None
    if mode == 2:
        return min(max(q, 0), n - 1)
    return -q if q < 0 else 2 * (n - 1) - q


def pad_geometry(params: Mapping[str, Any], in_shape: Sequence[int]) -> tuple[list[tuple[int, int]], int, tuple]:
    """(per-axis (before, after), mode, out shape), checked against the input and the mode."""
    pads = [(int(b), int(a)) for b, a in params["padding"]]
    mode = int(params.get("mode_tag", 0))
    shape = tuple(int(n) for n in in_shape)
    if mode not in MODES:
        raise ValueError(f"mode_tag {mode} is none of {MODES}")
    if len(pads) != len(shape) or tuple(int(n) for n in params.get("in_shape", shape)) != shape:
        raise ValueError(f"padding {pads} / in_shape {params.get('in_shape')} do not fit an input of shape {list(shape)}")
    out = tuple(n + b + a for n, (b, a) in zip(shape, pads, strict=True))
    if tuple(int(n) for n in params.get("out_shape", out)) != out:
        raise ValueError(f"out_shape {params.get('out_shape')} is not in_shape + padding = {list(out)}")
    for axis, (n, (b, a)) in enumerate(zip(shape, pads, strict=True)):
        if mode == 1 and max(b, a) > max(n - 1, 0):
            raise ValueError(f"Reflect padding {(b, a)} on axis {axis} of {n} elements exceeds n - 1")
        if mode == 2 and n == 0 and b + a:
            raise ValueError(f"Replicate padding {(b, a)} on an empty axis {axis}")
    return pads, mode, out


def _maps(shape, pads, mode) -> list[list[int | None]]:
    """Per axis, the input index each output position reads (None: the fill)."""
    return [[source_index(p - b, n, mode) for p in range(n + b + a)] for n, (b, a) in zip(shape, pads, strict=True)]


def _flat(index: Sequence[int], shape: Sequence[int]) -> int:
    flat = 0
    for i, n in zip(index, shape, strict=True):
        flat = flat * n + i
    return flat


def _bits(array: np.ndarray) -> list[int]:
    a = np.ascontiguousarray(array)
    return a.view(get_format(dtype_name(a.dtype)).bits_dtype).reshape(-1).tolist()


def fill_of(params: Mapping[str, Any], fmt: str) -> int:
    raw = [int(b) for b in params["fill_bytes"]]
    width = get_format(fmt).itemsize
    if len(raw) != width or any(not 0 <= b < 256 for b in raw):
        raise ValueError(f"fill_bytes {raw} is not one {fmt} element ({width} bytes)")
    return int.from_bytes(bytes(raw), "little")


def evaluate_pad(inputs, params, out_dtypes, rules):
    x = np.asarray(inputs[0])
    pads, mode, out = pad_geometry(params, x.shape)
    fmt = out_format(out_dtypes)
    fill = fill_of(params, fmt)
    flat = _bits(x)
    bits = []
    for src in itertools.product(*_maps(x.shape, pads, mode)):
        bits.append(fill if None in src else flat[_flat(src, x.shape)])
    f = get_format(fmt)
    raw = np.array(bits, dtype=f.bits_dtype).reshape(out)
    return [OracleOutput(expected=raw.view(f.numpy_dtype))]


def pad_backward_sources(in_shape, pads, mode) -> list[list[int]]:
    """Per input element (flat), the flat output positions whose gradients it receives."""
    sources: list[list[int]] = [[] for _ in range(int(np.prod(in_shape, dtype=np.int64)))]
    for o, src in enumerate(itertools.product(*_maps(in_shape, pads, mode))):
        if None not in src:
            sources[_flat(src, in_shape)].append(o)
    return sources


def evaluate_pad_backward(inputs, params, out_dtypes, rules):
    from oracles.families.conv.dot import Grid

    g = np.asarray(inputs[0])
    in_shape = tuple(int(n) for n in params["in_shape"])
    pads, mode, out = pad_geometry(params, in_shape)
    if tuple(g.shape) != out:
        raise ValueError(f"PadBackward gradient {list(g.shape)} is not the padded shape {list(out)}")
    fmt, _ = output_spec(out_dtypes)
    name = dtype_name(g.dtype)
    grid = Grid(name, fmt, name)  # typed accumulation: the sum is formed in the data's format
    values = as_floats(g) if g.size else []
    lifted = grid.lift_all(values)
    results, terms = [], []
    for sources in pad_backward_sources(in_shape, pads, mode):
        res, term = grid.element([], [(lifted[o], values[o]) for o in sources])
        results.append(res)
        terms.append(term)
    return [float_output(results, fmt, in_shape, terms=object_array(terms, in_shape), acc_format=name)]


def pad_shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
    """The ``pad(x)`` output shape rule: in_shape + before + after per axis, checked."""
    return pad_geometry(params, shapes[0])[2]


def pad_backward_shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
    """The ``pad_backward(grad_out)`` output shape rule: in_shape, checked against the gradient."""
    in_shape = tuple(int(n) for n in params["in_shape"])
    if pad_geometry(params, in_shape)[2] != tuple(shapes[0]):
        raise ValueError(f"gradient {list(shapes[0])} is not in_shape {list(in_shape)} padded by {params['padding']}")
    return in_shape
