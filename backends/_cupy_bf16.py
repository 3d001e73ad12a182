"""BF16 on cupy, which has no bfloat16 dtype: CUDA kernels over the raw 16-bit patterns.

A CUDA kernel author without a bf16 type does exactly this: widen each bf16 pattern to f32
(exact: the bits move to the top half), compute in f32, and narrow with round-to-nearest-even,
keeping NaN quiet. The kernels are ``ElementwiseKernel``s, so strided and stride-0 views are
read in place. Compiled on first use, never at import.
"""

from __future__ import annotations

from functools import cache

_WIDEN = "y = __uint_as_float(((unsigned int)x) << 16)"

# Round to nearest, ties to even, on the f32 bit pattern; a NaN keeps its sign and top payload
# bits and is forced quiet so that truncation cannot turn it into an infinity.
_NARROW = """
unsigned int b = __float_as_uint(x);
if (isnan(x)) {
    y = (unsigned short)((b >> 16) | 0x0040u);
} else {
    y = (unsigned short)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}
"""


@cache
def _kernels():
    import cupy

    widen = cupy.ElementwiseKernel("uint16 x", "float32 y", _WIDEN, "judge_bf16_widen")
    narrow = cupy.ElementwiseKernel("float32 x", "uint16 y", _NARROW, "judge_bf16_narrow_rne")
    return widen, narrow


def widen(bits):
    """A float32 cupy array holding the exact values of a uint16 bf16-pattern array."""
    return _kernels()[0](bits)


def narrow(values):
    """The uint16 bf16 patterns of float32 ``values``, rounded to nearest even."""
    import cupy

    return _kernels()[1](values.astype(cupy.float32, copy=False))
