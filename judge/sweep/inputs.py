"""The input sets a sweep runs: every bit pattern of a 16-bit format, or a dense pair grid.

Unary 16-bit kernels see all 65,536 bit patterns (every NaN payload, both zeros, every
subnormal). Binary kernels cannot see all 2^32 pairs on a CPU in seconds, so they see every pair
of a fixed *grid subset* of the format (``grid_values``):

- every (sign, biased exponent) combination, each with ``per_exponent`` mantissas spread evenly
  from 0 to the largest mantissa (so zeros, the largest subnormal, every binade's first and last
  value, ±inf and a NaN are all in), where ``per_exponent`` fills ``GRID_SIZE`` = 1,024 slots:
  2 mantissas per exponent for BF16 (512 sign-exponent pairs), 16 for F16 (64 pairs);
- plus the edge values the even spread misses: ±smallest subnormal, ±(1 + ulp), ±(1 − ulp/2),
  ±2, ±0.5, ±3 (a .5 tie for rounding kernels), ±largest finite, and a second NaN payload.

The grid is the sorted unique union, so its size is a little above 1,024 (see ``grid_values``);
pairs are (a, b) for a, b in the grid, a-major: ``a = grid.repeat(n)``, ``b = tile(grid, n)``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from numerics.formats import Format, get_format

GRID_SIZE = 1024
SWEEP_FORMATS = ("BF16", "F16")


def sixteen_bit_format(dtype: str) -> Format:
    fmt = get_format(dtype)
    if dtype not in SWEEP_FORMATS:
        raise ValueError(
            f"an exhaustive CPU sweep covers the 16-bit float formats {', '.join(SWEEP_FORMATS)}; "
            f"got {dtype} (F32 sweeps run on a CUDA device: judge/sweep/gpu_f32.py)"
        )
    return fmt


def all_bits(dtype: str) -> np.ndarray:
    """Every bit pattern of a 16-bit format, ascending, as uint16."""
    sixteen_bit_format(dtype)
    return np.arange(1 << 16, dtype=np.uint16)


def _pattern(fmt: Format, sign: int, biased: int, mantissa: int) -> int:
    return (sign << (fmt.bits - 1)) | (biased << fmt.mantissa_bits) | mantissa


def _edge_patterns(fmt: Format) -> list[int]:
    m = fmt.mantissa_bits
    one = (fmt.emax) << m  # biased exponent of 1.0 is emax
    top = (1 << m) - 1
    max_biased = (1 << fmt.exponent_bits) - 1
    mags = [
        1,  # smallest subnormal
        one + 1,  # 1 + ulp
        one - 1,  # 1 − ulp/2 (largest value below 1)
        one + (1 << m),  # 2
        one - (1 << m),  # 0.5
        one + (1 << m) + (1 << (m - 1)),  # 3
        ((max_biased - 1) << m) | top,  # largest finite
        (max_biased << m) | 1,  # a signalling-style NaN payload next to +inf
    ]
    return [s << (fmt.bits - 1) | mag for s in (0, 1) for mag in mags]


@cache
def _grid_bits(dtype: str, size: int) -> tuple[int, ...]:
    fmt = sixteen_bit_format(dtype)
    exponents = 1 << fmt.exponent_bits
    per = max(2, size // (2 * exponents))
    top = (1 << fmt.mantissa_bits) - 1
    mantissas = sorted({round(k * top / (per - 1)) for k in range(per)})
    picks = {
        _pattern(fmt, sign, biased, mant)
        for sign in (0, 1)
        for biased in range(exponents)
        for mant in mantissas
    }
    picks.update(_edge_patterns(fmt))
    return tuple(sorted(picks))


def grid_values(dtype: str, size: int = GRID_SIZE) -> np.ndarray:
    """The grid subset of a 16-bit format, as bit patterns (uint16, ascending)."""
    return np.asarray(_grid_bits(dtype, size), dtype=np.uint16)


def grid_pairs(dtype: str, size: int = GRID_SIZE) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of the grid subset, a-major, as two uint16 bit arrays."""
    g = grid_values(dtype, size)
    return np.repeat(g, g.size), np.tile(g, g.size)


def as_values(bits: np.ndarray, dtype: str) -> np.ndarray:
    """Bit patterns viewed as the format's numpy dtype (no copy of values, bits unchanged)."""
    fmt = get_format(dtype)
    return np.ascontiguousarray(bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
