"""The quantized matmuls' cases: shapes tied through the op params (k a whole number of blocks),
and raw stored weights: arbitrary quant bits with scales drawn by regime — ordinary, 0,
subnormal binary16 (binary32 for an NF4 absmax), the format's extreme (±65504, ±max binary32),
or a mix that adds NaN and ±inf — so that blocks whose scale is 0, subnormal or extreme all show.

    QMatMul:   activations [batch, m, k] F32, weight [ceil(n·row_bytes / 4)] U32
    Nf4Matmul: activations [batch, m, k] T, w_packed [n, k/2] U8, absmax [n, k/block_size] F32
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from numerics.arrays import Generator, generator
from numerics.values import SEED
from oracles.families.quant.gguf import LAYOUTS, QUANT_TYPES, row_bytes

# Byte offsets of the binary16 scales in each block (d, m or dmin, and Q8_1's s).
SCALE_AT = {"Q4_0": (0,), "Q4_1": (0, 2), "Q5_0": (0,), "Q5_1": (0, 2), "Q8_0": (0,),
            "Q8_1": (0, 2), "Q2K": (80, 82), "Q3K": (108,), "Q4_K_M": (0, 2), "Q5K": (0, 2),
            "Q6K": (208,)}
NF4_BLOCKS = (32, 64, 128)  # bitsandbytes' block sizes are powers of two from 32 up
REGIMES = ("ordinary",) * 6 + ("zero", "subnormal", "extreme", "mixed")
F16_SPECIAL = (0x7E00, 0x7C00, 0xFC00)  # NaN, +inf, -inf
F32_SPECIAL = (0x7FC00000, 0x7F800000, 0xFF800000)


def _scale_bits(regime: str, count: int, rng: Generator, f32: bool) -> np.ndarray:
    """``count`` scale bit patterns (binary16, or binary32 for ``f32``) of one regime."""
    t, bits = (np.float32, np.uint32) if f32 else (np.float16, np.uint16)
    ordinary = (rng.uniform(0.5, 1.0, count) * 2.0 ** rng.integers(-12, 2, count)
                * rng.choice([1.0, -1.0], count, p=[0.8, 0.2])).astype(t).view(bits)
    zero = np.zeros(count, bits)
    sub = rng.integers(1, 1 << (23 if f32 else 10), count).astype(bits)
    extreme = np.asarray(np.finfo(t).max, t).view(bits) | rng.choice([0, 1], count).astype(bits) << (31 if f32 else 15)
    if regime != "mixed":
        return {"ordinary": ordinary, "zero": zero, "subnormal": sub, "extreme": extreme}[regime]
    special = np.asarray(F32_SPECIAL if f32 else F16_SPECIAL, bits)[rng.integers(0, 3, count)]
    pick = rng.integers(0, 5, count)
    return np.choose(pick, [ordinary, zero, sub, extreme, special]).astype(bits)


def gguf_weight_bytes(kind: str, n: int, k: int, rng: Generator, regime: str) -> bytes:
    """n rows of k weights as GGUF blocks: random quant bits, scales of ``regime``."""
    per, size = LAYOUTS[kind]
    blocks = n * k // per
    raw = rng.integers(0, 256, (blocks, size), dtype=np.uint8)
    for at in SCALE_AT[kind]:
        raw[:, at:at + 2] = _scale_bits(regime, blocks, rng, False).astype("<u2").view(np.uint8).reshape(blocks, 2)
    return raw.tobytes()


def _words(kind: str, n: int, k: int, seed: int, regime: int) -> np.ndarray:
    raw = gguf_weight_bytes(kind, n, k, generator(seed), REGIMES[regime])
    raw += bytes(-len(raw) % 4)  # the stream's tail word is padded with zeros
    return np.frombuffer(raw, "<u4").astype(np.uint32)


def _absmax(shape, seed: int, regime: int) -> np.ndarray:
    rng = generator(seed)
    count = int(np.prod(shape))
    return _scale_bits(REGIMES[regime], count, rng, True).view(np.float32).reshape(shape)


def draw_input(opdef, i, dtype, shapes, params):
    """Stored weights and scales by regime; activations half ordinary, half edge-biased."""
    from numerics.formats import get_format
    from numerics.values import value_array

    shape = tuple(shapes[i])
    _, _, n, k = (params.get("batch_count", params.get("batch")), params["m"], params["n"], params["k"])
    regimes = st.integers(0, len(REGIMES) - 1)
    if i == 0:
        t = get_format(dtype).numpy_dtype
        ordinary = st.builds(lambda seed: generator(seed).normal(0, 1, shape).astype(t), SEED)
        return st.one_of(ordinary, value_array(dtype, shape, (0.0, 1.0, -1.0, 0.5)))
    if opdef.op_kind == "QMatMul":
        return st.builds(lambda seed, r: _words(params["quant_type"], n, k, seed, r), SEED, regimes)
    if i == 1:
        return st.builds(lambda seed: generator(seed).integers(0, 256, shape, dtype=np.uint8), SEED)
    return st.builds(lambda seed, r: _absmax(shape, seed, r), SEED, regimes)


@st.composite
def _quant_shapes(draw, contract, opdef, budget):
    """(shapes, params): k a whole number of blocks, the output at most a dozen elements; one
    case in sixteen has an empty batch, m or n."""
    empty = draw(st.integers(0, 15)) == 15
    batch, m, n = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    if empty:
        which = draw(st.integers(0, 2))
        batch, m, n = (0 if which == 0 else batch, 0 if which == 1 else m, 0 if which == 2 else n)
    if opdef.op_kind == "QMatMul":
        kind = draw(st.sampled_from(QUANT_TYPES))
        per = LAYOUTS[kind][0]
        k = per * (draw(st.integers(1, 3)) if per == 32 else 1)
        words = -(-n * row_bytes(kind, k) // 4)
        params = {"quant_type": kind, "batch_count": batch, "m": m, "n": n, "k": k}
        return [(batch, m, k), (words,)], params
    bs = draw(st.sampled_from(NF4_BLOCKS))
    k = bs * draw(st.integers(1, 2))
    params = {"batch": batch, "m": m, "n": n, "k": k, "block_size": bs}
    return [(batch, m, k), (n, k // 2), (n, k // bs)], params


def draw_shapes(draw, contract, opdef, budget):
    return draw(_quant_shapes(contract, opdef, budget))
