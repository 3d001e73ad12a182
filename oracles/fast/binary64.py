"""The binary64 building blocks of the fast-path kernels: magnitudes, signs and selections on
the integer encodings (no arithmetic), and the rounding constants (``oracles.fast.kernels`` states
the error-analysis conventions)."""

from __future__ import annotations

import numpy as np

_ABS = np.uint64((1 << 63) - 1)
_SIGN = np.uint64(1 << 63)
_MAGIC = 6755399441055744.0  # 1.5·2^52: (z + M) − M is z rounded to the nearest integer


def _mag(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x).view(np.uint64) & _ABS


def _bits(v: float) -> np.uint64:
    return np.float64(v).view(np.uint64)


def _negative(x: np.ndarray) -> np.ndarray:
    return (np.ascontiguousarray(x).view(np.uint64) & _SIGN) != 0


def _abs(x: np.ndarray) -> np.ndarray:
    return _mag(x).view(np.float64)


def _where_ok(x: np.ndarray, ok: np.ndarray, fill: float) -> np.ndarray:
    """x with the elements outside ``ok`` replaced by ``fill`` (a copy of bits, no arithmetic)."""
    if ok.all():
        return x
    x = x.copy()
    x[~ok] = fill
    return x


def _flip(y, mask):
    """y with the sign of the elements in ``mask`` flipped (exact)."""
    b = np.ascontiguousarray(y).view(np.uint64) ^ (mask.astype(np.uint64) << np.uint64(63))
    return b.view(np.float64)
