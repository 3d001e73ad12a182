"""Test-only backends for the last-axis row ops: a small correct numpy backend and broken variants.

``MiniNorm`` computes softmax, log-softmax, RMS norm and layer norm the careful way (the row
maximum subtracted, a two-pass variance, F32 accumulation for BF16/F16). Each broken subclass
drops one of those precautions; the family tests prove the Judge catches every one of them.
Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("SoftmaxLastDim", "LogSoftmaxLastDim", "RmsNormLastDim", "LayerNormLastDim")


class MiniNorm(judge.Backend):
    """Correct for the four row OpKinds (F32/F64/F16/BF16 via numpy)."""

    name = "mini-norm"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"mini-norm has no {contract.op_kind}"

    def acc(self, dtype):
        return np.float64 if dtype == np.float64 else np.float32

    def softmax(self, x, log: bool):
        shifted = x - x.max(axis=-1, keepdims=True)
        total = np.exp(shifted).sum(axis=-1, keepdims=True)
        return shifted - np.log(total) if log else np.exp(shifted) / total

    def variance(self, x):
        centred = x - x.mean(axis=-1, keepdims=True)
        return (centred * centred).mean(axis=-1, keepdims=True)

    def compute(self, op, x, eps):
        if op in ("SoftmaxLastDim", "LogSoftmaxLastDim"):
            return self.softmax(x, log=op == "LogSoftmaxLastDim")
        if op == "RmsNormLastDim":
            return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)
        return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(self.variance(x) + eps)

    def run(self, contract, call):
        x = call.inputs[0].view()
        out = call.outputs[0]
        if x.size:
            rows = x.astype(self.acc(x.dtype)).reshape(x.shape or (1,))
            eps = rows.dtype.type(call.params.get("eps", 0.0))
            with np.errstate(all="ignore"):
                result = self.compute(contract.op_kind, rows, eps)
            out.base[...] = result.reshape(-1).astype(out.base.dtype)
        return [out.base.reshape(out.shape)]


class NoMaxShift(MiniNorm):
    """Softmax as exp(x) / Σ exp(x): exp overflows to inf for large x, and inf/inf is NaN."""

    name = "broken-no-max-shift"

    def softmax(self, x, log: bool):
        e = np.exp(x)
        total = e.sum(axis=-1, keepdims=True)
        return x - np.log(total) if log else e / total


class OnePassVariance(MiniNorm):
    """Layer norm with var = E[x²] − E[x]²: catastrophic cancellation under a large offset."""

    name = "broken-one-pass-variance"

    def variance(self, x):
        mean = x.mean(axis=-1, keepdims=True)
        return (x * x).mean(axis=-1, keepdims=True) - mean * mean


class StorageAccumulation(MiniNorm):
    """Half-precision rows folded in their storage format instead of F32."""

    name = "broken-storage-accumulation"

    def acc(self, dtype):
        return dtype


BROKEN = (NoMaxShift, OnePassVariance, StorageAccumulation)

for _cls in (MiniNorm, *BROKEN):
    judge.register_backend(_cls())
