"""The data-movement launcher: Concat, IndexSelect, Gather, Flip, Roll, Triu, Tril and
MaskedFill through ``shaders/move.comp``, for elements of 1, 2, 4 or 8 bytes moved as bits.

Geometry comes from Fuel's op params (outer, axis extent, inner); the source's own shape and
element strides let the strided kernels (Concat, Flip, Roll) walk accepted views. A Concat is
one dispatch per non-empty input, each writing its slots into the words the previous one left.
"""

from __future__ import annotations

import numpy as np

from backends._move_params import MOVE_KINDS
from backends.kompute import device
from backends.kompute.layout import (
    MAX_RANK,
    check_contiguous,
    check_walkable,
    from_words,
    padded,
    reachable_words,
    words_of,
)
from backends.kompute.ops import OpEntry
from judge.api import KernelCall, TensorArg, contiguous_strides
from numerics.formats import get_format

PROGRAM = "move"
STRIDED = ("Concat", "Flip", "Roll")  # the kinds whose Vulkan kernels walk strides
# Word offsets in the metadata block (shaders/common.glsl), and this family's (shaders/move.comp).
M_N, M_OP, M_SHAPE, M_STRIDE0, M_STRIDE1, M_STRIDE2 = 0, 1, 8, 16, 24, 32
MV_ESIZE, MV_NOUT, MV_DIM, MV_INNER, MV_SRC_DIM, MV_ARG, MV_COLS, MV_FILL0 = 2, 3, 40, 41, 42, 43, 44, 45
NO_AUX = np.zeros(1, dtype=np.uint32)


def _meta(entry: OpEntry, x: TensorArg, nout: int, esize: int) -> np.ndarray:
    meta = np.zeros(device.META_WORDS, dtype=np.uint32)
    meta[M_N] = -(-nout * esize // 4)
    meta[M_OP] = entry.op_id
    meta[MV_ESIZE] = esize
    meta[MV_NOUT] = nout
    what = "data-movement source"
    meta[M_SHAPE:M_SHAPE + MAX_RANK] = padded(tuple(x.shape), 1, what)
    meta[M_STRIDE0:M_STRIDE0 + MAX_RANK] = padded(tuple(x.strides), 0, what)
    return meta


def _source(kind: str, x: TensorArg, kernel: str) -> np.ndarray:
    (check_walkable if kind in STRIDED else check_contiguous)(x, f"{kernel} input 0")
    return reachable_words(x)


def _params(kind: str, p: dict, meta: np.ndarray, call: KernelCall) -> None:
    """This family's param words for every kind but Concat."""
    if kind in ("Flip", "Roll"):
        meta[[MV_DIM, MV_INNER, MV_SRC_DIM]] = (p["dim_size"], p["inner_count"], p["dim_size"])
        meta[MV_ARG] = int(p.get("shift", 0)) % max(int(p["dim_size"]), 1)
    elif kind == "IndexSelect":
        meta[[MV_DIM, MV_INNER, MV_SRC_DIM]] = (p["n_indices"], p["inner_count"], p["source_dim_size"])
    elif kind == "Gather":
        rank = len(p["source_shape"])
        meta[MV_DIM] = MAX_RANK - rank + int(p["dim"])
        meta[M_STRIDE1:M_STRIDE1 + MAX_RANK] = padded(tuple(p["output_shape"]), 1, "Gather output")
        meta[M_STRIDE2:M_STRIDE2 + MAX_RANK] = padded(
            contiguous_strides(tuple(p["source_shape"])), 0, "Gather source")
    elif kind in ("Triu", "Tril"):
        meta[[MV_SRC_DIM, MV_COLS]] = (p["rows"], p["cols"])
        # the shader's diagonal is a 32-bit word; col - row lies in (-rows, cols), so a diagonal
        # clamped to one past either corner keeps every element's decision (an i64 one would wrap)
        diagonal = min(max(int(p["diagonal"]), -int(p["rows"]) - 1), int(p["cols"]) + 1)
        meta[MV_ARG] = diagonal & 0xFFFFFFFF
    elif kind == "MaskedFill":
        raw = bytes(int(b) for b in p["fill_bytes"]).ljust(8, b"\0")
        meta[MV_FILL0:MV_FILL0 + 2] = np.frombuffer(raw, dtype=np.uint32)


def _aux(kind: str, call: KernelCall, kernel: str) -> np.ndarray:
    if kind not in ("IndexSelect", "Gather", "MaskedFill"):
        return NO_AUX
    aux = call.inputs[1]
    check_contiguous(aux, f"{kernel} input 1")
    words = words_of(aux.base[: aux.size])
    return words if words.size else NO_AUX


def _concat(entry: OpEntry, call: KernelCall, words: np.ndarray, nout: int, esize: int, kernel: str):
    p = call.params
    total = sum(int(d) for d in p["input_dim_sizes"])
    start = 0
    for x, d in zip(call.inputs, p["input_dim_sizes"], strict=True):
        if int(d):
            meta = _meta(entry, x, nout, esize)
            meta[[MV_DIM, MV_INNER, MV_SRC_DIM, MV_ARG]] = (total, p["inner_count"], d, start)
            words = device.dispatch(PROGRAM, [_source("Concat", x, kernel), NO_AUX], words, meta,
                                    threads=int(meta[M_N]))
        start += int(d)
    return words


def run_move(entry: OpEntry, kernel: str, call: KernelCall) -> list[np.ndarray]:
    out = call.outputs[0]
    shape = tuple(out.shape)
    fmt = get_format(out.dtype)
    nout = int(np.prod(shape, dtype=np.int64))
    if nout == 0:
        return [np.zeros(shape, dtype=fmt.numpy_dtype)]
    words = words_of(out.base[:nout])  # the poison: a slot the kernel skips stays poisoned
    kind = MOVE_KINDS[entry.op_id]  # the op ids of shaders/move.comp follow MOVE_KINDS
    if kind == "Concat":
        words = _concat(entry, call, words, nout, fmt.itemsize, kernel)
    else:
        x = call.inputs[0]
        meta = _meta(entry, x, nout, fmt.itemsize)
        _params(kind, dict(call.params), meta, call)
        words = device.dispatch(PROGRAM, [_source(kind, x, kernel), _aux(kind, call, kernel)],
                                words, meta, threads=int(meta[M_N]))
    return [from_words(words, fmt.numpy_dtype, shape)]
