"""Test-only backends: one small correct CPU backend and deliberately broken variants of it.

Each broken backend breaks exactly one promise a contract makes; the harness tests prove the
Judge catches every one of them with the check it targets. Loadable as ``--plugin`` file.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

import judge


def _argext(x: np.ndarray, axis: int, better, *, last_tie: bool = False) -> np.ndarray:
    """Index of the extremum along ``axis``: NaN never wins, first index wins ties."""
    moved = np.moveaxis(x, axis, -1)
    out = np.zeros(moved.shape[:-1], dtype=np.uint32)
    for idx in np.ndindex(*moved.shape[:-1]):
        row = moved[idx].astype(np.float64)
        best = None
        for j, v in enumerate(row):
            if math.isnan(v):
                continue
            if best is None or better(v, row[best]) or (last_tie and v == row[best]):
                best = j
        out[idx] = 0 if best is None else best
    return out


def _at_infinity(x, r):
    """GELU's limits: x at +inf, -0 at -inf (the formula alone gives inf·0 = NaN there)."""
    return np.where(np.isposinf(x), x, np.where(np.isneginf(x), -0.0, r))


def _gelu_tanh(x):
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        return _at_infinity(x, 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))))


def _gelu_erf(x):
    x = x.astype(np.float64)
    with np.errstate(all="ignore"):
        return _at_infinity(x, 0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / math.sqrt(2))))


UNARY = {
    "NegElementwise": np.negative,
    "SqrtElementwise": np.sqrt,
    "GeluElementwise": _gelu_tanh,
}
def _maximum(a, b, *, nan_ignore: bool = False):
    """IEEE maximum: +0 above -0; NaN propagates (or is ignored when ``nan_ignore``)."""
    r = np.maximum(a, b)
    both_zero = (a == 0) & (b == 0)
    r = np.where(both_zero & (~np.signbit(a) | ~np.signbit(b)), np.zeros_like(r), r)
    if nan_ignore:
        r = np.where(np.isnan(a.astype(np.float64)), b, np.where(np.isnan(b.astype(np.float64)), a, r))
    return r


BINARY = {"AddElementwise": np.add, "MaximumElementwise": _maximum}


class MiniCpu(judge.Backend):
    """Correct for the handful of OpKinds the harness tests use (F32/F64/F16/BF16 via numpy)."""

    name = "mini-cpu"
    device = "cpu"

    def fingerprint(self):
        import ml_dtypes

        return {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__}

    def supports(self, contract, dtypes):
        ok = contract.op_kind in UNARY or contract.op_kind in BINARY or contract.op_kind in (
            "SumReduce", "MeanReduce", "ArgMaxDim")
        return True if ok else f"mini-cpu has no {contract.op_kind}"

    def inputs(self, call):
        return [t.view() for t in call.inputs]

    def compute(self, contract, call, xs):
        with np.errstate(all="ignore"):  # drawn edge values overflow and make NaN, as in any kernel
            op = contract.op_kind
            out_dtype = call.outputs[0].base.dtype
            if op in UNARY:
                if op == "GeluElementwise":
                    return UNARY[op](xs[0]).astype(out_dtype)
                return UNARY[op](xs[0].astype(np.float64)).astype(out_dtype) if op == "SqrtElementwise" \
                    else UNARY[op](xs[0])
            if op in BINARY:
                return BINARY[op](*np.broadcast_arrays(xs[0], xs[1])).astype(out_dtype)
            if op == "SumReduce":
                dims = tuple(call.params["dims"])
                return self.sum(xs[0], dims).astype(out_dtype)
            if op == "MeanReduce":
                dims = tuple(call.params["dims"])
                total = self.sum(xs[0], dims)
                count = int(np.prod([xs[0].shape[d] for d in dims])) if dims else 1
                return (total / total.dtype.type(count)).astype(out_dtype)
            if op == "ArgMaxDim":
                return _argext(xs[0], call.params["dims"][0], lambda a, b: a > b)
            raise NotImplementedError(op)

    def sum(self, x, dims):
        acc = np.float64 if x.dtype == np.float64 else np.float32
        return np.sum(x.astype(acc), axis=dims) if dims else x.astype(acc)

    def run(self, contract, call):
        result = np.asarray(self.compute(contract, call, self.inputs(call)))
        out = call.outputs[0]
        out.base[...] = result.reshape(-1)
        return [out.base.reshape(out.shape)]


