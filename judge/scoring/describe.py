"""How failure messages spell a value: ``1.5 (0x3FC0)``, the number and its bits."""

from __future__ import annotations

import numpy as np

from numerics.formats import Format


def bits_dtype(itemsize: int) -> np.dtype:
    """The unsigned integer dtype of a value's bits."""
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[itemsize])


def describe(value) -> str:
    """A scalar as ``value (0xBITS)``."""
    arr = np.asarray(value)
    bits = int(arr.reshape(1).view(bits_dtype(arr.itemsize))[0])
    return f"{arr.item()!r} (0x{bits:0{arr.itemsize * 2}X})"


def describe_bits(bits: int, fmt: Format) -> str:
    """The value of format ``fmt`` with these bits (any integer, signed or not), as ``value (0xBITS)``."""
    bits &= (1 << fmt.bits) - 1
    value = np.asarray([bits], dtype=fmt.bits_dtype).view(fmt.numpy_dtype)[0]
    return f"{value.item()!r} (0x{bits:0{max(fmt.bits // 4, 1)}X})"
