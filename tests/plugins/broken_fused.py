"""Test-only FusedLinear / FusedSoftmaxCrossEntropy backends: a small correct CPU backend and two
broken variants, each one mistake a kernel author makes:

- ``RoundedProductLinear``: the product stored to T first (as a plain matmul kernel does) and the
  bias added afterwards, so BF16/F16 results are rounded twice;
- ``MeanOverAllRows``: a cross-entropy mean that divides by n_rows instead of by the rows not
  ignored.

Loadable as a ``--plugin`` file."""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("FusedLinear", "FusedSoftmaxCrossEntropy")


def _expand(rhs: np.ndarray, lb, rb) -> np.ndarray:
    for axis, (ld, r) in enumerate(zip(lb, rb, strict=True)):
        if ld != r and r:
            rhs = np.repeat(rhs, ld // r, axis=axis)
    return rhs


class MiniFused(judge.Backend):
    """Correct for both OpKinds: numpy in float32 for BF16/F16, T otherwise."""

    name = "mini-fused"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"{self.name} has no {contract.op_kind}"

    @staticmethod
    def acc(x: np.ndarray):
        return np.float32 if x.dtype.itemsize == 2 else x.dtype

    def run(self, contract, call):
        xs = [t.view() for t in call.inputs]
        out = call.outputs[0]
        with np.errstate(all="ignore"):
            if contract.op_kind == "FusedLinear":
                r = self.linear(*xs, call.params)
            else:
                r = self.cross_entropy(*xs, call.params)
            return [np.asarray(r).astype(out.base.dtype).reshape(out.shape)]

    def product(self, lhs, rhs, p):
        rhs = _expand(rhs, p["lhs_batch_dims"], p["rhs_batch_dims"])
        return np.matmul(lhs.astype(self.acc(lhs)), rhs.astype(self.acc(rhs)))

    def linear(self, lhs, rhs, bias, p):
        return self.product(lhs, rhs, p) + bias.astype(self.acc(bias))

    def count(self, keep: np.ndarray, n_rows: int) -> int:
        """The mean's denominator."""
        return int(keep.sum())

    def cross_entropy(self, logits, targets, p):
        x = logits.astype(self.acc(logits))
        keep = targets != int(p["ignore_index"])
        losses = np.zeros(targets.shape, x.dtype)
        for i in np.flatnonzero(keep):
            row = x[i]
            shifted = row - row.max()
            losses[i] = np.log(np.exp(shifted).sum()) - shifted[targets[i]]
        if p["reduction"] == "none":
            return losses
        total = losses.sum(dtype=x.dtype)
        if p["reduction"] == "sum":
            return total
        return total / x.dtype.type(self.count(keep, len(targets)))


class RoundedProductLinear(MiniFused):
    """Rounds lhs @ rhs to T, then adds the bias: two roundings into T for BF16 and F16."""

    name = "broken-rounded-product-linear"

    def linear(self, lhs, rhs, bias, p):
        stored = self.product(lhs, rhs, p).astype(lhs.dtype)
        return stored.astype(self.acc(lhs)) + bias.astype(self.acc(bias))


class MeanOverAllRows(MiniFused):
    """Divides the mean by n_rows, ignored rows included."""

    name = "broken-mean-over-all-rows"

    def count(self, keep, n_rows):
        return n_rows


BROKEN = (RoundedProductLinear, MeanOverAllRows)


def backends() -> list[judge.Backend]:
    return [MiniFused(), *(cls() for cls in BROKEN)]
