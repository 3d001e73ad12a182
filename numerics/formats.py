"""The FKC dtypes as exact bit formats (SPEC §4).

One table entry per dtype. Float formats carry their IEEE parameters; everything that needs to
know how wide a mantissa is asks here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np


@dataclass(frozen=True)
class Format:
    name: str  # FKC name: F32, BF16, U32, BOOL, ...
    kind: str  # "float" | "int" | "uint" | "bool"
    bits: int
    precision: int = 0  # significand bits including the implicit one (floats only)
    emax: int = 0  # largest unbiased exponent of a normal number (floats only)
    bias: int = 0  # exponent bias, where it is not emax (formats without infinities)
    # False for the OCP "fn" formats: no infinities, the top exponent holds numbers too and the
    # only NaNs are the all-ones magnitudes (F8E4M3: S.1111.111).
    has_inf: bool = True

    @property
    def emin(self) -> int:
        """Smallest unbiased exponent of a normal number (floats only)."""
        return 1 - (self.bias or self.emax)

    @property
    def max_finite_mag(self) -> int:
        """Magnitude bits (sign cleared) of the largest finite value (floats only)."""
        if self.has_inf:
            return (((1 << self.exponent_bits) - 1) << self.mantissa_bits) - 1
        return (1 << (self.bits - 1)) - 2

    @property
    def inf_mag(self) -> int:
        """One past the largest finite magnitude: +inf's bits, or the NaN of a format without
        infinities (where rounding overflows to NaN)."""
        return self.max_finite_mag + 1

    @property
    def first_nan_mag(self) -> int:
        """The smallest magnitude bits that encode a NaN (floats only)."""
        return self.inf_mag + 1 if self.has_inf else self.inf_mag

    @property
    def nan_mag(self) -> int:
        """Magnitude bits of the canonical (quiet) NaN."""
        if self.has_inf:
            return self.inf_mag | (1 << (self.mantissa_bits - 1))
        return self.inf_mag

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def exponent_bits(self) -> int:
        return self.bits - self.precision

    @property
    def mantissa_bits(self) -> int:
        return self.precision - 1

    @property
    def itemsize(self) -> int:
        return max(1, self.bits // 8)

    @property
    def numpy_dtype(self) -> np.dtype:
        return _numpy_dtype(self.name)

    @property
    def bits_dtype(self) -> np.dtype:
        """Unsigned integer dtype of the same width, for exact bit views."""
        return np.dtype({8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}[self.itemsize * 8])

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        Format("F64", "float", 64, precision=53, emax=1023),
        Format("F32", "float", 32, precision=24, emax=127),
        Format("F16", "float", 16, precision=11, emax=15),
        Format("BF16", "float", 16, precision=8, emax=127),
        # OCP OFP8 E4M3 (ml_dtypes.float8_e4m3fn): bias 7, max finite 448, NaN S.1111.111
        Format("F8E4M3", "float", 8, precision=4, emax=8, bias=7, has_inf=False),
        Format("BOOL", "bool", 8),
        Format("I8", "int", 8),
        Format("U8", "uint", 8),
        Format("U32", "uint", 32),
        Format("I16", "int", 16),
        Format("I32", "int", 32),
        Format("I64", "int", 64),
    )
}


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r} (known: {', '.join(FORMATS)})") from None


@cache
def _numpy_dtype(name: str) -> np.dtype:
    if name in ("BF16", "F8E4M3"):
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16 if name == "BF16" else ml_dtypes.float8_e4m3fn)
    return np.dtype(
        {
            "F64": np.float64,
            "F32": np.float32,
            "F16": np.float16,
            "BOOL": np.bool_,
            "I8": np.int8,
            "U8": np.uint8,
            "U32": np.uint32,
            "I16": np.int16,
            "I32": np.int32,
            "I64": np.int64,
        }[name]
    )


def dtype_name(dtype: np.dtype) -> str:
    """The FKC name of a numpy dtype."""
    dtype = np.dtype(dtype)
    for name in FORMATS:
        if _numpy_dtype(name) == dtype:
            return name
    raise KeyError(f"no FKC dtype for numpy dtype {dtype}")
