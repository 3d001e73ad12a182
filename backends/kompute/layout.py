"""Host-side views: tensor bits as uint32 words and rank<=8 shape/stride metadata.

Every buffer crosses to the device as raw uint32 words (kp's Python tensors hold float32,
float64, int32 or uint32 only); the shaders read them back as float, float16_t, double or packed
bf16 lanes, so values travel as exact bits.
"""

from __future__ import annotations

import numpy as np

from judge.api import TensorArg, contiguous_strides

MAX_RANK = 8  # MAX_RANK in shaders/common.glsl


def words_of(array: np.ndarray) -> np.ndarray:
    """The bytes of a contiguous array as uint32 words, zero-padded to a whole word."""
    raw = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    pad = (-len(raw)) % 4
    if pad:
        raw = np.concatenate([raw, np.zeros(pad, dtype=np.uint8)])
    return raw.view(np.uint32)


def from_words(words: np.ndarray, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """The first prod(shape) elements of ``dtype`` held in ``words``, with that shape."""
    n = int(np.prod(shape, dtype=np.int64))
    return words.view(np.uint8).view(dtype)[:n].reshape(shape).copy()


def check_walkable(arg: TensorArg, what: str) -> None:
    """The kernels walk non-negative strides from the buffer start; anything else is refused."""
    if arg.offset != 0:
        raise ValueError(
            f"{what}: start offset {arg.offset} given, but the Vulkan kernels take none "
            "(the executor must materialise offset views)"
        )
    if any(s < 0 for s in arg.strides):
        raise ValueError(
            f"{what}: negative strides {arg.strides} given, but the Vulkan kernels walk "
            "unsigned strides only"
        )


def check_contiguous(arg: TensorArg, what: str) -> None:
    check_walkable(arg, what)
    expected = contiguous_strides(arg.shape)
    if any(n > 1 and s != e for n, s, e in zip(arg.shape, arg.strides, expected, strict=True)):
        raise ValueError(
            f"{what}: this kernel requires a contiguous input, got shape {arg.shape} with "
            f"strides {arg.strides} (expected {expected})"
        )


def reachable_words(arg: TensorArg) -> np.ndarray:
    """The words of the base buffer up to the last element the view can reach."""
    if arg.size == 0:
        return np.zeros(0, dtype=np.uint32)
    span = 1 + sum((n - 1) * s for n, s in zip(arg.shape, arg.strides, strict=True))
    return words_of(arg.base[:span])


def broadcast_strides(arg: TensorArg, out_shape: tuple[int, ...], what: str) -> tuple[int, ...]:
    """Strides of ``arg`` viewed with ``out_shape``: left-padded, size-1 axes get stride 0."""
    pad = len(out_shape) - arg.ndim
    if pad < 0:
        raise ValueError(f"{what}: rank {arg.ndim} exceeds the output rank {len(out_shape)}")
    shape = (1,) * pad + tuple(arg.shape)
    strides = (0,) * pad + tuple(arg.strides)
    out = []
    for n, s, m in zip(shape, strides, out_shape, strict=True):
        if n == m:
            out.append(s if m != 1 else 0)
        elif n == 1:
            out.append(0)
        else:
            raise ValueError(f"{what}: shape {arg.shape} does not broadcast to {out_shape}")
    return tuple(out)


def coalesce(shape: tuple[int, ...], strides: list[tuple[int, ...]]):
    """Drop size-1 axes and merge neighbours that every operand walks as one axis.

    Returns (shape, [strides per operand]) describing the same element order, usually of much
    lower rank (a contiguous tensor becomes one axis).
    """
    keep = [d for d, n in enumerate(shape) if n != 1]
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for d in keep:
        if out_shape and all(st[-1] == s[d] * shape[d] for st, s in zip(out_strides, strides,
                                                                        strict=True)):
            out_shape[-1] *= shape[d]
            for st, s in zip(out_strides, strides, strict=True):
                st[-1] = s[d]
        else:
            out_shape.append(shape[d])
            for st, s in zip(out_strides, strides, strict=True):
                st.append(s[d])
    return tuple(out_shape), [tuple(st) for st in out_strides]


def padded(values: tuple[int, ...], fill: int, what: str) -> list[int]:
    """Left-pad to MAX_RANK axes (the shaders walk exactly MAX_RANK)."""
    if len(values) > MAX_RANK:
        raise ValueError(
            f"{what}: {len(values)} axes remain after merging, the Vulkan kernels walk at most "
            f"{MAX_RANK}"
        )
    return [fill] * (MAX_RANK - len(values)) + list(values)
