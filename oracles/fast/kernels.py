"""binary64 approximations with proven relative error bounds, one kernel per OpKind: the table
``KERNELS``, the square roots, reciprocal and binary arithmetic here, the exponential family in
``oracles.fast.exponential``, sin, cos and erf in ``oracles.fast.trig``.

Every kernel takes the regular operands (finite, nonzero, values of F32/F16/BF16, so at most 24
significant bits and magnitudes in [2^-149, 2^128)) as binary64 arrays and returns
``(y, bound, ok)``: approximations y, a relative error bound (scalar or per element) with
|v − y| <= bound·|y| for the exact value v wherever ``ok`` (None: everywhere), and the mask of
elements inside the kernel's domain (the others go to the pure path).

Arithmetic on floats is IEEE 754 binary64 only: + − × ÷ written as operators, ``np.sqrt``
(correctly rounded by the standard), conversions, and the magic-constant rounding to an integer
((z + 1.5·2^52) − 1.5·2^52, exact for |z| < 2^51). Magnitudes, signs, comparisons and selections
are done on the integer encodings. Error analysis notation: u = 2^-53, each operation
fl(a ∘ b) = (a ∘ b)(1 + δ), |δ| <= u (no operation here underflows or overflows on the domains
stated); γ_n = n·u/(1 − n·u). Horner's rule on a degree-n polynomial has error at most
γ_2n·Σ|c_i||t|^i (Higham, Accuracy and Stability of Numerical Algorithms, §5.1), which for
nonnegative coefficients and t >= 0 is a relative error γ_2n. Each claimed bound is the derived
one rounded up with a margin (the derived figure is stated beside it).
"""

from __future__ import annotations

import numpy as np

from oracles.fast.binary64 import _mag, _negative
from oracles.fast.exponential import exp, gelu, log, sigmoid, silu, tanh
from oracles.fast.trig import cos, erf, gelu_erf, sin

# --- square roots and reciprocals ----------------------------------------------------------------
# sqrt: IEEE squareRoot, correctly rounded: u (claimed 2^-49 = 16u). rsqrt = 1/sqrt:
# (1 + u)/(1 − u) − 1 < 2.01u (claimed 2^-48 = 32u). recip: u (claimed 16u). Negative operands:
# the pure path (NaN).


def sqrt(x):
    return np.sqrt(x), 2.0**-49, ~_negative(x)


def rsqrt(x):
    return 1.0 / np.sqrt(x), 2.0**-48, ~_negative(x)


def recip(x):
    return 1.0 / x, 2.0**-49, None


# --- binary arithmetic ---------------------------------------------------------------------------
# add/sub: s = fl(a ± b) and its exact rounding error by Knuth's TwoSum (no overflow: operands are
# below 2^128); where the error is 0 the sum is exact (bound 0), else |s − v| <= u·|v| (claimed
# 2^-49 = 16u relative to s). mul: operands have <= 24 significant bits and magnitudes in [2^-149, 2^128),
# so the product (<= 48 bits, within [2^-298, 2^256]) is exact in binary64: bound 0.
# div: correctly rounded quotient: u (claimed 16u).


def _two_sum_bound(a, b, s):
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    bound = np.full(s.shape, 2.0**-49)
    bound[_mag(err) == 0] = 0.0
    return bound


def add(a, b):
    s = a + b
    return s, _two_sum_bound(a, b, s), None


def sub(a, b):
    s = a - b
    return s, _two_sum_bound(a, 0.0 - b, s), None


def mul(a, b):
    return a * b, 0.0, None


def div(a, b):
    return a / b, 2.0**-49, None


# OpKind -> (arity, kernel)
KERNELS = {
    "ExpElementwise": (1, exp),
    "LogElementwise": (1, log),
    "TanhElementwise": (1, tanh),
    "SinElementwise": (1, sin),
    "CosElementwise": (1, cos),
    "SigmoidElementwise": (1, sigmoid),
    "SiluElementwise": (1, silu),
    "GeluElementwise": (1, gelu),
    "ErfElementwise": (1, erf),
    "GeluErfElementwise": (1, gelu_erf),
    "SqrtElementwise": (1, sqrt),
    "RsqrtElementwise": (1, rsqrt),
    "RecipElementwise": (1, recip),
    "AddElementwise": (2, add),
    "SubElementwise": (2, sub),
    "MulElementwise": (2, mul),
    "DivElementwise": (2, div),
}
