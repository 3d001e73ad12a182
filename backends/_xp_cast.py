"""Cast for numpy-API libraries (numpy with ml_dtypes, cupy): ``astype`` into the target.

numpy converts with its own casting loops (ml_dtypes' for BF16 and F8E4M3). cupy has neither
bfloat16 nor float8: a BF16 operand arrives widened to f32 and a BF16 result leaves through the
adapter's round-to-nearest-even narrowing, so cupy casts into BF16 by ``astype(float32)`` only
from sources that f32 holds exactly (one rounding in all); the other pairs are unsupported.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# Sources whose every value f32 holds exactly: their BF16 cast on cupy is one rounding.
_EXACT_IN_F32 = ("F32", "F16", "BF16", "U8")


def _cast(env, args: Sequence[Any]):
    import numpy as np

    from numerics.formats import get_format

    dst = env.op.out_dtypes[0]
    if env.lib.name == "cupy" and dst == "BF16":
        target = np.dtype(np.float32)  # narrowed to BF16 (RNE) when the result is downloaded
    else:
        target = get_format(dst).numpy_dtype
    return env.xp.asarray(args[0]).astype(target)


def cupy_cast_support(contract, dtypes: Sequence[str]) -> bool | str:
    """What the cupy adapter can cast: no float8 dtype, and BF16 only via one f32 rounding."""
    if contract.op_kind != "Cast" or not contract.outputs:
        return True
    dst = contract.outputs[0].dtype_rule.dtype
    if "F8E4M3" in (dst, *dtypes):
        return "cupy has no float8_e4m3fn dtype (F8E4M3 casts are not wired on cupy)"
    if dst == "BF16" and any(d not in _EXACT_IN_F32 for d in dtypes):
        return ("cupy has no bfloat16: a cast into BF16 goes through f32, which would round "
                f"{[d for d in dtypes if d not in _EXACT_IN_F32]} twice")
    return True


XP_CAST: dict[str, Any] = {"Cast": _cast}
