"""Index bookkeeping for the oracle: broadcasting and which input elements fold into which output.

numpy is used here only as a container (broadcast views, index arithmetic on ``arange``), never to
compute a value the oracle certifies.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def as_floats(arr: np.ndarray) -> list[float]:
    """Elements of a float array as Python floats, C order (exact: every format fits binary64)."""
    with np.errstate(invalid="ignore"):  # ml_dtypes warns on NaN casts; the cast is exact
        return np.asarray(arr).astype(np.float64).ravel().tolist()


def as_bools(arr: np.ndarray) -> list[bool]:
    return np.asarray(arr).astype(bool).ravel().tolist()


def broadcast(arrays: Sequence[np.ndarray]) -> tuple[tuple[int, ...], list[np.ndarray]]:
    """numpy broadcasting of the inputs' own shapes: the result shape and broadcast views."""
    try:
        shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    except ValueError:
        shapes = ", ".join(str(np.shape(a)) for a in arrays)
        raise ValueError(f"input shapes {shapes} do not broadcast together") from None
    return tuple(shape), [np.broadcast_to(np.asarray(a), shape) for a in arrays]


def check_dims(dims: Sequence[int], rank: int) -> tuple[int, ...]:
    dims = tuple(int(d) for d in dims)
    if list(dims) != sorted(set(dims)) or any(not 0 <= d < rank for d in dims):
        raise ValueError(f"dims {list(dims)} must be sorted, unique and within 0..{rank} (exclusive)")
    return dims


def reduce_groups(
    shape: tuple[int, ...], dims: Sequence[int], keepdim: bool
) -> tuple[tuple[int, ...], np.ndarray]:
    """For a reduction of ``shape`` over ``dims``: the output shape and a 2-D int array whose row
    ``j`` lists the flat input indices folded into flat output element ``j`` (in C order over the
    reduced axes, so "first index" means first along the reduced axes)."""
    dims = check_dims(dims, len(shape))
    kept = [a for a in range(len(shape)) if a not in dims]
    idx = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)
    moved = np.transpose(idx, kept + list(dims))
    group = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    outer = int(np.prod([shape[a] for a in kept], dtype=np.int64))
    rows = moved.reshape(outer, group)
    if keepdim:
        out_shape = tuple(1 if a in dims else n for a, n in enumerate(shape))
    else:
        out_shape = tuple(shape[a] for a in kept)
    return out_shape, rows


def reduce_to_dims(input_shape: Sequence[int], output_shape: Sequence[int]) -> tuple[int, ...]:
    """Axes a reduce-to collapses: output_shape (left-padded with 1s to the input's rank) is 1
    where the input is not."""
    inp = [int(n) for n in input_shape]
    out = [int(n) for n in output_shape]
    if len(out) > len(inp):
        raise ValueError(f"output_shape {out} has a higher rank than input_shape {inp}")
    out = [1] * (len(inp) - len(out)) + out
    dims = []
    for axis, (i, o) in enumerate(zip(inp, out, strict=True)):
        if o == i:
            continue
        if o != 1:
            raise ValueError(f"output_shape {out} axis {axis} is {o}; it must be {i} or 1 (input_shape {inp})")
        dims.append(axis)
    return tuple(dims)


def object_array(values: list, shape: tuple[int, ...]) -> np.ndarray:
    """An object array of the given shape without numpy trying to unpack the elements."""
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):  # element by element: tuples must not be unpacked
        out[i] = v
    return out.reshape(shape)