class WrongNanRule(MiniCpu):
    name = "broken-nan-rule"

    def compute(self, contract, call, xs):
        if contract.op_kind == "MaximumElementwise":
            return _maximum(*np.broadcast_arrays(xs[0], xs[1]), nan_ignore=True)  # NaN-as-missing
        return super().compute(contract, call, xs)


class WrongNanRuleF32(MiniCpu):
    """WrongNanRule on F32 only: one planted failure per contract of maximum."""

    name = "broken-nan-rule-f32"

    def compute(self, contract, call, xs):
        if contract.op_kind == "MaximumElementwise" and xs[0].dtype == np.float32:
            return _maximum(*np.broadcast_arrays(xs[0], xs[1]), nan_ignore=True)
        return super().compute(contract, call, xs)


class TwoBugsF32(WrongNanRuleF32):
    """Two unrelated bugs on F32: maximum's NaN-as-missing, and every zero output written +0."""

    name = "broken-two-bugs-f32"

    def compute(self, contract, call, xs):
        r = np.array(super().compute(contract, call, xs))
        if r.dtype == np.float32:
            r[r == 0] = 0
        return r


class WrongTieRule(MiniCpu):
    name = "broken-tie-rule"

    def compute(self, contract, call, xs):
        if contract.op_kind == "ArgMaxDim":
            return _argext(xs[0], call.params["dims"][0], lambda a, b: a > b, last_tie=True)
        return super().compute(contract, call, xs)


class ExtraUlp(MiniCpu):
    name = "broken-extra-ulp"

    def compute(self, contract, call, xs):
        r = np.array(super().compute(contract, call, xs))
        flat = r.reshape(-1)
        finite = np.flatnonzero(np.isfinite(flat.astype(np.float64)) & (flat != 0))
        if finite.size:
            i = finite[0]
            flat[i] = np.nextafter(flat[i], np.inf, dtype=flat.dtype) if flat.dtype != np.dtype(ml_dtypes.bfloat16) \
                else (flat[i:i + 1].view(np.uint16) + 1).view(flat.dtype)[0]
        return r


class FlippedZeroSign(MiniCpu):
    name = "broken-zero-sign"

    def compute(self, contract, call, xs):
        r = np.array(super().compute(contract, call, xs))
        r[r == 0] = 0  # every zero comes out as +0
        return r


class FlushedSubnormals(MiniCpu):
    name = "broken-ftz"

    def inputs(self, call):
        out = []
        for x in super().inputs(call):
            x = np.array(x)
            tiny = np.finfo(x.dtype).tiny if x.dtype != np.dtype(ml_dtypes.bfloat16) else np.float32(2.0**-126)
            x[np.abs(x.astype(np.float64)) < float(tiny)] = 0
            out.append(x)
        return out


class UnwrittenTail(MiniCpu):
    name = "broken-unwritten"

    def run(self, contract, call):
        result = np.asarray(self.compute(contract, call, self.inputs(call)))
        out = call.outputs[0]
        flat = result.reshape(-1)
        out.base[: max(flat.size - 1, 0)] = flat[: max(flat.size - 1, 0)]
        return [out.base.reshape(out.shape)]


class ModifiesInput(MiniCpu):
    name = "broken-modifies-input"

    def run(self, contract, call):
        outs = super().run(contract, call)
        for t in call.inputs:
            if t.base.size:
                t.base[0] = t.base[0] * 2 + 1
        return outs


class WrongDtype(MiniCpu):
    name = "broken-dtype"

    def run(self, contract, call):
        return [np.asarray(self.compute(contract, call, self.inputs(call))).astype(np.float64)]


class WrongShape(MiniCpu):
    name = "broken-shape"

    def run(self, contract, call):
        outs = super().run(contract, call)
        return [np.expand_dims(outs[0], 0)]


class NondeterministicLastBit(MiniCpu):
    name = "broken-nondeterministic"
    calls = 0

    def run(self, contract, call):
        outs = super().run(contract, call)
        type(self).calls += 1
        if type(self).calls % 2 == 0 and outs[0].size:
            bits = outs[0].reshape(-1).view(np.dtype(f"u{outs[0].dtype.itemsize}"))
            bits[-1] ^= 1
        return outs


