"""The few array operations the vector scorer needs, for numpy, cupy and torch arrays alike.

The F32 sweep scores chunks of 2^28 elements where they live (a CUDA device, as torch tensors);
the 16-bit sweeps and the tests score numpy arrays. numpy and cupy share one spelling; torch
differs in casts, clamps and error states. Nothing here imports cupy or torch: the module of the
array at hand is used.
"""

from __future__ import annotations

import contextlib

import numpy as np


def ops_for(array) -> NumpyOps | TorchOps:
    """The operations of ``array``'s module."""
    module = type(array).__module__.split(".")[0]
    if module == "torch":
        import torch

        return TorchOps(torch)
    if module == "cupy":
        import cupy

        return NumpyOps(cupy)
    return NumpyOps(np)


class NumpyOps:
    """numpy, or cupy (same names; no floating-point error state on a GPU)."""

    def __init__(self, xp):
        self.xp = xp
        self.int64, self.float64 = xp.int64, xp.float64
        self.exponent = xp.int32  # the dtype ldexp takes its exponents in

    def quiet(self):
        return np.errstate(all="ignore") if self.xp is np else contextlib.nullcontext()

    def cast(self, x, dtype):
        return x.astype(dtype)

    def clamp_min(self, x, lo: float):
        return self.xp.maximum(x, lo)

    def clamp_max(self, x, hi):
        return self.xp.minimum(x, hi)

    def zeros_int64(self, n: int, like):
        """Zeros on ``like``'s device."""
        return self.xp.zeros(n, dtype=self.xp.int64)

    def frexp_exponent(self, x):
        return self.cast(self.xp.frexp(x)[1], self.int64)

    def frexp_mantissa(self, x):
        return self.xp.frexp(x)[0]

    def ldexp(self, x, e):
        return self.xp.ldexp(x, self.cast(e, self.exponent))

    def ulp_distance(self, a_bits, b_bits, fmt):
        if self.xp is np:
            from numerics.ulp import ulp_distance

            return ulp_distance(a_bits, b_bits, fmt)
        return ordinal_distance(self, a_bits, b_bits, fmt)

    def count(self, mask) -> int:
        return int(mask.sum())

    def first(self, mask) -> int:
        return int(self.xp.flatnonzero(mask)[0])

    def indices(self, mask):
        """The positions of a flat mask's true elements, ascending, as an index array."""
        return self.xp.flatnonzero(mask)

    def item(self, x, i: int) -> int:
        return int(x[i])


class TorchOps(NumpyOps):
    def __init__(self, torch):
        self.xp = torch
        self.int64, self.float64 = torch.int64, torch.float64
        self.exponent = torch.float64

    def quiet(self):
        return contextlib.nullcontext()

    def cast(self, x, dtype):
        return x.to(dtype)

    def clamp_min(self, x, lo: float):
        return self.xp.clamp(x, min=lo)

    def clamp_max(self, x, hi):
        return self.xp.clamp(x, max=hi)

    def zeros_int64(self, n: int, like):
        return self.xp.zeros(n, dtype=self.xp.int64, device=like.device)

    def ulp_distance(self, a_bits, b_bits, fmt):
        return ordinal_distance(self, a_bits, b_bits, fmt)

    def first(self, mask) -> int:
        return int(self.xp.nonzero(mask.reshape(-1))[0, 0])

    def indices(self, mask):
        return self.xp.nonzero(mask.reshape(-1)).reshape(-1)


def ordinal_distance(ops, a_bits, b_bits, fmt):
    """|ordinal(a) − ordinal(b)| of bit patterns (any integer dtype, signed or not), as in
    ``numerics.ulp.ulp_distance`` for formats of up to 32 bits (no NaN: callers exclude them)."""
    return ops.xp.abs(_ordinal(ops, a_bits, fmt) - _ordinal(ops, b_bits, fmt))


def _ordinal(ops, bits, fmt):
    b = ops.cast(bits, ops.int64) & ((1 << fmt.bits) - 1)
    sign = 1 << (fmt.bits - 1)
    mag = b & (sign - 1)
    return ops.xp.where((b & sign) != 0, -mag, mag)
