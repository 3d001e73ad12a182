"""Test-only binary elementwise backends with the special-value bugs an author writes without
noticing: a pow computed as exp(y·log x), a mul with a "skip zeros" fast path. Everywhere else
they compute what numpy computes. Each instance runs on the device it is built for, so the
tests can hold them to every contract of their OpKind. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge


class NumpyBinary(judge.Backend):
    """Pow and mul through numpy, in the storage format (BF16 and F16 through float32)."""

    name = "numpy-binary"
    device = "cpu"
    kinds = ("PowElementwise", "MulElementwise")

    def __init__(self, device: str = "cpu"):
        self.device = device

    def supports(self, contract, dtypes):
        return True if contract.op_kind in self.kinds else f"{self.name} has no {contract.op_kind}"

    def compute(self, op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.power(a, b) if op == "PowElementwise" else np.multiply(a, b)

    def run(self, contract, call):
        out = call.outputs[0]
        a, b = (t.view() for t in call.inputs)
        wide = np.float64 if a.dtype == np.float64 else np.float32
        with np.errstate(all="ignore"):
            r = self.compute(contract.op_kind, a.astype(wide), b.astype(wide))
            out.base[...] = np.broadcast_to(r, out.shape).astype(out.base.dtype).reshape(-1)
        return [out.base.reshape(out.shape)]


class ExpLogPow(NumpyBinary):
    """x^y = e^(y·ln|x|) in long double, with the special cases its author thought of: the sign
    of a negative base (or -0) under an odd integer exponent, NaN for a negative finite base
    under a non-integer one, 1 for y = 0 or x = 1 and for (-1, ±inf); and, last, "NaN in, NaN
    out", which turns pow(NaN, 0) and pow(1, NaN) into NaN (IEEE 754 and C99 Annex F: 1)."""

    name = "broken-pow-explog"

    def compute(self, op, a, b):
        if op != "PowElementwise":
            return super().compute(op, a, b)
        x, y = a.astype(np.longdouble), b.astype(np.longdouble)
        r = np.exp(y * np.log(np.abs(x)))
        odd = np.isfinite(y) & (np.mod(y, 2) == 1)
        r = np.where(np.signbit(x) & odd, -r, r)
        r = np.where((x < 0) & np.isfinite(x) & np.isfinite(y) & (np.floor(y) != y), np.nan, r)
        r = np.where((y == 0) | (x == 1) | ((x == -1) & np.isinf(y)), 1, r)
        return np.where(np.isnan(x) | np.isnan(y), np.nan, r).astype(a.dtype)


class SkipZerosMul(NumpyBinary):
    """A zero operand short-cuts to a signed zero without multiplying: 0·inf gives ±0 (IEEE: NaN)."""

    name = "broken-mul-skip-zeros"

    def compute(self, op, a, b):
        if op != "MulElementwise":
            return super().compute(op, a, b)
        zero = np.where(np.signbit(a) ^ np.signbit(b), -0.0, 0.0).astype(a.dtype)
        return np.where((a == 0) | (b == 0), zero, a * b)


def backends() -> list[judge.Backend]:
    return [NumpyBinary(), ExpLogPow(), SkipZerosMul()]
