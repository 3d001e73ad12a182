"""Attention's long cases (``Family.long_case``): the accumulations of a kernel made long, where
an accumulator narrower than the contract's shows.

- FlashAttn and FlashAttnBackwardQ: one query row (per query head) over a long key axis; the
  values (and the scores, through the keys) along it follow ``numerics.long_rows``' patterns;
- FlashAttnBackwardK / V: many query rows over a few keys, the upstream gradient along the rows
  following those patterns (dK and dV sum over the query rows);
- PagedAttn: one long context spread over shuffled blocks, with every cache slot the sequence
  does not read filled with NaN, as stale blocks are: a kernel that reads past its context or
  through the wrong block shows.

    >>> operands, params = draw(long_case(contract, opdef, ("F16",) * 4, 4096, operand))
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from numerics.formats import get_format
from numerics.long_rows import draw_row, row_values
from numerics.values import SEED
from oracles.drawing import operand_span
from oracles.families.attention import draw as cases
from oracles.families.attention.draw import SCALES, float_values, role, shapes_of

LONGEST = 256  # the pure reference's cost grows with the row; 256 terms expose a narrow sum
LONG_PATTERNS = ("equal", "large_then_small", "random", "cancelling")


def _along(pattern: str, value: float, axis_len: int, shape, dtype: str, rng) -> np.ndarray:
    """Values whose axis -2 (keys or query rows) of ``shape`` follows ``pattern``."""
    lead, d = math.prod(shape[:-2]), shape[-1]
    cols = np.array([row_values(pattern, axis_len, dtype, rng, value) for _ in range(lead * d)])
    return cols.reshape(lead, d, axis_len).transpose(0, 2, 1).reshape(shape)


def _flash_long(draw, kind: str, n: int) -> dict:
    ratio = draw(st.sampled_from((1, 2)))
    rows_long = kind in ("FlashAttnBackwardK", "FlashAttnBackwardV")
    sk = draw(st.integers(1, 3)) if rows_long else n + draw(st.integers(0, 2))
    return {"b": 1, "hq": ratio, "hkv": 1, "sq": n if rows_long else 1, "sk": sk,
            "d": draw(st.integers(1, 2)), "k_len": sk if rows_long else n,
            "softmax_scale": draw(st.sampled_from(SCALES)), "causal": draw(st.booleans()) and not rows_long,
            "window_size_left": -1, "window_size_right": -1, "softcap": 0.0}


def _paged_long(draw, n: int) -> dict:
    bs = draw(st.sampled_from((16, 8)))
    mb = -(-n // bs) + 1
    return {"b": 1, "hq": draw(st.sampled_from((1, 2))), "hkv": 1, "sq": 1, "d": draw(st.integers(1, 2)),
            "block_size": bs, "max_blocks_per_seq": mb, "num_blocks": mb + 2,
            "softmax_scale": draw(st.sampled_from(SCALES)), "softcap": 0.0}


def _paged_operands(params: dict, n: int, rng, t, fill_values):
    """q, both caches (stale slots NaN), the block table and the context length."""
    bs, mb, nb = params["block_size"], params["max_blocks_per_seq"], params["num_blocks"]
    table = rng.permutation(nb)[:mb].reshape(1, mb).astype(np.uint32)
    read = np.zeros((nb, bs), bool)
    for pos in range(n):
        read[table[0, pos // bs], pos % bs] = True
    caches = []
    for who in ("k", "v"):
        cache = fill_values(who, (nb, bs, params["hkv"], params["d"])).astype(np.float64)
        cache[~read] = math.nan
        caches.append(cache.astype(t))
    return [fill_values("q", (1, params["hq"], 1, params["d"])), *caches, table, np.array([n], np.uint32)]


@st.composite
def _long(draw, contract, opdef, dtypes, longest: int, operand):
    kind = opdef.op_kind
    n, pattern, value, rng = draw_row(draw, LONGEST, LONG_PATTERNS)
    equal_scores = draw(st.booleans())
    params = _paged_long(draw, n) if kind == "PagedAttn" else _flash_long(draw, kind, n)
    dtype = dtypes[0]
    t = get_format(dtype).numpy_dtype

    def fill_values(who, shape):
        if who == "q" and equal_scores:  # every score equal: weights exactly 1/n
            return np.zeros(shape, t)
        if who == "do" or (who == "v" and kind != "PagedAttn"):
            return _along(pattern, value, shape[-2], shape, dtype, rng).astype(t)
        if who == "v":  # a paged cache, slot after slot
            flat = (1, shape[0] * shape[1], shape[2] * shape[3])
            return _along(pattern, value, flat[1], flat, dtype, rng).reshape(shape).astype(t)
        return float_values(who, "grid", int(rng.integers(1 << 32)), shape, dtype)

    if kind == "PagedAttn":
        values = _paged_operands(params, n, rng, t, fill_values)
    else:
        values = [fill_values(role(kind, i), s) for i, s in enumerate(shapes_of(kind, 0, params))]
    if len(contract.inputs) > len(values):  # the alibi slopes
        values.append(np.array([0.25] * params["hq"], t))
    operands = []
    for spec, dt, arr in zip(contract.inputs, dtypes, values, strict=True):
        operands.append(draw(operand_span(operand, spec, dt, tuple(arr.shape),
                                          lambda count, a=arr: np.asarray(a).reshape(-1)[:count])))
    return operands, params


def _overflow_values(kind: str, n_inputs: int, params: dict, seed: int, dtype: str) -> list:
    values = []
    for i, shape in enumerate(shapes_of(kind, n_inputs, params)):
        who = role(kind, i)
        if who == "alibi":
            values.append(cases.alibi_values(seed, shape, dtype))
        elif who == "table":
            values.append(cases.table_values(seed, shape, int(params["num_blocks"])))
        elif who == "lens":
            values.append(cases.lens_values(seed, shape, params["max_blocks_per_seq"] * params["block_size"]))
        else:
            values.append(float_values(who, "large" if who in ("q", "k") else "wide", seed + i, shape, dtype))
    return values


@st.composite
def _overflow(draw, contract, opdef, dtypes, operand):
    """An ordinary case without softcap whose q and k are both large: every score lies far past
    exp's overflow threshold of the accumulator (F64's included), so only a max-shifted softmax
    stays finite."""
    kind = opdef.op_kind
    params = cases.paged_params(draw) if kind == "PagedAttn" else cases.flash_params(draw)
    # every score at least (LARGE/2)²·2·0.5 = 256: past F32's threshold always, F64's often
    params.update(softcap=0.0, softmax_scale=draw(st.sampled_from((0.5, 1.0))), d=draw(st.integers(2, 4)))
    values = _overflow_values(kind, len(contract.inputs), params, draw(SEED), dtypes[0])
    operands = []
    for spec, dt, arr in zip(contract.inputs, dtypes, values, strict=True):
        operands.append(draw(operand_span(operand, spec, dt, tuple(arr.shape),
                                          lambda count, a=arr: np.asarray(a).reshape(-1)[:count])))
    return operands, params


@st.composite
def _adversarial(draw, contract, opdef, dtypes, longest, operand):
    if draw(st.booleans()):
        return draw(_overflow(contract, opdef, dtypes, operand))
    return draw(_long(contract, opdef, dtypes, longest, operand))


def long_case(contract, opdef, dtypes, longest, operand):
    """Half the family's long cases are long rows, half overflowing scores."""
    return _adversarial(contract, opdef, dtypes, longest, operand)
