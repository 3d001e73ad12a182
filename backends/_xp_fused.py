"""FusedLinear and FusedSoftmaxCrossEntropy for numpy-API libraries (merged into
``_xp_ops.XP_TABLE``).

FusedLinear is ``xp.matmul`` plus the bias, both in the accumulator dtype (float32 for BF16/F16,
as the contract states), rounded to T by the caller; GQA batch axes expanded as MatMul's are.
The cross-entropy is the stable log-softmax these libraries are used for (the row maximum
subtracted, ``log`` of the summed exponentials), the target's entry picked with
``take_along_axis``, rows equal to ignore_index set to 0 with ``where`` and left out of a
mean's count; float32 logits for BF16/F16, float64 ones kept, the result stored as F32.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends._xp_matmul import _gqa_expand


def _fused_linear(env, args: Sequence[Any]):
    lhs, rhs, bias = args
    p = env.op.params
    rhs = _gqa_expand(env.xp, rhs, p["lhs_batch_dims"], p["rhs_batch_dims"])
    return env.xp.matmul(lhs.astype(env.acc), rhs.astype(env.acc)) + bias.astype(env.acc)


def _cross_entropy(env, args: Sequence[Any]):
    xp, p = env.xp, env.op.params
    logits, targets = args
    x = logits.astype(env.acc)
    keep = targets != int(p["ignore_index"])
    shifted = x - x.max(axis=-1, keepdims=True) if x.size else x
    log_probs = shifted - xp.log(xp.exp(shifted).sum(axis=-1, keepdims=True))
    picked = xp.take_along_axis(log_probs, xp.where(keep, targets, 0)[:, None], axis=-1)[:, 0] \
        if x.size else xp.zeros(targets.shape, env.acc)
    losses = xp.where(keep, -picked, xp.zeros((), env.acc))
    reduction = str(p["reduction"])
    if reduction == "none":
        return losses.astype(xp.float32)
    total = losses.sum(dtype=env.acc)
    if reduction == "mean":
        total = total / xp.asarray(keep.sum(), dtype=env.acc)
    return xp.asarray(total).astype(xp.float32)


XP_FUSED = {"FusedLinear": _fused_linear, "FusedSoftmaxCrossEntropy": _cross_entropy}
