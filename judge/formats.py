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

    @property
    def emin(self) -> int:
        """Smallest unbiased exponent of a normal number (floats only)."""
        return 1 - self.emax

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
        Format("BOOL", "bool", 8),
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
    if name == "BF16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(
        {
            "F64": np.float64,
            "F32": np.float32,
            "F16": np.float16,
            "BOOL": np.bool_,
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
