"""Test-only MatMul / CumSum backends: a small correct CPU backend and variants that accumulate
BF16 and F16 in their storage format instead of the F32 the contracts name (and one that reads
the wrong rhs batch under GQA); integer variants that sum I8 products in I8 or I16 instead of
I32, and one that clamps U8 results to the I8 range. Loadable as a ``--plugin`` file."""

from __future__ import annotations

import ml_dtypes
import numpy as np

import judge


def _expand(rhs: np.ndarray, lb, rb, *, tiled: bool = False) -> np.ndarray:
    """rhs with each batch axis grown to the lhs extent: repeated element-wise (the contract's
    i / ratio), or tiled (i % rhs_dim) where ``tiled``."""
    for axis, (ld, r) in enumerate(zip(lb, rb, strict=True)):
        if ld != r and r:
            rhs = np.tile(rhs, [ld // r if a == axis else 1 for a in range(rhs.ndim)]) if tiled \
                else np.repeat(rhs, ld // r, axis=axis)
    return rhs


class MiniMatmulCpu(judge.Backend):
    """Correct MatMul and CumSum for F32/F64/F16/BF16: numpy with an F32 accumulator for halves."""

    name = "mini-matmul-cpu"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in ("MatMul", "CumSum") else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        xs = [t.view() for t in call.inputs]
        out = call.outputs[0]
        with np.errstate(all="ignore"):
            if contract.op_kind == "MatMul":
                r = self.matmul(xs[0], xs[1], call.params)
            else:
                r = self.cumsum(xs[0], int(call.params["axis"]))
            return [np.asarray(r).astype(out.base.dtype).reshape(out.shape)]

    @staticmethod
    def acc(x: np.ndarray):
        return np.float32 if x.dtype.itemsize == 2 else x.dtype

    def matmul(self, a, b, p):
        b = _expand(b, p["lhs_batch_dims"], p["rhs_batch_dims"])
        if a.dtype.kind in "iu":
            return self.int_matmul(a, b)
        return np.matmul(a.astype(self.acc(a)), b.astype(self.acc(b)))

    @staticmethod
    def int_matmul(a, b):
        """I32 accumulation, saturating store."""
        info = np.iinfo(a.dtype)
        return np.clip(np.matmul(a.astype(np.int32), b.astype(np.int32)), info.min, info.max)

    def cumsum(self, x, axis):
        return np.cumsum(x, axis=axis, dtype=self.acc(x))


class HalfAccumulationMatmul(MiniMatmulCpu):
    """Sums the products of a half MatMul in the half format, one rounding per step."""

    name = "broken-half-accumulation-matmul"

    def matmul(self, a, b, p):
        if a.dtype.itemsize != 2:
            return super().matmul(a, b, p)
        b = _expand(b, p["lhs_batch_dims"], p["rhs_batch_dims"])
        acc = np.zeros((*a.shape[:-1], b.shape[-1]), dtype=a.dtype)
        for t in range(a.shape[-1]):
            prod = (a[..., t:t + 1].astype(np.float32) * b[..., t:t + 1, :].astype(np.float32))
            acc = (acc.astype(np.float32) + prod).astype(a.dtype)  # rounds to the half format
        return acc


class HalfAccumulationCumSum(MiniMatmulCpu):
    """Scans a half CumSum in the half format (numpy's own half add.accumulate)."""

    name = "broken-half-accumulation-cumsum"

    def cumsum(self, x, axis):
        if x.dtype.itemsize != 2:
            return super().cumsum(x, axis)
        return np.add.accumulate(x, axis=axis, dtype=x.dtype)


class TiledGqa(MiniMatmulCpu):
    """Reads rhs batch i % rhs_dim instead of i / ratio under GQA."""

    name = "broken-tiled-gqa"

    def matmul(self, a, b, p):
        b = _expand(b, p["lhs_batch_dims"], p["rhs_batch_dims"], tiled=True)
        return np.matmul(a.astype(self.acc(a)), b.astype(self.acc(b)))


class SplitKBf16Partials(MiniMatmulCpu):
    """Split-K: k cut into slices of 128, each slice's dot product accumulated in F32 as the
    contract asks, but written to a BF16 workspace (the output's type) before the slices are
    summed in F32. Off by a BF16 rounding per slice: it shows only where the slices' sums are
    large and the total is not, on long cancelling products."""

    name = "broken-split-k-bf16"
    SLICE = 128

    def matmul(self, a, b, p):
        if a.dtype != ml_dtypes.bfloat16:
            return super().matmul(a, b, p)
        b = _expand(b, p["lhs_batch_dims"], p["rhs_batch_dims"]).astype(np.float32)
        a = a.astype(np.float32)
        total = np.zeros((*a.shape[:-1], b.shape[-1]), dtype=np.float32)
        for s in range(0, a.shape[-1], self.SLICE):
            part = np.matmul(a[..., s:s + self.SLICE], b[..., s:s + self.SLICE, :])
            total += part.astype(ml_dtypes.bfloat16).astype(np.float32)
        return total


class NarrowInt8Matmul(MiniMatmulCpu):
    """Multiplies I8 matrices with numpy's own int8 matmul: the products are summed in int8
    and wrap, and nothing saturates."""

    name = "broken-int8-accumulation-matmul"

    @staticmethod
    def int_matmul(a, b):
        return np.matmul(a, b)


class Int16AccumulationMatmul(MiniMatmulCpu):
    """Sums I8 products in int16 (wide enough for one product, 128·128), then saturates:
    a dot product past ±32,767 wraps before the store."""

    name = "broken-int16-accumulation-matmul"

    @staticmethod
    def int_matmul(a, b):
        info = np.iinfo(a.dtype)
        return np.clip(np.matmul(a.astype(np.int16), b.astype(np.int16)), info.min, info.max)


class SignedSaturationMatmul(MiniMatmulCpu):
    """One store for both integer formats, written for I8: every result is clamped to
    [-128, 127], so a U8 sum above 127 stores 127."""

    name = "broken-signed-saturation-matmul"

    @staticmethod
    def int_matmul(a, b):
        return np.clip(np.matmul(a.astype(np.int32), b.astype(np.int32)), -128, 127)


BROKEN = (HalfAccumulationMatmul, HalfAccumulationCumSum, TiledGqa, SplitKBf16Partials,
          NarrowInt8Matmul, Int16AccumulationMatmul, SignedSaturationMatmul)


def backends() -> list[judge.Backend]:
    return [MiniMatmulCpu(), *(cls() for cls in BROKEN)]
