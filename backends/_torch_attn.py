"""Attention for torch: ``torch.nn.functional.scaled_dot_product_attention`` with an explicit mask
(causal aligned at k_len − sq, sliding windows, keys past k_len sliced off), the alibi bias
passed as a float mask, operands widened to f32 for halves (the contracts' accumulator) and
``enable_gqa`` for grouped heads. SDPA has no softcap: with softcap the scores are computed
explicitly (scale·q·kᵀ, c·tanh(·/c), alibi, the masked ``torch.softmax``, the weighted sum).
Backward: ``torch.autograd`` through the same forward. PagedAttn gathers the cache through the
block table up to the longest context, then attends like FlashAttn. Merged into ``TORCH_TABLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends import _attn_geometry as geo


def _widen(env, x):
    return x.to(env.acc) if env.acc is not None else x


def _mask(env, keep, offsets, alibi, dtype):
    """SDPA's attn_mask: the kept keys as booleans, or with alibi a float bias (−inf off them)."""
    torch = env.torch
    keep = torch.from_numpy(keep)
    if alibi is None:
        return keep
    bias = _widen(env, alibi).reshape(-1, 1, 1) * torch.from_numpy(offsets).to(dtype)
    return bias.masked_fill(~keep, float("-inf"))


def _attend(env, q, k, v, keep, offsets, alibi):
    """out [b, hq, sq, d] in the accumulator dtype; keep [b|1, 1, sq, T]."""
    torch = env.torch
    p = env.op.params
    scale, cap = float(p["softmax_scale"]), float(p.get("softcap", 0.0))
    q, k, v = (_widen(env, x) for x in (q, k, v))
    mask = _mask(env, keep, offsets, alibi, q.dtype)
    if cap <= 0:
        return torch.nn.functional.scaled_dot_product_attention(
            q, k, v, attn_mask=mask, scale=scale, enable_gqa=geo.gqa_ratio(p) > 1)
    ratio = geo.gqa_ratio(p)
    k, v = k.repeat_interleave(ratio, dim=1), v.repeat_interleave(ratio, dim=1)
    s = cap * torch.tanh(torch.matmul(q, k.transpose(-1, -2)) * scale / cap)
    if mask.dtype == torch.bool:
        s = s.masked_fill(~mask, float("-inf"))
    else:
        s = s + mask
    return torch.matmul(torch.softmax(s, dim=-1), v)


def _flash_inputs(args: Sequence[Any], params, n_core: int):
    q, k, v = args[:3]
    k_len = int(params["k_len"])
    alibi = args[n_core] if len(args) > n_core else None
    keep = geo.flash_keep(params)[None, None]
    return q, k[:, :, :k_len], v[:, :, :k_len], keep, geo.flash_offsets(params), alibi


def _flash_forward(env, args: Sequence[Any]):
    q, *rest = _flash_inputs(args, env.op.params, 3)
    return _attend(env, q, *rest).to(q.dtype)


def _flash_backward(which: str):
    def run(env, args: Sequence[Any]):
        torch = env.torch
        p = env.op.params
        leaves = [_widen(env, x).detach().requires_grad_(True) for x in args[:3]]
        with torch.enable_grad():
            q, k, v, keep, offsets, alibi = _flash_inputs(leaves + list(args[3:]), p, 4)
            out = _attend(env, q, k, v, keep, offsets, alibi)
            out.backward(_widen(env, args[3]))
        return leaves["qkv".index(which)].grad.to(args[0].dtype)

    run.__name__ = f"flash_attn_backward_{which}"
    return run


def _paged(env, args: Sequence[Any]):
    torch = env.torch
    q, kc, vc, table, lens = args[:5]
    lens_np = lens.cpu().numpy().astype("int64")
    blocks, slots = geo.paged_slots(env.op.params, table.cpu().numpy(), lens_np)
    blocks, slots = torch.from_numpy(blocks), torch.from_numpy(slots)
    k = kc[blocks, slots].permute(0, 2, 1, 3)  # [b, hkv, T, d]
    v = vc[blocks, slots].permute(0, 2, 1, 3)
    keep, offsets = geo.paged_keep(env.op.params, lens_np)
    alibi = args[5] if len(args) > 5 else None
    return _attend(env, q, k, v, keep[:, None], offsets[:, None], alibi).to(q.dtype)


TORCH_ATTN = {
    "FlashAttn": _flash_forward,
    "FlashAttnBackwardQ": _flash_backward("q"),
    "FlashAttnBackwardK": _flash_backward("k"),
    "FlashAttnBackwardV": _flash_backward("v"),
    "PagedAttn": _paged,
}
