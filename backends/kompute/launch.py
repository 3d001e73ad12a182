"""One launcher per kernel family: TensorArgs and params in, metadata and words to the device,
numpy arrays out."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from backends.kompute import device
from backends.kompute.launch_matmul import LAUNCHERS_MATMUL
from backends.kompute.launch_move import run_move
from backends.kompute.launch_rows import LAUNCHERS_ROWS
from backends.kompute.layout import (
    broadcast_strides,
    check_contiguous,
    check_walkable,
    coalesce,
    from_words,
    padded,
    reachable_words,
    words_of,
)
from backends.kompute.ops import OpEntry, program_name
from backends.kompute.params import param_words
from judge.api import KernelCall, TensorArg, contiguous_strides
from numerics.formats import get_format

# Word offsets in the metadata block (shaders/common.glsl).
M_N, M_OP, M_FLAGS, M_COUNT, M_DIM_STRIDE = 0, 1, 2, 3, 4
M_SHAPE, M_STRIDE0, M_STRIDE1, M_STRIDE2, M_PARAM = 8, 16, 24, 32, 40


def _meta(n: int, op_id: int) -> np.ndarray:
    meta = np.zeros(device.META_WORDS, dtype=np.uint32)
    meta[M_N] = n
    meta[M_OP] = op_id
    meta[M_SHAPE:M_STRIDE0] = 1
    return meta


def _put(meta: np.ndarray, at: int, values: list[int]) -> None:
    meta[at: at + len(values)] = values


def _poison_words(call: KernelCall, n: int) -> np.ndarray:
    out = call.outputs[0]
    return words_of(out.base[:n])


def _result(words: np.ndarray, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    return from_words(words, get_format(dtype).numpy_dtype, shape)


def _out_shape(call: KernelCall) -> tuple[int, ...]:
    return tuple(call.outputs[0].shape)


def _is_unit(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    return len(shape) == 0 or (len(shape) == 1 and strides[0] == 1)


def run_unary(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    what = f"{kernel} input 0"
    check_walkable(x, what)
    shape = _out_shape(call)
    n = int(np.prod(shape, dtype=np.int64))
    if tuple(x.shape) != shape:
        raise ValueError(f"{kernel}: input shape {x.shape} differs from output shape {shape}")
    if n == 0:
        return [_result(np.zeros(0, np.uint32), x.dtype, shape)]
    meta = _meta(n, entry.op_id)
    _put(meta, M_PARAM, param_words(entry.params, call.params, x.dtype))
    if x.dtype == "BF16":
        check_contiguous(x, what)
        words = device.dispatch("unary_bf16", [words_of(x.base[:n])], _poison_words(call, n),
                                meta, threads=(n + 1) // 2)
        return [_result(words, x.dtype, shape)]
    cshape, (cstrides,) = coalesce(shape, [tuple(x.strides)])
    _put(meta, M_SHAPE, padded(cshape, 1, what))
    _put(meta, M_STRIDE0, padded(cstrides, 0, what))
    meta[M_FLAGS] = 1 if _is_unit(cshape, cstrides) else 0
    words = device.dispatch(program_name(entry, x.dtype), [reachable_words(x)],
                            _poison_words(call, n), meta, threads=n)
    return [_result(words, x.dtype, shape)]


def run_binary(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    lhs, rhs = call.inputs
    if lhs.dtype != rhs.dtype:
        raise ValueError(f"{kernel}: operand dtypes differ ({lhs.dtype}, {rhs.dtype})")
    shape = _out_shape(call)
    strides = []
    for i, arg in enumerate((lhs, rhs)):
        check_walkable(arg, f"{kernel} input {i}")
        strides.append(broadcast_strides(arg, shape, f"{kernel} input {i}"))
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return [_result(np.zeros(0, np.uint32), lhs.dtype, shape)]
    cshape, (s0, s1) = coalesce(shape, strides)
    meta = _meta(n, entry.op_id)
    what = f"{kernel} output"
    _put(meta, M_SHAPE, padded(cshape, 1, what))
    _put(meta, M_STRIDE0, padded(s0, 0, what))
    _put(meta, M_STRIDE1, padded(s1, 0, what))
    meta[M_FLAGS] = (1 if _is_unit(cshape, s0) else 0) | (2 if _is_unit(cshape, s1) else 0)
    threads = (n + 1) // 2 if lhs.dtype == "BF16" else n
    words = device.dispatch(program_name(entry, lhs.dtype),
                            [reachable_words(lhs), reachable_words(rhs)],
                            _poison_words(call, n), meta, threads=threads)
    return [_result(words, lhs.dtype, shape)]


def _reduce_dims(params: Mapping[str, Any], rank: int, kernel: str) -> list[int]:
    dims = [int(d) for d in params.get("dims", [])]
    if any(d < 0 or d >= rank for d in dims) or len(set(dims)) != len(dims):
        raise ValueError(f"{kernel}: dims {dims} are not unique axes of a rank-{rank} input")
    return sorted(dims)


def _split_axes(x: TensorArg, dims: list[int], what: str):
    """(kept shape, kept strides, reduced shape, reduced strides), each merged and padded."""
    strides = contiguous_strides(tuple(x.shape))
    kept = [d for d in range(x.ndim) if d not in dims]
    kshape, (kstr,) = coalesce(tuple(x.shape[d] for d in kept), [tuple(strides[d] for d in kept)])
    rshape, (rstr,) = coalesce(tuple(x.shape[d] for d in dims), [tuple(strides[d] for d in dims)])
    return (padded(kshape, 1, what), padded(kstr, 0, what),
            padded(rshape, 1, what), padded(rstr, 0, what))


def run_reduce(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    what = f"{kernel} input 0"
    check_contiguous(x, what)
    dims = _reduce_dims(call.params, x.ndim, kernel)
    shape = _out_shape(call)
    n = int(np.prod([x.shape[d] for d in range(x.ndim) if d not in dims], dtype=np.int64))
    count = int(np.prod([x.shape[d] for d in dims], dtype=np.int64))
    if n != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"{kernel}: output shape {shape} does not hold {n} reduced elements")
    if n == 0:
        return [_result(np.zeros(0, np.uint32), x.dtype, shape)]
    meta = _meta(n, entry.op_id)
    meta[M_COUNT] = count
    kshape, kstr, rshape, rstr = _split_axes(x, dims, what)
    _put(meta, M_SHAPE, kshape)
    _put(meta, M_STRIDE0, kstr)
    _put(meta, M_STRIDE1, rshape)
    _put(meta, M_STRIDE2, rstr)
    words = device.dispatch(program_name(entry, x.dtype), [words_of(x.base[: x.size])],
                            _poison_words(call, n), meta, threads=n * device.LOCAL_SIZE)
    return [_result(words, x.dtype, shape)]


def run_argreduce(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    what = f"{kernel} input 0"
    check_contiguous(x, what)
    dims = _reduce_dims(call.params, x.ndim, kernel)
    if len(dims) != 1:
        raise ValueError(f"{kernel}: exactly one dim expected, got {dims}")
    (dim,) = dims
    shape = _out_shape(call)
    n = int(np.prod([x.shape[d] for d in range(x.ndim) if d != dim], dtype=np.int64))
    if n != int(np.prod(shape, dtype=np.int64)):
        raise ValueError(f"{kernel}: output shape {shape} does not hold {n} indices")
    if n == 0:
        return [_result(np.zeros(0, np.uint32), "U32", shape)]
    meta = _meta(n, entry.op_id)
    meta[M_COUNT] = x.shape[dim]
    meta[M_DIM_STRIDE] = contiguous_strides(tuple(x.shape))[dim]
    kshape, kstr, _, _ = _split_axes(x, dims, what)
    _put(meta, M_SHAPE, kshape)
    _put(meta, M_STRIDE0, kstr)
    words = device.dispatch(program_name(entry, x.dtype), [words_of(x.base[: x.size])],
                            _poison_words(call, n), meta, threads=n * device.LOCAL_SIZE)
    return [_result(words, "U32", shape)]


LAUNCHERS = {
    "unary": run_unary,
    "binary": run_binary,
    "reduce": run_reduce,
    "argreduce": run_argreduce,
    **LAUNCHERS_MATMUL,
    "move": run_move,
    **LAUNCHERS_ROWS,
}
