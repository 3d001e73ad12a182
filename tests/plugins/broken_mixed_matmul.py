"""Test-only stand-ins of the Vulkan mixed-precision MatMul kernels ([F32, BF16, F32],
[BF16, BF16, F32], [BF16, BF16, BF16], [F16, F16, F16], [F16, F16, F32]), run in numpy on the
host so the tests need no GPU: a correct one (operands widened to F32, an F32 dot product, one
rounding into the output format) and one whose accumulator takes the output's type, as a kernel
written from the F32-out template and re-typed for a 16-bit store would. Loadable as a
``--plugin`` file."""

from __future__ import annotations

import numpy as np

import judge


def _expand(rhs: np.ndarray, lb, rb) -> np.ndarray:
    """rhs with each batch axis repeated up to the lhs extent (GQA: lhs index i reads i / ratio)."""
    for axis, (ld, r) in enumerate(zip(lb, rb, strict=True)):
        if ld != r and r:
            rhs = np.repeat(rhs, ld // r, axis=axis)
    return rhs


class MixedMatmulVulkan(judge.Backend):
    """Correct: every key multiplies and sums in F32 and rounds once on store."""

    name = "mixed-matmul-standin"
    device = "vulkan"

    def supports(self, contract, dtypes):
        return True if contract.op_kind == "MatMul" else f"{self.name} has no {contract.op_kind}"

    def run(self, contract, call):
        lhs, rhs = (t.view() for t in call.inputs)
        out = call.outputs[0]
        p = call.params
        a = lhs.astype(np.float32)
        b = _expand(rhs, p["lhs_batch_dims"], p["rhs_batch_dims"]).astype(np.float32)
        with np.errstate(all="ignore"):  # overflow to ±inf is the store's rounding
            r = np.asarray(self.accumulate(a, b, out.base.dtype)).astype(out.base.dtype)
        return [r.reshape(out.shape)]

    @staticmethod
    def accumulate(a: np.ndarray, b: np.ndarray, out_dtype) -> np.ndarray:
        return np.matmul(a, b)


class OutputTypeAccumulationMatmul(MixedMatmulVulkan):
    """Keeps the running sum in the output's type: each F32 product is added to it in F32 and
    stored back, one 16-bit rounding per step for the BF16 and F16 outputs."""

    name = "broken-output-type-accumulation-matmul"

    @staticmethod
    def accumulate(a, b, out_dtype):
        acc = np.zeros((*a.shape[:-1], b.shape[-1]), dtype=out_dtype)
        for t in range(a.shape[-1]):
            acc = (acc.astype(np.float32) + a[..., t:t + 1] * b[..., t:t + 1, :]).astype(out_dtype)
        return acc


BROKEN = (OutputTypeAccumulationMatmul,)


def backends() -> list[judge.Backend]:
    return [MixedMatmulVulkan(), *(cls() for cls in BROKEN)]
