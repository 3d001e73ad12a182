"""Launchers of the MatMul (F32 and the mixed-precision keys, contiguous, batched with GQA) and
CumSum (strided) kernels."""

from __future__ import annotations

import numpy as np

from backends.kompute import device
from backends.kompute.layout import (
    check_contiguous,
    check_walkable,
    from_words,
    padded,
    reachable_words,
    words_of,
)
from backends.kompute.ops import key_program
from judge.api import KernelCall
from numerics.formats import get_format

# Word offsets in the metadata block (shaders/common.glsl).
M_N, M_COUNT, M_DIM_STRIDE = 0, 3, 4
M_SHAPE, M_STRIDE0, M_STRIDE1, M_PARAM = 8, 16, 24, 40


def _meta(n: int) -> np.ndarray:
    meta = np.zeros(device.META_WORDS, dtype=np.uint32)
    meta[M_N] = n
    return meta


def _finish(words: np.ndarray, dtype: str, shape: tuple[int, ...]) -> list[np.ndarray]:
    return [from_words(words, get_format(dtype).numpy_dtype, shape)]


def _poison(call: KernelCall, n: int) -> np.ndarray:
    return words_of(call.outputs[0].base[:n])


def run_matmul(entry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    lhs, rhs = call.inputs
    for i, arg in enumerate((lhs, rhs)):
        check_contiguous(arg, f"{kernel} input {i}")
    p = call.params
    lb = [int(d) for d in p["lhs_batch_dims"]]
    rb = [int(d) for d in p["rhs_batch_dims"]]
    rows, cols, depth = int(p["m"]), int(p["n"]), int(p["k"])
    if len(lb) != len(rb) or any(r == 0 or ld % r for ld, r in zip(lb, rb, strict=True) if ld):
        raise ValueError(f"{kernel}: rhs batch {rb} neither equals nor divides lhs batch {lb}")
    shape = tuple(call.outputs[0].shape)
    out_dtype = call.outputs[0].dtype
    key = (lhs.dtype, rhs.dtype, out_dtype)
    program = "matmul_f32" if key == ("F32", "F32", "F32") else key_program(entry, key)
    if program is None:
        raise ValueError(f"{kernel}: no Vulkan MatMul kernel for [{', '.join(key)}]")
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return _finish(np.zeros(0, np.uint32), out_dtype, shape)
    meta = _meta(n)
    what = f"{kernel} batch"
    meta[M_SHAPE:M_STRIDE0] = padded(tuple(lb), 1, what)
    meta[M_STRIDE0:M_STRIDE1] = padded(tuple(ld // r for ld, r in zip(lb, rb, strict=True)), 1, what)
    meta[M_STRIDE1:M_STRIDE1 + 8] = padded(tuple(rb), 1, what)
    meta[M_PARAM:M_PARAM + 3] = (rows, cols, depth)
    words = device.dispatch(program, [words_of(lhs.base[: lhs.size]), words_of(rhs.base[: rhs.size])],
                            _poison(call, n), meta, threads=n)
    return _finish(words, out_dtype, shape)


def run_cumsum(entry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    check_walkable(x, f"{kernel} input 0")
    axis = int(call.params["axis"])
    shape = tuple(x.shape)
    if not 0 <= axis < len(shape) or tuple(call.outputs[0].shape) != shape:
        raise ValueError(f"{kernel}: axis {axis} of input {shape} / output {call.outputs[0].shape}")
    n = int(np.prod(shape, dtype=np.int64))
    if n == 0:
        return _finish(np.zeros(0, np.uint32), x.dtype, shape)
    what = f"{kernel} input 0"
    lane_shape = tuple(1 if a == axis else s for a, s in enumerate(shape))
    meta = _meta(n // shape[axis])
    meta[M_COUNT] = shape[axis]
    meta[M_DIM_STRIDE] = x.strides[axis]
    meta[M_SHAPE:M_STRIDE0] = padded(lane_shape, 1, what)
    meta[M_STRIDE0:M_STRIDE1] = padded(tuple(x.strides), 0, what)
    meta[M_PARAM] = int(np.prod(shape[axis + 1:], dtype=np.int64))
    words = device.dispatch(f"cumsum_{x.dtype.lower()}", [reachable_words(x)], _poison(call, n),
                            meta, threads=n // shape[axis])
    return _finish(words, x.dtype, shape)


LAUNCHERS_MATMUL = {"matmul": run_matmul, "cumsum": run_cumsum}
