"""Test-only backends for the backward ops: a small correct numpy backend and broken variants.

``MiniBackward`` computes the five gradients the careful way (operands widened to F32 for
BF16/F16, row sums there, one rounding to T; PowI's n = 0 as zeros). Each broken subclass makes
one mistake an author of such a kernel makes; the family tests prove the Judge catches each.
Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("SoftmaxLastDimBackward", "LogSoftmaxLastDimBackward", "RmsNormLastDimBackward",
         "LayerNormLastDimBackward", "PowIElementwiseBackward")


class MiniBackward(judge.Backend):
    """Correct for the five backward OpKinds (F32/F64/F16/BF16 via numpy)."""

    name = "mini-backward"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    def acc(self, dtype):
        return np.float64 if dtype == np.float64 else np.float32

    def softmax(self, y, g):
        return y * (g - (g * y).sum(axis=-1, keepdims=True))

    def log_softmax(self, y, g):
        return g - np.exp(y) * g.sum(axis=-1, keepdims=True)

    def rms(self, x, g, eps):
        q = (x * x).mean(axis=-1, keepdims=True) + eps
        r = np.sqrt(q)
        return g / r - x * ((g * x).sum(axis=-1, keepdims=True) / (x.shape[-1] * r * q))

    def layer(self, x, g, eps):
        centred = x - x.mean(axis=-1, keepdims=True)
        inv = 1 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)
        y = centred * inv
        return inv * (g - g.mean(axis=-1, keepdims=True) - y * (g * y).mean(axis=-1, keepdims=True))

    def powi(self, x, g, n):
        if n == 0:
            return np.zeros_like(x)
        # the power with its integer exponent exactly (numpy would round n - 1 to x's format,
        # and an odd exponent beyond F32's 2^24 would turn even), rounded to x's format once
        return g * x.dtype.type(n) * np.power(x.astype(np.float64), np.float64(n - 1)).astype(x.dtype)

    def compute(self, op, a, g, params):
        eps = a.dtype.type(params.get("eps", 0.0))
        if op == "SoftmaxLastDimBackward":
            return self.softmax(a, g)
        if op == "LogSoftmaxLastDimBackward":
            return self.log_softmax(a, g)
        if op == "RmsNormLastDimBackward":
            return self.rms(a, g, eps)
        if op == "LayerNormLastDimBackward":
            return self.layer(a, g, eps)
        return self.powi(a, g, int(params["exp"]))

    def run(self, contract, call):
        a, g = (t.view() for t in call.inputs)
        out = call.outputs[0]
        if a.size:
            acc = self.acc(a.dtype)
            shape = a.shape or (1,)
            with np.errstate(all="ignore"):
                result = self.compute(contract.op_kind, a.astype(acc).reshape(shape),
                                      g.astype(acc).reshape(shape), call.params)
            out.base[...] = result.reshape(-1).astype(out.base.dtype)
        return [out.base.reshape(out.shape)]


class SoftmaxSignError(MiniBackward):
    """Softmax backward with the row term added instead of subtracted: y·(g + Σg·y)."""

    name = "broken-softmax-sign-error"

    def softmax(self, y, g):
        return y * (g + (g * y).sum(axis=-1, keepdims=True))


class LayerNormSignError(MiniBackward):
    """Layer-norm backward whose projection term has the wrong sign: + y·mean(g·y)."""

    name = "broken-layer-norm-sign-error"

    def layer(self, x, g, eps):
        centred = x - x.mean(axis=-1, keepdims=True)
        inv = 1 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)
        y = centred * inv
        return inv * (g - g.mean(axis=-1, keepdims=True) + y * (g * y).mean(axis=-1, keepdims=True))


class LayerNormDroppedMean(MiniBackward):
    """Layer-norm backward without the mean-gradient term: (g − y·mean(g·y))/σ, as if the
    forward did not subtract the mean."""

    name = "broken-layer-norm-dropped-mean"

    def layer(self, x, g, eps):
        centred = x - x.mean(axis=-1, keepdims=True)
        inv = 1 / np.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps)
        y = centred * inv
        return inv * (g - y * (g * y).mean(axis=-1, keepdims=True))


class PowIDividesByX(MiniBackward):
    """PowI backward as n·x^n / x (reusing the forward's power): NaN at x = 0 where n ≥ 2."""

    name = "broken-powi-divides-by-x"

    def powi(self, x, g, n):
        if n == 0:
            return np.zeros_like(x)
        return g * x.dtype.type(n) * np.power(x, n) / x


class HalfRowSums(MiniBackward):
    """RMS-norm backward that keeps half rows in their storage format: Σx² and Σg·x round to
    F16/BF16 at every step."""

    name = "broken-half-row-sums"

    def acc(self, dtype):
        return dtype


BROKEN = (SoftmaxSignError, LayerNormSignError, LayerNormDroppedMean, PowIDividesByX, HalfRowSums)


def backends() -> list[judge.Backend]:
    return [MiniBackward(), *(cls() for cls in BROKEN)]
