"""Test-only integer Affine backends: a correct one in integer arithmetic, and the bugs an author
writes into an integer ``mul·x + add``: float32 math (bits above 2^24 lost), a cast that
truncates instead of rounding, and a store that forgets to clamp (the cast wraps). Each runs on
the device it is built for, so the tests can hold it to the CUDA contract. Loadable as a
``--plugin`` file."""

from __future__ import annotations

import numpy as np

import judge


def _round_half_even(num: int, den: int) -> int:
    """num / den (den > 0) rounded to the nearest integer, ties to even."""
    q, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and q % 2):
        q += 1
    return q


class MiniIntAffine(judge.Backend):
    """Correct: mul = p/2^e and add = q/2^f as integers over one power of two, the sum formed
    in Python integers, rounded half to even, clamped to T."""

    name = "mini-int-affine"
    device = "cpu"

    def __init__(self, device: str = "cpu"):
        self.device = device

    def supports(self, contract, dtypes):
        return True if contract.op_kind == "Affine" else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        x = np.ascontiguousarray(call.inputs[0].view())
        out = call.outputs[0]
        r = self.affine(x, float(call.params["mul"]), float(call.params["add"]))
        return [np.asarray(r).reshape(out.shape)]

    def affine(self, x, mul, add):
        (p, d1), (q, d2) = mul.as_integer_ratio(), add.as_integer_ratio()
        den = max(d1, d2)
        info = np.iinfo(x.dtype)
        values = [_round_half_even(int(v) * p * (den // d1) + q * (den // d2), den) for v in x.reshape(-1)]
        return np.array([min(max(v, info.min), info.max) for v in values], x.dtype).reshape(x.shape)


class Float32Affine(MiniIntAffine):
    """mul·x + add in float32, the default float type: integers above 2^24 lose their low bits."""

    name = "broken-f32-int-affine"

    def affine(self, x, mul, add):
        info = np.iinfo(x.dtype)
        y = np.rint(x.astype(np.float32) * np.float32(mul) + np.float32(add)).astype(np.float64)
        with np.errstate(invalid="ignore"):  # I64's top end, 2^63 in floats, casts to its bottom
            return np.clip(y, info.min, info.max).astype(x.dtype)


class TruncatingAffine(MiniIntAffine):
    """Exact, clamped, but the result converted with a C cast: toward zero, 2.5 -> 2, -0.5 -> 0,
    1.75 -> 1."""

    name = "broken-truncating-int-affine"

    def affine(self, x, mul, add):
        info = np.iinfo(x.dtype)
        (p, d1), (q, d2) = mul.as_integer_ratio(), add.as_integer_ratio()
        den = max(d1, d2)
        out = []
        for v in x.reshape(-1):
            num = int(v) * p * (den // d1) + q * (den // d2)
            t = abs(num) // den * (1 if num >= 0 else -1)
            out.append(min(max(t, info.min), info.max))
        return np.array(out, x.dtype).reshape(x.shape)


class WrappingAffine(MiniIntAffine):
    """Rounded correctly, but stored with a plain cast to T: a result past T's range wraps."""

    name = "broken-wrapping-int-affine"

    def affine(self, x, mul, add):
        exact = MiniIntAffine.affine(self, x.astype(np.int64), mul, add) if x.dtype != np.int64 else None
        if exact is None:  # I64: the rounded value taken modulo 2^64
            (p, d1), (q, d2) = mul.as_integer_ratio(), add.as_integer_ratio()
            den = max(d1, d2)
            wide = [_round_half_even(int(v) * p * (den // d1) + q * (den // d2), den) for v in x.reshape(-1)]
            return np.array([(v + 2**63) % 2**64 - 2**63 for v in wide], np.int64).reshape(x.shape)
        return exact.astype(x.dtype)


BROKEN = (Float32Affine, TruncatingAffine, WrappingAffine)


def backends() -> list[judge.Backend]:
    return [MiniIntAffine(), *(cls() for cls in BROKEN)]
