"""Test-only backends for attention: a small correct numpy kernel and broken variants.

``MiniAttn`` loops over (sequence, query head) the way a plain CPU attention kernel does: it
builds each head's mask (causal and windows aligned at k_len − sq, keys past k_len dropped),
scores in the accumulator (F32 for BF16/F16), subtracts the kept keys' maximum, and sums only
over kept keys; the backward pass is the analytical one. PagedAttn walks the block table. Each
broken subclass gets one detail wrong, as an outside kernel author might; the family tests prove
the Judge catches every one. Loadable as a ``--plugin`` file.
"""

from __future__ import annotations

import numpy as np

import judge

KINDS = ("FlashAttn", "FlashAttnBackwardQ", "FlashAttnBackwardK", "FlashAttnBackwardV", "PagedAttn")


class MiniAttn(judge.Backend):
    """Correct for the five attention OpKinds (F32/F64/F16/BF16 via numpy)."""

    name = "mini-attn"
    device = "cpu"

    def supports(self, contract, dtypes):
        return True if contract.op_kind in KINDS else f"mini-attn has no {contract.op_kind}"

    # --- the details the broken variants get wrong --------------------------------------------

    def offset(self, k_len, sk, sq):
        """Where query row 0 sits among the keys (bottom-right alignment)."""
        return k_len - sq

    def kv_head(self, h, hq, hkv):
        return h // (hq // hkv)

    def row_max(self, s):
        return s.max(axis=-1, keepdims=True)

    def d_scores(self, p, dP, D):
        return p * (dP - D)

    def context(self, n):
        return n

    # --- the kernel ------------------------------------------------------------------------------

    def keep(self, sq, k_len, sk, pr):
        i = np.arange(sq)[:, None]
        j = np.arange(k_len)[None, :]
        at = i + self.offset(k_len, sk, sq)
        keep = np.ones((sq, k_len), bool)
        if pr.get("causal", True):
            keep &= j <= at
        if int(pr.get("window_size_right", -1)) >= 0:
            keep &= j <= at + int(pr["window_size_right"])
        if int(pr.get("window_size_left", -1)) >= 0:
            keep &= j >= at - int(pr["window_size_left"])
        return keep, j - (i + k_len - sq)

    def weights(self, q, k, keep, bias, pr, acc):
        scale, cap = acc(pr["softmax_scale"]), acc(pr.get("softcap", 0.0))
        x = (q @ k.T) * scale
        s = cap * np.tanh(x / cap) if cap > 0 else x
        if bias is not None:
            s = s + bias
        s = np.where(keep, s, -np.inf)
        m = self.row_max(s) if s.shape[-1] else np.zeros((s.shape[0], 1), acc)
        m = np.where(m == -np.inf, 0, m)
        e = np.where(keep, np.exp(s - m), 0)
        total = e.sum(axis=-1, keepdims=True)
        return e / np.where(total == 0, 1, total), x

    def head(self, q, k, v, do, keep, bias, pr, acc):
        """(o, dq, dk, dv) of one query head over its keys (do None: forward only)."""
        p, x = self.weights(q, k, keep, bias, pr, acc)
        o = np.where(keep[..., None], p[..., None] * v[None], 0).sum(axis=1)
        if do is None:
            return o, None, None, None
        scale, cap = acc(pr["softmax_scale"]), acc(pr.get("softcap", 0.0))
        dP = do @ v.T
        D = (do * o).sum(axis=-1, keepdims=True)
        ds = np.where(keep, self.d_scores(p, dP, D), 0)
        if cap > 0:
            ds = ds * (1 - np.tanh(x / cap) ** 2)
        dq = np.where(keep[..., None], ds[..., None] * k[None], 0).sum(axis=1) * scale
        dk = np.where(keep[..., None], ds[..., None] * q[:, None], 0).sum(axis=0) * scale
        dv = np.where(keep[..., None], p[..., None] * do[:, None], 0).sum(axis=0)
        return o, dq, dk, dv

    def flash(self, kind, x, pr, acc):
        b, hq, hkv, sq, sk, d, k_len = (int(pr[f]) for f in ("b", "hq", "hkv", "sq", "sk", "d", "k_len"))
        q, k, v = (a.astype(acc) for a in x[:3])
        backward = kind != "FlashAttn"
        do = x[3].astype(acc) if backward else None
        alibi = x[4 if backward else 3].astype(acc) if len(x) > (4 if backward else 3) else None
        keep, rel = self.keep(sq, k_len, sk, pr)
        out = {"o": np.zeros_like(q), "q": np.zeros_like(q), "k": np.zeros_like(k), "v": np.zeros_like(v)}
        for bi in range(b):
            for h in range(hq):
                g = self.kv_head(h, hq, hkv)
                bias = alibi[h] * rel if alibi is not None else None
                o, dq, dk, dv = self.head(q[bi, h], k[bi, g, :k_len], v[bi, g, :k_len],
                                          do[bi, h] if backward else None, keep, bias, pr, acc)
                out["o"][bi, h] = o
                if backward:
                    out["q"][bi, h] = dq
                    out["k"][bi, g, :k_len] += dk
                    out["v"][bi, g, :k_len] += dv
        return out["o"] if not backward else out[kind[-1].lower()]

    def paged(self, x, pr, acc):
        q, kc, vc = (a.astype(acc) for a in x[:3])
        table, lens = x[3].reshape(-1).astype(np.int64), x[4].astype(np.int64)
        alibi = x[5].astype(acc) if len(x) > 5 else None
        b, hq, hkv, sq = (int(pr[f]) for f in ("b", "hq", "hkv", "sq"))
        bs, mb = int(pr["block_size"]), int(pr["max_blocks_per_seq"])
        out = np.zeros_like(q)
        for bi in range(b):
            n = self.context(int(lens[bi]))
            if n == 0:  # no context: the rows stay zero
                continue
            slots = [(table[min(bi * mb + t // bs, table.size - 1)], t % bs) for t in range(n)]
            keys = np.array([kc[blk, off] for blk, off in slots]).reshape(n, hkv, -1)
            vals = np.array([vc[blk, off] for blk, off in slots]).reshape(n, hkv, -1)
            keep, rel = self.keep(sq, n, n, {"causal": True})
            for h in range(hq):
                g = self.kv_head(h, hq, hkv)
                bias = alibi[h] * rel if alibi is not None else None
                out[bi, h] = self.head(q[bi, h], keys[:, g], vals[:, g], None, keep, bias, pr, acc)[0]
        return out

    def run(self, contract, call):
        x = [a.view() for a in call.inputs]
        acc = np.float64 if x[0].dtype == np.float64 else np.float32
        with np.errstate(all="ignore"):
            if contract.op_kind == "PagedAttn":
                result = self.paged(x, call.params, acc)
            else:
                result = self.flash(contract.op_kind, x, call.params, acc)
        out = call.outputs[0]
        out.base[...] = result.reshape(-1).astype(out.base.dtype)
        return [out.base.reshape(out.shape)]


class CausalOffsetFromSk(MiniAttn):
    """The causal diagonal aligned at the physical extent sk − sq instead of k_len − sq: right
    whenever the cache is full, wrong as soon as k_len < sk."""

    name = "broken-causal-offset-sk"

    def offset(self, k_len, sk, sq):
        return sk - sq


class GqaModulo(MiniAttn):
    """Query heads dealt to KV heads round robin (h % hkv) instead of in runs (h / (hq / hkv))."""

    name = "broken-gqa-modulo"

    def kv_head(self, h, hq, hkv):
        return h % hkv


class NoMaxShift(MiniAttn):
    """exp of the raw scores: large scores overflow to inf, and inf / inf is NaN."""

    name = "broken-attn-no-max-shift"

    def row_max(self, s):
        return np.zeros_like(s[..., :1])


class BackwardSignError(MiniAttn):
    """dS = P ⊙ (dP + rowsum(dO ⊙ O)): the softmax Jacobian's second term with the wrong sign."""

    name = "broken-attn-backward-sign"

    def d_scores(self, p, dP, D):
        return p * (dP + D)


class PagedContextOffByOne(MiniAttn):
    """Reads context_lens[b] + 1 keys: one stale slot past the context (``t <= len``)."""

    name = "broken-paged-off-by-one"

    def context(self, n):
        return n + 1


BROKEN = (CausalOffsetFromSk, GqaModulo, NoMaxShift, BackwardSignError, PagedContextOffByOne)

for _cls in (MiniAttn, *BROKEN):
    judge.register_backend(_cls())
