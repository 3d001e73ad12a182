"""Arrays the families draw as inputs (never references): a seeded generator, a forward pass's
softmax rows and restricted domains, where numpy's arithmetic is wanted for speed.

The oracle's own modules keep numpy to a container (``tests/oracle/test_walls.py``); what a family
needs of numpy's arithmetic to build realistic inputs lives here, on the lower floor, so the wall
stays a plain rule: no numeric kernel under ``oracles/``.
"""

from __future__ import annotations

import numpy as np
from numpy.random import Generator

__all__ = ["Generator", "generator", "softmax_rows", "finite_within", "signed_magnitudes"]


def generator(seed: int) -> Generator:
    """numpy's generator seeded with ``seed`` (a Hypothesis-drawn integer: shrinks with it)."""
    return np.random.default_rng(seed)


def softmax_rows(z: np.ndarray, log: bool) -> np.ndarray:
    """softmax (or log-softmax) of ``z`` along its last axis, in float64: a forward pass's output
    as a backward kernel receives it."""
    rows = z.reshape(-1, z.shape[-1]) if z.ndim else z.reshape(1, 1)
    shifted = rows - rows.max(axis=-1, keepdims=True)
    total = np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    return (shifted - total if log else np.exp(shifted - total)).reshape(z.shape)


def finite_within(v: np.ndarray, big: float) -> np.ndarray:
    """``v`` with each infinity replaced by ``big`` of its sign (NaN stays)."""
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(v), np.copysign(big, v), v)


def signed_magnitudes(v: np.ndarray, sign: str) -> np.ndarray:
    """``v``'s magnitudes (sign "nonneg"), their negations ("nonpos"), or ``v`` itself."""
    if sign == "nonneg":
        return np.abs(v)
    if sign == "nonpos":
        return -np.abs(v)
    return v


def pick(v: np.ndarray, mask: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``other`` where ``mask`` holds, else ``v`` (numpy.where)."""
    return np.where(mask, other, v)
