"""Test-only backends for the data-movement family: a small correct one and broken variants.

``MiniMove`` moves bits with numpy's indexing on unsigned-integer views of the data (so no
value passes through float arithmetic). Each broken subclass breaks one promise: a copy made
through float64 arithmetic (quiets signalling NaNs), a kernel that canonicalises zeros, a roll
with the shift's sign reversed, a triangle off by one diagonal. Loadable as ``--plugin`` file.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import judge
from numerics.formats import get_format

KINDS = ("Concat", "IndexSelect", "Gather", "Flip", "Roll", "Triu", "Tril", "MaskedFill")


def _bits(t) -> np.ndarray:
    return t.view().view(get_format(t.dtype).bits_dtype)


class MiniMove(judge.Backend):
    """Correct for the eight data-movement OpKinds, every dtype, on bit views."""

    name = "mini-move"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"mini-move has no {contract.op_kind}"

    def compute(self, op: str, p: dict, xs: list[np.ndarray], out_shape) -> np.ndarray:
        if op == "Concat":
            return np.concatenate(xs, axis=p["axis"])
        if op == "IndexSelect":
            slab = (p["outer_count"], p["source_dim_size"], p["inner_count"])
            return np.take(xs[0].reshape(slab), xs[1].astype(np.intp), axis=1).reshape(out_shape)
        if op == "Gather":
            return np.take_along_axis(xs[0], xs[1].astype(np.intp), axis=p["dim"])
        if op == "Flip":
            return np.flip(xs[0], axis=p["axis"])
        if op == "Roll":
            return np.roll(xs[0], p["shift"], axis=p["axis"])
        if op in ("Triu", "Tril"):  # past either corner every diagonal keeps all or nothing:
            # clamped, as a C long np.triu can take
            k = min(max(p["diagonal"], -p["rows"] - 1), p["cols"] + 1)
            return (np.triu if op == "Triu" else np.tril)(xs[0], k=k)
        fill = np.frombuffer(bytes(p["fill_bytes"]), dtype=xs[0].dtype).reshape(())
        return np.where(xs[1] != 0, fill, xs[0])

    def run(self, contract, call):
        out = call.outputs[0]
        fmt = get_format(out.dtype)
        xs = [_bits(t) if i == 0 or contract.op_kind == "Concat" else t.view()
              for i, t in enumerate(call.inputs)]
        result = self.compute(contract.op_kind, dict(call.params), xs, tuple(out.shape))
        out.base[...] = np.asarray(result).astype(fmt.bits_dtype).reshape(-1).view(out.base.dtype)
        return [out.base.reshape(out.shape)]


class FlipThroughFloat64(MiniMove):
    """Flips values widened to float64 and narrowed back: a signalling NaN comes back quiet."""

    name = "broken-flip-f64"

    def run(self, contract, call):
        out = call.outputs[0]
        x = call.inputs[0].view()
        with np.errstate(invalid="ignore"):  # a NaN widened and narrowed: the defect under test
            flipped = np.flip(x.astype(np.float64) * 1.0, axis=call.params["axis"])
            out.base[...] = flipped.astype(out.base.dtype).reshape(-1)
        return [out.base.reshape(out.shape)]


class IndexSelectCanonicalZeros(MiniMove):
    """Copies every zero as +0: -0.0 loses its sign."""

    name = "broken-select-zeros"

    def compute(self, op, p, xs, out_shape):
        r = super().compute(op, p, xs, out_shape)
        sign = r.dtype.type(1 << (r.dtype.itemsize * 8 - 1))
        return np.where(r == sign, r.dtype.type(0), r)  # -0.0's bits become +0.0's


class RollWrongSign(MiniMove):
    """Rolls the other way: element d moves to d - shift."""

    name = "broken-roll-sign"

    def compute(self, op, p, xs, out_shape):
        return super().compute(op, {**p, "shift": -p["shift"]} if op == "Roll" else p, xs, out_shape)


class TriuOffByOne(MiniMove):
    """Keeps one diagonal too few: the diagonal itself is zeroed."""

    name = "broken-triu-diagonal"

    def compute(self, op, p, xs, out_shape):
        return super().compute(op, {**p, "diagonal": p["diagonal"] + 1} if op == "Triu" else p, xs,
                               out_shape)


class MaskedFillThroughFloat(MiniMove):
    """Decodes the fill element into a Python float and stores it back: payloads are lost."""

    name = "broken-fill-float"

    def run(self, contract, call):
        out = call.outputs[0]
        x, mask = (t.view() for t in call.inputs)
        fill = float(np.frombuffer(bytes(call.params["fill_bytes"]), dtype=x.dtype)[0])
        out.base[...] = np.where(mask != 0, x.dtype.type(fill), x).reshape(-1)
        return [out.base.reshape(out.shape)]


class RollShiftI32(MiniMove):
    """Takes the shift as a 32-bit int (a C ``int`` parameter): a shift of 2^31 or more wraps
    to another turn before it is reduced modulo the axis length."""

    name = "broken-roll-i32"

    def compute(self, op, p, xs, out_shape):
        if op == "Roll":
            p = {**p, "shift": int(np.array(p["shift"], dtype=np.int64).astype(np.int32))}
        return super().compute(op, p, xs, out_shape)


class MaskedFillPositiveZero(MiniMove):
    """A fill that compares equal to zero takes a memset(0) fast path: a -0.0 fill lands as
    +0.0 (every other fill is copied bit for bit)."""

    name = "broken-fill-zero"

    def run(self, contract, call):
        if contract.op_kind == "MaskedFill" and get_format(call.inputs[0].dtype).is_float:
            fmt = get_format(call.inputs[0].dtype)
            fill = np.frombuffer(bytes(call.params["fill_bytes"]), dtype=fmt.numpy_dtype)[0]
            if fill == 0:
                call = replace(call, params={**call.params, "fill_bytes": [0] * fmt.itemsize})
        return super().run(contract, call)


def backends() -> list[judge.Backend]:
    return [MiniMove(), FlipThroughFloat64(), IndexSelectCanonicalZeros(), RollWrongSign(),
            TriuOffByOne(), MaskedFillThroughFloat(), RollShiftI32(), MaskedFillPositiveZero()]
