"""The attention family: FlashAttn (forward), FlashAttnBackwardQ / K / V (one gradient each) and
PagedAttn, each with or without a per-head alibi slope input.

Scores s_ij = cap(scale·q_i·k_j) + alibi[h]·(j − (i + k_len − sq)), cap(x) = c·tanh(x/c) when
softcap c > 0; causal and sliding-window masks aligned bottom-right at k_len − sq; GQA query head
h reads KV head h / (hq / hkv); no key at or past k_len is read; a row that attends nothing
writes zeros. PagedAttn gathers sequence b's key t from block block_table[b, t / block_size],
slot t % block_size, over context_lens[b] keys, causal and aligned at the end.

The reference (``evaluate``, ``backward``) is correctly rounded: exact rationals where the
weights are rational, rigorous intervals refined Ziv-style otherwise; every element carries the
terms of its derived bound (``bounds``). Cases, values and long cases: ``draw``, ``long``.
"""

from __future__ import annotations

from oracles.families.attention.backward import evaluate_backward
from oracles.families.attention.draw import draw_input, draw_shapes
from oracles.families.attention.evaluate import evaluate_flash, evaluate_paged
from oracles.families.attention.long import long_case
from oracles.family import Family
from oracles.opdef import OpDef

RULES = {"nan": "propagate"}
SCORES = ("s_ij = cap(scale·q_i·k_j) + alibi[h]·(j − (i + k_len − sq)); cap(x) = c·tanh(x/c) for "
          "softcap c > 0; causal keeps j ≤ i + k_len − sq, a window keeps left keys before and right "
          "after that position (−1: unbounded); keys at or past k_len are never read; GQA head h "
          "reads KV head h / (hq / hkv); a row attending no key is zeros; a NaN in q_i, an attended "
          "k_j or alibi[h] makes row i NaN, in an attended v_j its column")


def rows() -> list[OpDef]:
    def row(kind, arity, evaluate, domain):
        return OpDef(kind, arity, False, RULES, evaluate, domain=domain, reduction_bound="sum")

    grad = ("; the exact derivative of FlashAttn (softcap's factor 1 − tanh², masked pairs zero, "
            "K/V gradients summed over the query heads sharing them)")
    return [
        row("FlashAttn", 3, evaluate_flash, "o_i = Σ_j softmax_j(s_ij)·v_j; " + SCORES),
        row("FlashAttnBackwardQ", 4, evaluate_backward("q"), "dQ" + grad),
        row("FlashAttnBackwardK", 4, evaluate_backward("k"), "dK" + grad),
        row("FlashAttnBackwardV", 4, evaluate_backward("v"), "dV" + grad),
        row("PagedAttn", 5, evaluate_paged,
            "FlashAttn over a paged cache: key t of sequence b at k_cache[block_table[b, t / "
            "block_size], t % block_size], k_len = context_lens[b], causal, no window; " + SCORES),
    ]


FAMILY = Family(
    name="attention",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    long_case=long_case,
    long_share=2,  # half the cases: long rows or overflowing scores (``long``)
)
