"""Exact data movement: Concat, IndexSelect, Gather, Flip, Roll, Triu, Tril, MaskedFill.

These kernels copy bits. Each evaluation works on the inputs' bit patterns as Python integers
and computes, by plain index arithmetic over Fuel's op params, which input element (or which
constant: the zero of Triu/Tril, the fill of MaskedFill) every output element holds. The
expected output therefore carries the inputs' exact bits, NaN payloads and signed zeros
included; numpy only holds the arrays.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from numerics.formats import dtype_name, get_format
from oracles.output import OracleOutput, out_format


def bits_list(array: np.ndarray) -> list[int]:
    """The elements of ``array`` as bit-pattern integers, C order."""
    a = np.ascontiguousarray(array)
    return a.view(get_format(dtype_name(a.dtype)).bits_dtype).reshape(-1).tolist()


def _box(bits: list[int], out_dtypes: Sequence, shape: tuple[int, ...]) -> list[OracleOutput]:
    fmt = get_format(out_format(out_dtypes))
    raw = np.array(bits, dtype=fmt.bits_dtype).reshape(shape)
    return [OracleOutput(expected=raw.view(fmt.numpy_dtype))]


def _ints(params: Mapping[str, Any], *names: str) -> list[int]:
    try:
        return [int(params[n]) for n in names]
    except KeyError as e:
        raise ValueError(f"op params need {', '.join(names)} (got {dict(params)})") from e


def _slab(params: Mapping[str, Any], x: np.ndarray, what: str) -> tuple[int, int, int]:
    """(outer_count, dim_size, inner_count), checked against the input's element count."""
    outer, dim, inner = _ints(params, "outer_count", "dim_size", "inner_count")
    if outer * dim * inner != x.size:
        raise ValueError(f"{what}: outer·dim·inner = {outer}·{dim}·{inner} != {x.size} elements")
    return outer, dim, inner


def concat(inputs, params, out_dtypes, rules):
    """out[o, :, i] = x_0[o, :, i] ++ x_1[o, :, i] ++ ... along the concatenated axis."""
    outer, inner, axis = _ints(params, "outer_count", "inner_count", "axis")
    sizes = [int(s) for s in params["input_dim_sizes"]]
    if len(sizes) != len(inputs):
        raise ValueError(f"input_dim_sizes {sizes} has {len(sizes)} entries for {len(inputs)} inputs")
    flats = [bits_list(x) for x in inputs]
    out: list[int] = []
    for o in range(outer):
        for flat, d in zip(flats, sizes, strict=True):
            out += flat[o * d * inner:(o + 1) * d * inner]
    shape = list(np.shape(inputs[0]))
    if shape:
        shape[axis] = sum(sizes)
    return _box(out, out_dtypes, tuple(shape))


def index_select(inputs, params, out_dtypes, rules):
    """out[o, j, i] = source[o, indices[j], i]."""
    source, indices = inputs[0], inputs[1]
    outer, size, n, inner = _ints(params, "outer_count", "source_dim_size", "n_indices", "inner_count")
    flat, idx = bits_list(source), [int(v) for v in np.asarray(indices).reshape(-1).tolist()]
    if len(idx) != n or any(not 0 <= k < size for k in idx):
        raise ValueError(f"indices {idx} are not {n} indices within 0..{size}")
    out = [flat[(o * size + k) * inner + i] for o in range(outer) for k in idx for i in range(inner)]
    return _box(out, out_dtypes, index_select_shape([np.shape(source), np.shape(indices)], params))


def index_select_shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
    """The source's shape with the selected axis replaced by the index count. The op params
    flatten the source to [outer, source_dim, inner]; the axis is the first whose leading and
    trailing products match (where several do, they differ only in size-1 axes, and every
    choice gives the same bytes)."""
    shape = tuple(int(s) for s in shapes[0])
    outer, size, n, inner = _ints(params, "outer_count", "source_dim_size", "n_indices", "inner_count")
    for d in range(len(shape)):
        if (int(np.prod(shape[:d])), shape[d], int(np.prod(shape[d + 1:]))) == (outer, size, inner):
            return shape[:d] + (n,) + shape[d + 1:]
    raise ValueError(f"source shape {list(shape)} has no axis of size {size} with {outer} before "
                     f"and {inner} after it")


