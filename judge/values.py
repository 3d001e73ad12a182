"""Edge values and value strategies per format: the inputs that break kernels.

Values travel as exact bit patterns (integers) so every format, BF16 included, is drawn the same
way and Hypothesis shrinks towards +0.0 (bit pattern 0).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import strategies as st

from judge.formats import Format, get_format

# Poison written into outputs before a call; the value generator never produces these bits, so
# an output element still holding them was never written. Quiet NaNs with a recognisable payload;
# F8E4M3 has only the two NaNs S.1111.111, which a correct cast returns, so its poison is the
# finite 0xA5 (-0.203125), and casts keep their inputs away from values that round to a poison.
POISON_BITS = {
    "F8E4M3": 0xA5,
    "F64": 0x7FFA5A5A5A5A5A5A,
    "F32": 0x7FE5A5A5,
    "F16": 0x7EA5,
    "BF16": 0x7FE5,
    "BOOL": 0xA5,
    "U8": 0xA5,
    "U32": 0xA5A5A5A5,
    "I16": 0x25A5,
    "I32": 0x25A5A5A5,
    "I64": 0x25A5A5A5A5A5A5A5,
}


def to_bits(values, fmt: Format) -> np.ndarray:
    """Round Python floats into ``fmt`` and return their bit patterns (uint array)."""
    arr = np.asarray(values, dtype=np.float64).astype(fmt.numpy_dtype)
    return arr.view(fmt.bits_dtype)


def _positive_bits(fmt: Format) -> dict[str, int]:
    """Bit patterns of the positive special and extreme values of a float format."""
    m = fmt.mantissa_bits
    bits = {
        "zero": 0,
        "min_subnormal": 1,
        "max_subnormal": (1 << m) - 1,
        "min_normal": 1 << m,
        "max_finite": fmt.max_finite_mag,
        "inf": fmt.inf_mag,
        "nan": fmt.nan_mag,  # canonical quiet NaN
    }
    if not fmt.has_inf:  # F8E4M3: no infinity (its inf_mag is the NaN)
        del bits["inf"]
    return bits


def _both_signs(fmt: Format, positive) -> tuple[int, ...]:
    sign = 1 << (fmt.bits - 1)
    return tuple(positive) + tuple(b | sign for b in positive)


@cache
def edge_bits(name: str) -> tuple[int, ...]:
    """NaN, ±inf, ±0, extreme subnormals and normals, ±max finite, ±1 and rounding ties."""
    fmt = get_format(name)
    if not fmt.is_float:
        return ()
    ties = [0.5, 1.0, 1.5, 2.5, 3.5, -0.5, 2.0 ** (fmt.precision - 1) + 0.5, 0.1, 1.0 / 3.0]
    bits = set(_both_signs(fmt, _positive_bits(fmt).values()))
    bits |= {int(b) for b in to_bits(ties, fmt)}
    return tuple(sorted(bits))


@cache
def special_bits(name: str) -> tuple[int, ...]:
    """The values semantics rules are about: ±0, NaN, ±inf, extreme subnormals (no ties)."""
    fmt = get_format(name)
    if not fmt.is_float:
        return ()
    p = _positive_bits(fmt)
    # +0 first: Hypothesis shrinks a sampled special towards it
    keys = ("zero", "nan", "inf", "min_subnormal", "max_subnormal")
    return _both_signs(fmt, tuple(p[k] for k in keys if k in p))


@cache
def nan_payload_bits(name: str) -> tuple[int, ...]:
    """NaNs other than the canonical one, both signs: signalling NaNs (quiet bit clear, payload
    1 and all ones) and a quiet NaN with a payload. Only a kernel that moves bits without
    arithmetic carries them through unchanged (a float round trip quiets a signalling NaN)."""
    fmt = get_format(name)
    if not fmt.is_float:
        return ()
    m = fmt.mantissa_bits
    exp_all = ((1 << fmt.exponent_bits) - 1) << m
    quiet = 1 << (m - 1)
    payloads = (exp_all | 1, exp_all | (quiet - 1), exp_all | quiet | 0b101)
    return tuple(b for b in _both_signs(fmt, payloads) if b != POISON_BITS[name])


def _float_elements(fmt: Format, hints: tuple[float, ...]) -> st.SearchStrategy[int]:
    moderate = st.integers(-64, 64).map(lambda k: k / 8)
    wide = st.floats(-1e4, 1e4, allow_nan=False, width=32)
    as_bits = lambda v: int(to_bits([v], fmt)[0])  # noqa: E731
    branches = [
        moderate.map(as_bits),
        st.sampled_from(edge_bits(fmt.name)),
        wide.map(as_bits),
        st.integers(0, (1 << fmt.bits) - 1),
    ]
    if hints:
        branches.insert(2, st.sampled_from(tuple(int(b) for b in to_bits(hints, fmt))))
    poison = POISON_BITS[fmt.name]
    return st.one_of(branches).filter(lambda b: b != poison)


@cache
def element_bits(name: str, hints: tuple[float, ...] = ()) -> st.SearchStrategy[int]:
    """Bit patterns of one element of dtype ``name`` (built once per format and hints: strategies
    are immutable, and building one per draw cost more than drawing from it)."""
    fmt = get_format(name)
    if fmt.kind == "bool":
        return st.integers(0, 1)
    if fmt.is_float:
        return _float_elements(fmt, hints)
    poison = POISON_BITS[name]  # U8's poison (0xA5) is in range: a copy of it looks unwritten
    if fmt.kind == "int":  # negatives too; as the two's-complement bit pattern of the format
        mask = (1 << fmt.bits) - 1
        return st.integers(-1000, 1000).map(lambda v: v & mask).filter(lambda b: b != poison)
    return st.integers(0, min((1 << fmt.bits) - 1, 1000)).filter(lambda b: b != poison)


@cache
def int_elements(name: str, lo: int, hi: int) -> st.SearchStrategy[int]:
    """Integer values of format ``name`` within [lo, hi] (a subrange of the format's), biased
    to the ends of the range, ±1 and 0; shrinks towards 0 (or the end nearest it)."""
    fmt = get_format(name)
    full = (-(1 << (fmt.bits - 1)), (1 << (fmt.bits - 1)) - 1) if fmt.kind == "int" else (0, (1 << fmt.bits) - 1)
    if not full[0] <= lo <= hi <= full[1]:
        raise ValueError(f"[{lo}, {hi}] is not within {name}'s range {list(full)}")
    edges = sorted({v for v in (0, 1, -1, 2, lo, lo + 1, hi - 1, hi) if lo <= v <= hi},
                   key=lambda v: (abs(v), v))
    small = st.integers(max(lo, -1000), min(hi, 1000)) if max(lo, -1000) <= min(hi, 1000) else st.nothing()
    return st.one_of(st.sampled_from(edges), small, st.integers(lo, hi))


@cache
def _pool(name: str, hints: tuple[float, ...]) -> st.SearchStrategy[list[int]]:
    elem, specials = element_bits(name, hints), special_bits(name)
    pool_elem = st.one_of(elem, st.sampled_from(specials)) if specials else elem
    return st.lists(pool_elem, min_size=1, max_size=3)


@st.composite
def value_array(draw, name: str, shape: tuple[int, ...], hints: tuple[float, ...] = ()):
    """A contiguous array of ``shape`` in format ``name``; repeats are likely (ties)."""
    fmt = get_format(name)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    elem = element_bits(name, hints)
    if n == 0:
        bits: list[int] = []
    else:
        specials = special_bits(name)
        # The pool's values repeat across the array (ties, equal pairs); half of them are
        # special values, so arrays of only zeros, NaNs and infinities of both signs are common.
        pool = draw(_pool(name, hints))
        bits = draw(
            st.lists(st.one_of(st.sampled_from(pool), elem), min_size=n, max_size=n)
        )
        if specials:
            # A few elements overwritten with NaN, ±inf, ±0 or a subnormal, so that most cases
            # hold some special value however few elements they have (a per-element draw alone
            # would leave NaN in about one element in sixty). Shrinks to no overwrite.
            hits = st.tuples(st.integers(0, n - 1), st.sampled_from(specials))
            for i, b in draw(st.lists(hits, max_size=min(n, 4))):
                bits[i] = b
    if fmt.kind == "bool":
        return np.array(bits, dtype=np.bool_).reshape(shape)
    return np.array(bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype).reshape(shape)
