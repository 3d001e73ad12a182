"""Test-only backends for the quantized matmuls: a small correct numpy backend and broken
variants, each with one mistake a kernel author makes reading the stored format. Loadable as a
``--plugin`` file."""

from __future__ import annotations

import numpy as np

import judge
from backends._quant_blocks import gguf_rows, nf4_rows


def _half_as_f32(blocks: np.ndarray, at: int) -> np.ndarray:
    """The scale's bytes read as a binary32 (its own two bytes and the two after it)."""
    return blocks[:, at:at + 4].copy().view("<f4")[:, :1].astype(np.float32)


class MiniQuant(judge.Backend):
    """Correct QMatMul and Nf4Matmul: binary32 weights, an F32 matmul, one rounding to T."""

    name = "mini-quant"
    device = "cpu"

    def supports(self, contract, dtypes):
        ok = contract.op_kind in ("QMatMul", "Nf4Matmul")
        return True if ok else f"{self.name} has no {contract.op_kind}"

    def gguf(self, raw, kind, n, k):
        return gguf_rows(raw, kind, n, k)

    def nf4(self, packed, absmax, n, k, bs):
        return nf4_rows(packed, absmax, n, k, bs)

    def run(self, contract, call):
        p = call.params
        xs = [t.view() for t in call.inputs]
        n, k = int(p["n"]), int(p["k"])
        with np.errstate(all="ignore"):
            if contract.op_kind == "QMatMul":
                w = self.gguf(np.ascontiguousarray(xs[1]).astype("<u4").view(np.uint8),
                              str(p["quant_type"]), n, k)
            else:
                w = self.nf4(xs[1], xs[2], n, k, int(p["block_size"]))
            out = np.matmul(xs[0].astype(np.float32), w.T)
        return [out.astype(call.outputs[0].base.dtype).reshape(call.outputs[0].shape)]


class ScaleReadAsF32(MiniQuant):
    """Reads each GGUF block scale as a binary32 where the format stores a binary16."""

    name = "broken-scale-read-as-f32"

    def gguf(self, raw, kind, n, k):
        return gguf_rows(raw, kind, n, k, half=_half_as_f32)


class Nf4NibblesSwapped(MiniQuant):
    """Takes the low nibble of each NF4 byte as the even weight (bitsandbytes puts it high)."""

    name = "broken-nf4-nibbles-swapped"

    def nf4(self, packed, absmax, n, k, bs):
        swapped = ((np.asarray(packed) & 15) << 4) | (np.asarray(packed) >> 4)
        return nf4_rows(swapped.astype(np.uint8), absmax, n, k, bs)


BROKEN = (ScaleReadAsF32, Nf4NibblesSwapped)


def backends() -> list[judge.Backend]:
    return [MiniQuant(), *(cls() for cls in BROKEN)]
