"""Test-only Cast backends: a small correct CPU cast and three deliberately broken ones.

``MiniCast`` converts with ml_dtypes/numpy ``astype`` (one rounding, non-saturating F8E4M3);
``TruncatingBf16`` narrows F32 to BF16 by dropping the low 16 bits (round toward zero, NaN kept
quiet); ``TiesAwayBf16`` rounds F32 ties away from zero; ``SaturatingF8`` clips to ±448 before the F8E4M3 rounding, so overflow and ±inf give
±448 where the contract says NaN. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

import judge

_NUMPY = {"F32": np.float32, "F64": np.float64, "F16": np.float16, "BF16": ml_dtypes.bfloat16,
          "F8E4M3": ml_dtypes.float8_e4m3fn, "I32": np.int32, "U32": np.uint32, "I64": np.int64,
          "U8": np.uint8}


class MiniCast(judge.Backend):
    """Correct Cast on the CPU for every pair of the dtypes above."""

    name = "mini-cast"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind == "Cast" else f"mini-cast has no {contract.op_kind}"

    def convert(self, x: np.ndarray, dst: str) -> np.ndarray:
        with np.errstate(all="ignore"):
            return x.astype(_NUMPY[dst])

    def run(self, contract, call):
        out = call.outputs[0]
        result = self.convert(np.array(call.inputs[0].view()), out.dtype)
        out.base[...] = result.reshape(-1)
        return [out.base.reshape(out.shape)]


class TruncatingBf16(MiniCast):
    name = "broken-cast-truncate"

    def convert(self, x, dst):
        if dst == "BF16" and x.dtype == np.float32:
            bits = (x.view(np.uint32) >> np.uint32(16)).astype(np.uint16)
            bits = np.where(np.isnan(x), bits | np.uint16(0x0040), bits)  # NaN stays a NaN
            return bits.astype(np.uint16).view(ml_dtypes.bfloat16)
        return super().convert(x, dst)


class SaturatingF8(MiniCast):
    name = "broken-cast-saturate"

    def convert(self, x, dst):
        if dst == "F8E4M3":
            wide = x.astype(np.float32)
            return super().convert(np.where(np.isnan(wide), wide, np.clip(wide, -448, 448)), dst)
        return super().convert(x, dst)


class TiesAwayBf16(MiniCast):
    """The hand-written F32 -> BF16 narrowing: add half a BF16 ulp to the bit pattern and keep
    the high half. Exact ties round away from zero (the contract says to even)."""

    name = "broken-cast-ties-away"

    def convert(self, x, dst):
        if dst == "BF16" and x.dtype == np.float32:
            bits = x.view(np.uint32).astype(np.uint64)
            rounded = ((bits + 0x8000) >> 16).astype(np.uint16)
            quiet = (bits >> 16).astype(np.uint16) | np.uint16(0x0040)  # NaN stays a NaN
            return np.where(np.isnan(x), quiet, rounded).view(ml_dtypes.bfloat16)
        return super().convert(x, dst)


for _cls in (MiniCast, TruncatingBf16, SaturatingF8, TiesAwayBf16):
    judge.register_backend(_cls())
