"""MatMul and CumSum for torch (merged into ``_torch_ops.TORCH_TABLE``).

``torch.matmul`` on the operands in T (torch's half and bfloat16 GEMMs accumulate in float32
themselves; there is no accumulator argument to pass; I8/U8 widened to int32 and clamped back),
GQA batch axes expanded with
``repeat_interleave`` (lhs batch index i reads rhs index i / ratio); ``torch.cumsum`` with
``dtype=torch.float32`` for halves, as a Fuel wrapper passes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _matmul(env, args: Sequence[Any]):
    lhs, rhs = args
    p = env.op.params
    for axis, (ld, r) in enumerate(zip(p["lhs_batch_dims"], p["rhs_batch_dims"], strict=True)):
        if ld != r and r:
            rhs = rhs.repeat_interleave(ld // r, dim=axis)
    if not lhs.dtype.is_floating_point:
        return _int_matmul(env.torch, lhs, rhs)
    return env.torch.matmul(lhs, rhs)


def _int_matmul(torch, lhs, rhs):
    """I8/U8: the products summed in int32 (the contracts' accumulator; torch's CUDA GEMMs take
    no int32, so there in float64, exact while every partial sum stays below 2^53), the
    saturating store as ``clamp`` to T's range, then the cast."""
    info = torch.iinfo(lhs.dtype)
    acc = torch.int32 if lhs.device.type == "cpu" else torch.float64
    total = torch.matmul(lhs.to(acc), rhs.to(acc))
    return total.clamp(info.min, info.max).to(lhs.dtype)


def _cumsum(env, args: Sequence[Any]):
    (x,) = args
    kwargs = {"dtype": env.acc} if env.acc is not None else {}
    return env.torch.cumsum(x, dim=int(env.op.params["axis"]), **kwargs).to(x.dtype)


TORCH_MATMUL = {"MatMul": _matmul, "CumSum": _cumsum}
