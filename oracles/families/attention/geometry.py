"""Attention's geometry: the op params read and checked against the operands, the key positions
a query row attends, the key/value head a query head reads (GQA), and a paged cache gathered into
the same per-sequence key and value rows.

Both OpKinds reduce to one ``Problem``: per sequence b a logical key length ``k_lens[b]``, per KV
head its key and value rows at positions 0..k_lens[b]-1, per query head its query rows, and the
masks. Query row i sits at position ``i + k_lens[b] − sq`` of its sequence (bottom-right
alignment); causal keeps keys at or before it, a window keeps ``left`` keys before and ``right``
after it (−1: unbounded), and no key at or past ``k_lens[b]`` is ever read.

    >>> p = Problem(1, 1, 1, 2, 1, Fraction(1), Fraction(0), True, -1, -1, (3,), [], [], [], None)
    >>> attended(p, 0, 0), attended(p, 0, 1)
    ([0, 1], [0, 1, 2])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from oracles.shapes import as_floats


@dataclass(frozen=True)
class Problem:
    """One attention call, values as Python floats: ``q[b][h][i]``, ``k[b][g][j]`` and
    ``v[b][g][j]`` are rows of d floats, ``alibi[h]`` a slope (None: no alibi input)."""

    b: int
    hq: int
    hkv: int
    sq: int
    d: int
    scale: Fraction
    softcap: Fraction
    causal: bool
    left: int
    right: int
    k_lens: tuple[int, ...]
    q: list
    k: list
    v: list
    alibi: list[float] | None


def attended(p: Problem, b: int, i: int) -> list[int]:
    """The key positions query row i of sequence b attends, in order."""
    k_len = p.k_lens[b]
    at = i + k_len - p.sq  # bottom-right alignment
    lo, hi = 0, k_len - 1
    if p.causal:
        hi = min(hi, at)
    if p.right >= 0:
        hi = min(hi, at + p.right)
    if p.left >= 0:
        lo = max(lo, at - p.left)
    return list(range(lo, hi + 1))


def kv_head(p: Problem, h: int) -> int:
    """The KV head query head h reads: runs of hq / hkv consecutive query heads share one."""
    return h // (p.hq // p.hkv)


def _int(params, name: str) -> int:
    return int(params[name])


def rows_of(arr: np.ndarray, lead: int) -> list:
    """arr [..lead axes.., n, d] as nested lists whose leaves are rows of d floats."""
    if lead == 0:
        d = arr.shape[-1]
        flat = as_floats(arr)
        return [flat[r * d:(r + 1) * d] for r in range(arr.shape[0])] if d else [[] for _ in range(arr.shape[0])]
    return [rows_of(a, lead - 1) for a in arr]


def _check(name: str, arr: np.ndarray, want: tuple[int, ...]):
    if tuple(arr.shape) != want:
        raise ValueError(f"{name} has shape {list(arr.shape)}, but the op params say {list(want)}")


def _common(params) -> dict[str, Any]:
    b, hq, hkv, sq, d = (_int(params, f) for f in ("b", "hq", "hkv", "sq", "d"))
    if hkv <= 0 or hq % hkv:
        raise ValueError(f"hkv={hkv} does not divide hq={hq}")
    return {"b": b, "hq": hq, "hkv": hkv, "sq": sq, "d": d,
            "scale": Fraction(float(params["softmax_scale"])),
            "softcap": Fraction(float(params.get("softcap", 0.0)))}


def _alibi(inputs, at: int, hq: int):
    if len(inputs) <= at:
        return None
    a = np.asarray(inputs[at])
    _check("alibi", a, (hq,))
    return as_floats(a)


def flash_problem(inputs, params, *, backward: bool = False) -> tuple[Problem, int]:
    """(the problem, sk) of FlashAttn (q, k, v[, alibi]) or its backward (q, k, v, do[, alibi])."""
    c = _common(params)
    sk, k_len = _int(params, "sk"), _int(params, "k_len")
    if not 0 <= k_len <= sk:
        raise ValueError(f"k_len={k_len} is not within 0..sk={sk}")
    q, k, v = (np.asarray(x) for x in inputs[:3])
    _check("q", q, (c["b"], c["hq"], c["sq"], c["d"]))
    for name, arr in (("k", k), ("v", v)):
        _check(name, arr, (c["b"], c["hkv"], sk, c["d"]))
    p = Problem(**c, causal=bool(params["causal"]), left=_int(params, "window_size_left"),
                right=_int(params, "window_size_right"), k_lens=(k_len,) * c["b"],
                q=rows_of(q, 2), k=rows_of(k[:, :, :k_len], 2), v=rows_of(v[:, :, :k_len], 2),
                alibi=_alibi(inputs, 4 if backward else 3, c["hq"]))
    return p, sk


def paged_problem(inputs, params) -> Problem:
    """PagedAttn (q, k_cache, v_cache, block_table, context_lens[, alibi]): sequence b's key at
    logical position t is k_cache[block_table[b, t // block_size], t % block_size]."""
    c = _common(params)
    bs, mb, nb = (_int(params, f) for f in ("block_size", "max_blocks_per_seq", "num_blocks"))
    q, kc, vc = (np.asarray(x) for x in inputs[:3])
    table = np.asarray(inputs[3]).astype(np.int64)
    lens = [int(n) for n in np.asarray(inputs[4]).reshape(-1)]
    _check("q", q, (c["b"], c["hq"], c["sq"], c["d"]))
    for name, arr in (("k_cache", kc), ("v_cache", vc)):
        _check(name, arr, (nb, bs, c["hkv"], c["d"]))
    _check("block_table", table, (c["b"], mb))
    _check("context_lens", np.asarray(inputs[4]), (c["b"],))
    if any(n > mb * bs for n in lens):
        raise ValueError(f"context_lens {lens} exceed max_blocks_per_seq·block_size = {mb * bs}")

    def gather(cache):
        out = []
        for b, n in enumerate(lens):
            slots = [(int(table[b, t // bs]), t % bs) for t in range(n)]
            if any(not 0 <= blk < nb for blk, _ in slots):
                raise ValueError(f"block_table row {b} names a block outside 0..{nb}")
            rows = np.array([cache[blk, off] for blk, off in slots] or np.zeros((0, c["hkv"], c["d"])))
            out.append(rows_of(rows.transpose(1, 0, 2), 1))
        return out

    return Problem(**c, causal=True, left=-1, right=-1, k_lens=tuple(lens), q=rows_of(q, 2),
                   k=gather(kc), v=gather(vc), alibi=_alibi(inputs, 5, c["hq"]))
