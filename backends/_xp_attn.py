"""Attention for numpy-API libraries, composed as a careful Fuel CPU kernel computes it (numpy has
no attention kernel): in the accumulator (f32 for halves), scores = scale·q·kᵀ, softcap, alibi
bias, the kept keys' maximum subtracted, exponentials summed over the kept keys only, the
weighted sum of the kept values; a row that keeps nothing is zeros. The backward pass is the
analytical one (dS = P ⊙ (dO·Vᵀ − rowsum(dO ⊙ O)), softcap's 1 − tanh²), each sum over kept
pairs only, K/V gradients summed over the query heads of a group. PagedAttn gathers the cache
through the block table first. Merged into ``XP_TABLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from backends import _attn_geometry as geo


class _Attn:
    """One call's operands in the accumulator, GQA-expanded: q [b,hq,sq,d], k and v
    [b,hq,T,d], keep [b|1,1,sq,T], the alibi bias (or None), scale and softcap."""

    def __init__(self, env, q, k, v, keep, offsets, alibi):
        xp, acc = env.xp, env.acc
        p = env.op.params
        ratio = geo.gqa_ratio(p)
        self.env, self.xp = env, xp
        self.q = q.astype(acc)
        self.k = xp.repeat(k.astype(acc), ratio, axis=1)
        self.v = xp.repeat(v.astype(acc), ratio, axis=1)
        self.keep = xp.asarray(keep)
        self.bias = None
        if alibi is not None:
            self.bias = alibi.astype(acc).reshape(-1, 1, 1) * xp.asarray(offsets, dtype=acc)
        self.scale = xp.asarray(float(p["softmax_scale"]), dtype=acc)
        self.cap = float(p.get("softcap", 0.0))

    def raw(self):
        return self.xp.matmul(self.q, self.xp.swapaxes(self.k, -1, -2)) * self.scale

    def weights(self):
        """(p [b,hq,sq,T], raw scores) with zero weight off the kept keys."""
        xp = self.xp
        x = self.raw()
        s = self.cap * xp.tanh(x / self.cap) if self.cap > 0 else x
        if self.bias is not None:
            s = s + self.bias
        s = xp.where(self.keep, s, -xp.inf)
        m = s.max(axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(s.shape[:-1] + (1,), s.dtype)
        m = xp.where(m == -xp.inf, 0, m)  # a row that keeps nothing
        e = xp.where(self.keep, xp.exp(s - m), 0)
        total = e.sum(axis=-1, keepdims=True)
        return e / xp.where(total == 0, 1, total), x

    def kept(self, a, b):
        """Σ over the key axis of a[..., j, None]·b[..., None, j, :] where kept (no NaN from a
        key the row does not read)."""
        terms = a[..., None] * b[:, :, None, :, :]
        return self.xp.where(self.keep[..., None], terms, 0).sum(axis=-2)

    def forward(self):
        p, _ = self.weights()
        return self.kept(p, self.v)

    def grads(self, do):
        xp = self.xp
        do = do.astype(self.env.acc)
        p, x = self.weights()
        o = self.kept(p, self.v)
        D = (do * o).sum(axis=-1, keepdims=True)
        dP = xp.matmul(do, xp.swapaxes(self.v, -1, -2))
        dS = xp.where(self.keep, p * (dP - D), 0)
        if self.cap > 0:
            dS = dS * (1 - xp.tanh(x / self.cap) ** 2)
        dq = self.kept(dS, self.k) * self.scale
        keep_t = xp.swapaxes(self.keep, -1, -2)[..., None]
        dk = xp.where(keep_t, xp.swapaxes(dS, -1, -2)[..., None] * self.q[:, :, None], 0).sum(axis=-2)
        dv = xp.where(keep_t, xp.swapaxes(p, -1, -2)[..., None] * do[:, :, None], 0).sum(axis=-2)
        return dq, dk * self.scale, dv


def _flash(env, args: Sequence[Any], n_core: int) -> _Attn:
    p = env.op.params
    q, k, v = args[:3]
    k_len = int(p["k_len"])
    alibi = args[n_core] if len(args) > n_core else None
    keep = geo.flash_keep(p)[None, None]
    return _Attn(env, q, k[:, :, :k_len], v[:, :, :k_len], keep, geo.flash_offsets(p), alibi)


def _flash_forward(env, args: Sequence[Any]):
    return _flash(env, args, 3).forward().astype(env.compute)


def _flash_backward(which: str):
    def run(env, args: Sequence[Any]):
        xp = env.xp
        attn = _flash(env, args, 4)
        grads = dict(zip("qkv", attn.grads(args[3]), strict=True))
        g = grads[which]
        if which != "q":  # fold the query heads of a group, pad to sk
            p = env.op.params
            b, hkv, sk, d = (int(p[f]) for f in ("b", "hkv", "sk", "d"))
            g = g.reshape(b, hkv, geo.gqa_ratio(p), -1, d).sum(axis=2)
            full = xp.zeros((b, hkv, sk, d), dtype=g.dtype)
            full[:, :, : g.shape[2]] = g
            g = full
        return g.astype(env.compute)

    run.__name__ = f"flash_attn_backward_{which}"
    return run


def _paged(env, args: Sequence[Any]):
    import numpy as np

    q, kc, vc, table, lens = args[:5]
    lens = np.asarray(lens).astype(np.int64)
    blocks, slots = geo.paged_slots(env.op.params, np.asarray(table), lens)
    k = kc[blocks, slots].transpose(0, 2, 1, 3)  # [b, hkv, T, d]
    v = vc[blocks, slots].transpose(0, 2, 1, 3)
    keep, offsets = geo.paged_keep(env.op.params, lens)
    alibi = args[5] if len(args) > 5 else None
    attn = _Attn(env, q, k, v, keep[:, None], offsets[:, None], alibi)
    return attn.forward().astype(env.compute)


XP_ATTN = {
    "FlashAttn": _flash_forward,
    "FlashAttnBackwardQ": _flash_backward("q"),
    "FlashAttnBackwardK": _flash_backward("k"),
    "FlashAttnBackwardV": _flash_backward("v"),
    "PagedAttn": _paged,
}