def concat_shape(shapes: Sequence[tuple[int, ...]], params: Mapping[str, Any]) -> tuple[int, ...]:
    """The first input's shape with the concatenated axis summed over the inputs."""
    axis = int(params["axis"])
    shape = list(shapes[0])
    shape[axis] = sum(int(s[axis]) for s in shapes)
    return tuple(shape)


def gather(inputs, params, out_dtypes, rules):
    """out[..., j, ...] = source[..., indices[..., j, ...], ...] along ``dim``."""
    source, indices = inputs[0], inputs[1]
    src_shape = tuple(int(s) for s in params["source_shape"])
    out_shape = tuple(int(s) for s in params["output_shape"])
    dim = int(params["dim"])
    if src_shape != np.shape(source) or out_shape != np.shape(indices):
        raise ValueError(f"Gather params {dict(params)} do not match source {np.shape(source)} "
                         f"and indices {np.shape(indices)}")
    flat, idx = bits_list(source), np.asarray(indices).reshape(-1).tolist()
    strides = [int(np.prod(src_shape[d + 1:])) for d in range(len(src_shape))]
    out = []
    for at, pos in zip(itertools.product(*(range(s) for s in out_shape)), idx, strict=True):
        if not 0 <= pos < src_shape[dim]:
            raise ValueError(f"index {pos} at {list(at)} is outside 0..{src_shape[dim]}")
        out.append(flat[sum((pos if d == dim else a) * strides[d] for d, a in enumerate(at))])
    return _box(out, out_dtypes, out_shape)


def _along(x: np.ndarray, params, source_of, what: str) -> list[int]:
    """out[o, d, i] = x[o, source_of(d), i] over Fuel's [outer, dim, inner] view of ``x``."""
    outer, size, inner = _slab(params, x, what)
    flat = bits_list(x)
    return [flat[(o * size + source_of(d, size)) * inner + i]
            for o in range(outer) for d in range(size) for i in range(inner)]


def flip(inputs, params, out_dtypes, rules):
    x = inputs[0]
    return _box(_along(x, params, lambda d, n: n - 1 - d, "Flip"), out_dtypes, np.shape(x))


def roll(inputs, params, out_dtypes, rules):
    """out[d] = x[(d - shift) mod dim_size]: elements move ``shift`` places up the axis."""
    x = inputs[0]
    shift = int(params["shift"])
    return _box(_along(x, params, lambda d, n: (d - shift) % n, "Roll"), out_dtypes, np.shape(x))


def triangular(upper: bool):
    """Keep the elements on and above (Triu) / below (Tril) diagonal ``diagonal`` of each of the
    ``batch_count`` trailing rows×cols matrices; every other element becomes all-zero bits."""

    def evaluate(inputs, params, out_dtypes, rules):
        x = inputs[0]
        batch, rows, cols, diagonal = _ints(params, "batch_count", "rows", "cols", "diagonal")
        if batch * rows * cols != x.size:
            raise ValueError(f"batch·rows·cols = {batch}·{rows}·{cols} != {x.size} elements")
        flat = bits_list(x)
        kept = (lambda r, c: c - r >= diagonal) if upper else (lambda r, c: c - r <= diagonal)
        out = [flat[(b * rows + r) * cols + c] if kept(r, c) else 0
               for b in range(batch) for r in range(rows) for c in range(cols)]
        return _box(out, out_dtypes, np.shape(x))

    return evaluate


def fill_bits(params: Mapping[str, Any], fmt_name: str) -> int:
    """The fill element of MaskedFill: ``fill_bytes`` little-endian, one element of the format."""
    raw = [int(b) for b in params["fill_bytes"]]
    width = get_format(fmt_name).itemsize
    if len(raw) != width or any(not 0 <= b < 256 for b in raw):
        raise ValueError(f"fill_bytes {raw} is not one {fmt_name} element ({width} bytes)")
    return int.from_bytes(bytes(raw), "little")


def masked_fill(inputs, params, out_dtypes, rules):
    """out = fill where mask != 0 (any nonzero byte), else x."""
    x, mask = inputs[0], inputs[1]
    fill = fill_bits(params, out_format(out_dtypes))
    keep = np.asarray(mask).reshape(-1).tolist()
    out = [fill if m else v for v, m in zip(bits_list(x), keep, strict=True)]
    return _box(out, out_dtypes, np.shape(x))
