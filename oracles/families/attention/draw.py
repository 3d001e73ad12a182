"""Attention's cases: op params and operand shapes tied together, operand values by role, and
the long cases.

Shapes stay small (the reference is pure Python): b·hq ≤ 4, sq ≤ 4, sk ≤ 6, d ≤ 4. They reach
GQA (hq = 2·hkv with hkv = 2, where a wrong head mapping shows), k_len < sk (a causal offset
taken from sk shows), causal and windowed masks that leave rows fully masked (k_len < sq, or a
window beside the causal edge), softcap and alibi. Values are drawn per operand role (q, k, v,
do, alibi), each as a handful of choices and a PCG64 seed: small exact grid values, rows of
equal scores (zero query rows, identical key rows), large scores (past exp's overflow in every
accumulator: a softmax without the max shift overflows), and one NaN somewhere (masked keys and
the padding past k_len included, which no kernel may read).

Long cases (one in ``LONG_SHARE``): a query row over a long key axis (forward, dQ, PagedAttn),
or many query rows over few keys (dK, dV), the values along the long axis following
``numerics.long_rows``' patterns; a long paged context also fills every cache slot no sequence
reads with NaN (stale blocks).

    >>> shapes, params = draw_shapes(draw, contract, opdef, Budget())
"""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import strategies as st

from numerics.formats import get_format
from numerics.values import SEED

SCALES = (0.5, 1.0, 0.25, 0.125, 0.75)
SOFTCAPS = (0.0, 0.0, 0.0, 2.0, 5.0, 30.0)
WINDOWS = (-1, -1, -1, 0, 1, 2)
HEADS = ((1, 1), (1, 2), (2, 1), (1, 3), (2, 2))  # (hkv, hq / hkv)
# |q|, |k| from LARGE/2 to LARGE: scores up to 4096, past exp's overflow at 88 (F32) and 709 (F64).
# Not larger: two scores that far apart weigh e^-4096 against each other, and a result next to
# a rounding boundary then takes the reference about 6,000 bits to settle (its cap is 16,384).
LARGE = 32.0
SLOPES = tuple(2.0**-k for k in range(1, 9))


def _heads(draw) -> dict:
    """Two cases in three are GQA with two KV heads of two query heads each (where a
    round-robin head mapping differs from runs of consecutive heads)."""
    if draw(st.integers(0, 2)) < 2:
        return {"b": 1, "hq": 4, "hkv": 2}
    hkv, ratio = draw(st.sampled_from(HEADS))
    hq = hkv * ratio
    b = draw(st.integers(1, 2)) if hq <= 2 else 1
    return {"b": b, "hq": hq, "hkv": hkv}


def flash_params(draw) -> dict:
    """Two cases in three are causal over a cache filled short of sk (2 ≤ k_len < sk) with
    several query rows, where the alignment at k_len − sq (not sk − sq) decides which keys
    each row keeps."""
    heads = _heads(draw)
    padded = draw(st.integers(0, 2)) < 2
    if padded:  # at least two keys kept somewhere: a row of one key has dS = p·(dP − D) = 0
        sq, sk = draw(st.integers(2, 4)), draw(st.integers(3, 6))
        k_len = sk - draw(st.integers(1, sk - 2))
    else:
        sq, sk = draw(st.integers(1, 4)), draw(st.integers(1, 6))
        k_len = sk - draw(st.integers(0, sk))  # shrinks to k_len = sk
    d = draw(st.integers(1, 4))
    return {**heads, "sq": sq, "sk": sk, "d": d, "k_len": k_len,
            "softmax_scale": draw(st.sampled_from(SCALES)), "causal": padded or draw(st.booleans()),
            "window_size_left": draw(st.sampled_from(WINDOWS)),
            "window_size_right": draw(st.sampled_from(WINDOWS)),
            "softcap": draw(st.sampled_from(SOFTCAPS))}


def paged_params(draw) -> dict:
    heads = _heads(draw)
    bs, mb = draw(st.sampled_from((2, 1, 4))), draw(st.integers(1, 3))
    return {**heads, "sq": draw(st.sampled_from((1, 1, 2, 3))), "d": draw(st.integers(1, 4)),
            "block_size": bs, "max_blocks_per_seq": mb,
            "num_blocks": heads["b"] * mb + draw(st.integers(0, 2)),
            "softmax_scale": draw(st.sampled_from(SCALES)), "softcap": draw(st.sampled_from(SOFTCAPS))}


