"""Launcher of the last-axis row kernels (shaders/rows.comp): SoftmaxLastDim, RmsNormLastDim and
LayerNormLastDim, F32, contiguous, one workgroup per row."""

from __future__ import annotations

import math

import numpy as np

from backends.kompute import device
from backends.kompute.layout import check_contiguous, from_words, words_of
from judge.api import KernelCall
from numerics.formats import get_format

# Word offsets in the metadata block (shaders/common.glsl).
M_N, M_OP, M_COUNT, M_PARAM = 0, 1, 3, 40


def _geometry(kernel: str, call: KernelCall) -> tuple[int, int]:
    """(outer_count, last_dim) of the input, checked against the op params and the output."""
    (x,) = call.inputs
    shape = tuple(x.shape)
    last = shape[-1] if shape else 1
    outer = math.prod(shape[:-1]) if shape else 1
    given = (int(call.params.get("outer_count", outer)), int(call.params.get("last_dim", last)))
    if given != (outer, last):
        raise ValueError(f"{kernel}: params outer_count={given[0]}, last_dim={given[1]} do not "
                         f"match an input of shape {shape} (expected {outer}, {last})")
    if tuple(call.outputs[0].shape) != shape:
        raise ValueError(f"{kernel}: output shape {call.outputs[0].shape} differs from the input's {shape}")
    return outer, last


def run_rows(entry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    (x,) = call.inputs
    check_contiguous(x, f"{kernel} input 0")
    outer, last = _geometry(kernel, call)
    shape = tuple(x.shape)
    n = outer * last
    dtype = get_format(x.dtype).numpy_dtype
    if n == 0:  # no rows, or empty ones: nothing to dispatch
        return [from_words(np.zeros(0, np.uint32), dtype, shape)]
    meta = np.zeros(device.META_WORDS, dtype=np.uint32)
    meta[M_N], meta[M_OP], meta[M_COUNT] = outer, entry.op_id, last
    meta[M_PARAM] = np.array([float(call.params.get("eps", 0.0))], np.float32).view(np.uint32)[0]
    words = device.dispatch(f"rows_{x.dtype.lower()}", [words_of(x.base[:n])],
                            words_of(call.outputs[0].base[:n]), meta, threads=outer * device.LOCAL_SIZE)
    return [from_words(words, dtype, shape)]


LAUNCHERS_ROWS = {"rows": run_rows}
