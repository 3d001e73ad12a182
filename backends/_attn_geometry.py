"""Attention op params decoded the way a Fuel attention wrapper decodes them: which keys each
query row keeps (causal bottom-right aligned at k_len − sq, sliding windows, k_len), the alibi
bias, the GQA head expansion and a paged cache's gather. Plain numpy index arithmetic shared by
the numpy and torch adapters; no value is computed here.

    >>> keep = flash_keep({"sq": 2, "k_len": 3, "causal": True, "window_size_left": -1,
    ...                    "window_size_right": -1})
    >>> keep.astype(int).tolist()
    [[1, 1, 0], [1, 1, 1]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _keep(sq: int, k_len, causal: bool, left: int, right: int):
    """keep[..., i, j] over j < max(k_len); ``k_len`` an int or an array of per-sequence lengths
    (then a leading batch axis)."""
    import numpy as np

    lens = np.asarray(k_len, dtype=np.int64).reshape(-1, 1, 1)
    width = int(lens.max()) if lens.size else 0
    i = np.arange(sq).reshape(1, -1, 1)
    j = np.arange(width).reshape(1, 1, -1)
    at = i + lens - sq
    keep = (j < lens) & (i >= 0)  # shaped [b, sq, T]
    if causal:
        keep = keep & (j <= at)
    if right >= 0:
        keep = keep & (j <= at + right)
    if left >= 0:
        keep = keep & (j >= at - left)
    return keep, j - at


def flash_keep(params: Mapping[str, Any]):
    """keep[i, j] for FlashAttn: [sq, k_len] booleans."""
    keep, _ = _keep(int(params["sq"]), int(params["k_len"]), bool(params["causal"]),
                    int(params["window_size_left"]), int(params["window_size_right"]))
    return keep[0]


def flash_offsets(params: Mapping[str, Any]):
    """j − (i + k_len − sq): [sq, k_len], what an alibi slope multiplies."""
    _, rel = _keep(int(params["sq"]), int(params["k_len"]), False, -1, -1)
    return rel[0]


def paged_keep(params: Mapping[str, Any], context_lens):
    """(keep [b, sq, T], offsets [b, sq, T]) over T = the longest context: causal at each
    sequence's end, nothing at or past its own length."""
    return _keep(int(params["sq"]), context_lens, True, -1, -1)


def paged_slots(params: Mapping[str, Any], block_table, context_lens):
    """(blocks [b, T], offsets in block [T]) of the logical key positions 0..T-1."""
    import numpy as np

    lens = np.asarray(context_lens, dtype=np.int64).reshape(-1)
    width = int(lens.max()) if lens.size else 0
    bs = int(params["block_size"])
    t = np.arange(width)
    table = np.asarray(block_table, dtype=np.int64)
    return table[:, t // bs], t % bs


def gqa_ratio(params: Mapping[str, Any]) -> int:
    """Query heads per KV head: query head h reads KV head h / ratio."""
    hq, hkv = int(params["hq"]), int(params["hkv"])
    if hkv <= 0 or hq % hkv:
        raise ValueError(f"hkv={hkv} does not divide hq={hq}")
    return hq // hkv