class IgnoresStrides(MiniCpu):
    name = "broken-ignores-strides"

    def inputs(self, call):
        return [t.base[t.offset: t.offset + t.size].reshape(t.shape) if t.size else t.view()
                for t in call.inputs]


class WrongReduceDims(MiniCpu):
    name = "broken-reduce-dims"

    def run(self, contract, call):
        return [np.asarray(self.compute(contract, call, self.inputs(call)))]

    def compute(self, contract, call, xs):
        if contract.op_kind == "SumReduce":
            rank = xs[0].ndim
            dims = tuple(sorted(rank - 1 - d for d in call.params["dims"]))
            return self.sum(xs[0], dims).astype(call.outputs[0].base.dtype)
        return super().compute(contract, call, xs)


class HalfAccumulation(MiniCpu):
    name = "broken-half-accumulation"

    def sum(self, x, dims):
        if x.dtype.itemsize != 2 or not dims or x.size == 0:
            return super().sum(x, dims)
        moved = np.moveaxis(x, dims, tuple(range(x.ndim - len(dims), x.ndim)))
        flat = moved.reshape(moved.shape[: x.ndim - len(dims)] + (-1,))
        acc = np.zeros(flat.shape[:-1], dtype=x.dtype)
        for j in range(flat.shape[-1]):
            acc = (acc + flat[..., j]).astype(x.dtype)  # rounds to the half format every step
        return acc


class ErfGelu(MiniCpu):
    name = "broken-erf-gelu"

    def compute(self, contract, call, xs):
        if contract.op_kind == "GeluElementwise":
            return _gelu_erf(xs[0]).astype(call.outputs[0].base.dtype)
        return super().compute(contract, call, xs)


class RepeatsOneUlp(MiniCpu):
    """Every second call returns each normal finite result one ulp nearer zero: a result that
    varies by exactly one ULP between repeats of identical inputs (a subnormal stays, so no
    repeat reads as a flush)."""

    name = "repeats-one-ulp"
    calls = 0

    def compute(self, contract, call, xs):
        r = np.array(super().compute(contract, call, xs))
        type(self).calls += 1
        if type(self).calls % 2 == 0 and r.size:
            flat = r.reshape(-1)
            bits = flat.view(np.dtype(f"u{flat.dtype.itemsize}"))
            wide = np.abs(flat.astype(np.float64))
            nudge = np.isfinite(wide) & (wide >= float(ml_dtypes.finfo(flat.dtype).tiny))
            bits[nudge] -= 1  # the magnitude's bits one lower: one ulp toward zero
        return r


class SequentialSum(MiniCpu):
    """Sums each slice left to right in the accumulator: the same order whatever the batch."""

    name = "sequential-sum"
    reversed_from = None  # rows in the batch from which the order flips (None: never)

    def sum(self, x, dims):
        if not dims or x.size == 0:
            return super().sum(x, dims)
        acc = np.float64 if x.dtype == np.float64 else np.float32
        moved = np.moveaxis(x, dims, tuple(range(x.ndim - len(dims), x.ndim)))
        flat = moved.reshape(moved.shape[: x.ndim - len(dims)] + (-1,)).astype(acc)
        rows = int(np.prod(flat.shape[:-1]))
        order = range(flat.shape[-1])
        if self.reversed_from is not None and rows >= self.reversed_from:
            order = reversed(order)  # a "large batch" strategy: another summation order
        total = np.zeros(flat.shape[:-1], dtype=acc)
        for j in order:
            total = (total + flat[..., j]).astype(acc)
        return total


class BatchOrderSum(SequentialSum):
    """Sums a row right to left once the batch holds 8 rows or more: a row's bits depend on
    how many rows share its call (the batch invariance check targets this)."""

    name = "batch-order-sum"
    reversed_from = 8


BROKEN = (
    WrongNanRule, WrongTieRule, ExtraUlp, FlippedZeroSign, FlushedSubnormals, UnwrittenTail,
    ModifiesInput, WrongDtype, WrongShape, NondeterministicLastBit, IgnoresStrides,
    WrongReduceDims, HalfAccumulation, ErfGelu,
)

for _cls in (MiniCpu, WrongNanRuleF32, TwoBugsF32, RepeatsOneUlp, SequentialSum, BatchOrderSum, *BROKEN):
    judge.register_backend(_cls())
