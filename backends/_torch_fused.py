"""FusedLinear and FusedSoftmaxCrossEntropy for torch (merged into ``_torch_ops.TORCH_TABLE``).

FusedLinear is ``torch.nn.functional.linear`` (its weight is rhs transposed: the contract's rhs
is [k, n]) where rhs has no batch axes, and ``torch.baddbmm`` over the flattened batch otherwise
(GQA axes expanded as MatMul's are), in T: torch's half and bfloat16 kernels accumulate in float32
and add the bias there themselves. The cross-entropy is ``torch.nn.functional.cross_entropy``
with the contract's reduction and ignore_index, on float32 logits for BF16/F16 (a Fuel wrapper
widens them, as the F32 output implies) and on float64 logits as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def _fused_linear(env, args: Sequence[Any]):
    torch, p = env.torch, env.op.params
    lhs, rhs, bias = args
    if not p["rhs_batch_dims"]:
        return torch.nn.functional.linear(lhs, rhs.transpose(-1, -2), bias)
    for axis, (ld, r) in enumerate(zip(p["lhs_batch_dims"], p["rhs_batch_dims"], strict=True)):
        if ld != r and r:
            rhs = rhs.repeat_interleave(ld // r, dim=axis)
    m, k, n = int(p["m"]), int(p["k"]), int(p["n"])
    batch = tuple(lhs.shape[:-2])
    count = math.prod(batch)  # named: a -1 cannot be inferred for an empty operand
    flat_lhs, flat_rhs = lhs.reshape(count, m, k), rhs.reshape(count, k, n)
    out = torch.baddbmm(bias.expand(count, m, n), flat_lhs, flat_rhs)
    return out.reshape(*batch, m, n)


def _cross_entropy(env, args: Sequence[Any]):
    torch, p = env.torch, env.op.params
    logits, targets = args
    if env.acc is not None:
        logits = logits.to(env.acc)
    loss = torch.nn.functional.cross_entropy(logits, targets, reduction=str(p["reduction"]),
                                             ignore_index=int(p["ignore_index"]))
    return loss.to(torch.float32)


TORCH_FUSED = {"FusedLinear": _fused_linear, "FusedSoftmaxCrossEntropy": _cross_entropy}