def shapes_of(kind: str, n_inputs: int, p: dict) -> list[tuple[int, ...]]:
    """Every operand's shape from the op params (``kind``: the OpKind)."""
    q = (p["b"], p["hq"], p["sq"], p["d"])
    if kind == "PagedAttn":
        cache = (p["num_blocks"], p["block_size"], p["hkv"], p["d"])
        shapes = [q, cache, cache, (p["b"], p["max_blocks_per_seq"]), (p["b"],)]
    else:
        kv = (p["b"], p["hkv"], p["sk"], p["d"])
        shapes = [q, kv, kv] + ([q] if kind != "FlashAttn" else [])
    return shapes + [(p["hq"],)] * (n_inputs - len(shapes))  # the alibi slopes, one per query head


def draw_shapes(draw, contract, opdef, budget):
    params = paged_params(draw) if opdef.op_kind == "PagedAttn" else flash_params(draw)
    return shapes_of(opdef.op_kind, len(contract.inputs), params), params


def role(kind: str, i: int) -> str:
    """The role of input i: q, k, v, do, alibi, table or lens."""
    names = {"PagedAttn": ("q", "k", "v", "table", "lens", "alibi"),
             "FlashAttn": ("q", "k", "v", "alibi")}.get(kind, ("q", "k", "v", "do", "alibi"))
    return names[i]


def _cast(values: np.ndarray, dtype: str) -> np.ndarray:
    return values.astype(get_format(dtype).numpy_dtype)


def float_values(who: str, pattern: str, seed: int, shape, dtype: str) -> np.ndarray:
    """An operand of role ``who`` (q, k, v, do) following ``pattern`` (Python's seeded
    generator: the same values on every machine)."""
    rng = random.Random(seed)
    n = math.prod(shape)
    if pattern == "large":  # one sign per operand keeps q·k large
        sign = 1.0 if who == "q" or rng.randrange(4) else -1.0
        values = [sign * LARGE * (0.5 + rng.randrange(9) / 16.0) for _ in range(n)]
    elif pattern == "wide":
        values = [rng.gauss(0.0, 2.0) for _ in range(n)]
    else:
        values = [rng.randint(-8, 8) / 4.0 for _ in range(n)]
    if pattern == "equal_rows" and len(shape) == 4 and n:  # zero query rows, identical key rows
        d = shape[-1]
        for r in range(n // d):
            if rng.random() < 0.5:
                values[r * d:(r + 1) * d] = [0.0] * d if who == "q" else values[:d]
    if pattern == "nan" and n:
        values[rng.randrange(n)] = math.nan
    return _cast(np.array(values, np.float64).reshape(shape), dtype)


PATTERNS = {"q": ("grid", "large", "equal_rows", "nan", "grid"),
            "k": ("grid", "large", "equal_rows", "nan", "grid"),
            "v": ("wide", "grid", "nan", "wide"),
            "do": ("wide", "grid", "nan", "wide")}


def alibi_values(seed: int, shape, dtype: str) -> np.ndarray:
    rng = random.Random(seed)
    slopes = [SLOPES[rng.randrange(len(SLOPES))] for _ in range(shape[0])]
    if seed % 16 == 15:
        slopes[rng.randrange(shape[0])] = math.nan
    return _cast(np.array(slopes, np.float64), dtype)


def table_values(seed: int, shape, num_blocks: int) -> np.ndarray:
    """Distinct blocks where there are enough, as an allocator hands them out."""
    rng = random.Random(seed)
    n = math.prod(shape)
    picks = rng.sample(range(num_blocks), n) if n <= num_blocks else [rng.randrange(num_blocks) for _ in range(n)]
    return np.array(picks, np.uint32).reshape(shape)


def lens_values(seed: int, shape, capacity: int) -> np.ndarray:
    rng = random.Random(seed)
    return np.array([capacity - rng.randint(0, capacity) // 2 for _ in range(math.prod(shape))],
                    np.uint32).reshape(shape)


def draw_input(opdef, i, dtype, shapes, params):
    """Every operand's values: by role, never the harness's free edge values (an inf in q or k
    has no agreed meaning in a softmax, and the scores stay exact in the accumulator)."""
    who = role(opdef.op_kind, i)
    shape = tuple(shapes[i])
    if who == "alibi":
        return st.builds(alibi_values, SEED, st.just(shape), st.just(dtype))
    if who == "table":
        return st.builds(table_values, SEED, st.just(shape), st.just(int(params["num_blocks"])))
    if who == "lens":
        cap = int(params["max_blocks_per_seq"]) * int(params["block_size"])
        return st.builds(lens_values, SEED, st.just(shape), st.just(cap))
    return st.builds(float_values, st.just(who), st.sampled_from(PATTERNS[who]), SEED,
                     st.just(shape), st.just(dtype))
