"""MatMul and CumSum for numpy-API libraries (merged into ``_xp_ops.XP_TABLE``).

``xp.matmul`` on the operands held in the accumulator dtype (float32 for BF16/F16, as the
contracts state; int32 for I8/U8, clipped to T's range on the way back), GQA batch axes expanded with ``xp.repeat`` (lhs batch index i reads rhs index
i / ratio); ``xp.cumsum`` with ``dtype=`` the accumulator. Results are stored in T by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _gqa_expand(xp, rhs, lhs_batch: Sequence[int], rhs_batch: Sequence[int]):
    """rhs with each batch axis repeated lhs_dim / rhs_dim times, element by element."""
    for axis, (ld, r) in enumerate(zip(lhs_batch, rhs_batch, strict=True)):
        if ld != r and r:
            rhs = xp.repeat(rhs, ld // r, axis=axis)
    return rhs


def _matmul(env, args: Sequence[Any]):
    lhs, rhs = args
    p = env.op.params
    rhs = _gqa_expand(env.xp, rhs, p["lhs_batch_dims"], p["rhs_batch_dims"])
    if lhs.dtype.kind in "iu":
        return _int_matmul(env.xp, lhs, rhs)
    return env.xp.matmul(lhs.astype(env.acc), rhs.astype(env.acc)).astype(env.compute)


def _int_matmul(xp, lhs, rhs):
    """I8/U8: the products summed in int32 (the contracts' accumulator), the saturating store
    as ``clip`` to T's range, then the cast."""
    info = xp.iinfo(lhs.dtype)
    total = xp.matmul(lhs.astype(xp.int32), rhs.astype(xp.int32))
    return xp.clip(total, info.min, info.max).astype(lhs.dtype)


def _cumsum(env, args: Sequence[Any]):
    (x,) = args
    return env.xp.cumsum(x, axis=int(env.op.params["axis"]), dtype=env.acc).astype(env.compute)


XP_MATMUL = {"MatMul": _matmul, "CumSum": _cumsum}
