"""Edge values and value strategies per format: the inputs that break kernels.

Values travel as exact bit patterns (integers) so every format, BF16 included, is drawn the same
way and Hypothesis shrinks towards +0.0 (bit pattern 0).
"""

from __future__ import annotations

from functools import cache

import numpy as np
from hypothesis import strategies as st

from numerics.formats import Format, get_format

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
    "I8": 0xA5,  # -91
    "U8": 0xA5,
    "U32": 0xA5A5A5A5,
    "I16": 0x25A5,
    "I32": 0x25A5A5A5,
    "I64": 0x25A5A5A5A5A5A5A5,
}


def reserved_bits(name: str) -> tuple[int, ...]:
    """Bits no input holds: the poison and, for a float format whose poison is a quiet NaN, the
    signalling NaN a copy through another format quiets into it (torch's F16 gather turns
    0x7CA5 into 0x7EA5, which would read as an unwritten element)."""
    fmt = get_format(name)
    poison = POISON_BITS[name]
    if fmt.is_float and name != "F8E4M3":
        return (poison, poison & ~(1 << (fmt.precision - 2)))
    return (poison,)


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
def grid_bits(name: str, hints: tuple[float, ...] = ()) -> tuple[int, ...]:
    """The values of a special-value grid (``Family.value_grid``), as bit patterns: ±0, ±inf,
    NaN, ±1, ±smallest and ±largest subnormal, ±smallest normal, ±largest finite, then the
    OpKind's hints; (0, 1) for BOOL. What IEEE's special cases and a kernel's fast paths are
    about, every one against every other (the OpenCL CTS judges its binary functions so)."""
    fmt = get_format(name)
    if fmt.kind == "bool":
        return (0, 1)
    if not fmt.is_float:
        return ()
    p = _positive_bits(fmt)
    keys = ("zero", "inf", "min_subnormal", "max_subnormal", "min_normal", "max_finite")
    one = int(to_bits([1.0], fmt)[0])
    bits = [*_both_signs(fmt, [p[k] for k in keys if k in p] + [one]), p["nan"]]
    bits += [int(b) for b in to_bits(hints, fmt)]
    return tuple(b for b in dict.fromkeys(bits) if b != POISON_BITS[name])


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
    reserved = reserved_bits(fmt.name)
    return st.one_of(branches).filter(lambda b: b not in reserved)


@cache
def element_bits(name: str, hints: tuple[float, ...] = ()) -> st.SearchStrategy[int]:
    """Bit patterns of one element of dtype ``name`` (built once per format and hints: strategies
    are immutable, and building one per draw cost more than drawing from it)."""
    fmt = get_format(name)
    if fmt.kind == "bool":
        return st.integers(0, 1)
    if fmt.is_float:
        return _float_elements(fmt, hints)
    poison = POISON_BITS[name]  # U8's and I8's poison (0xA5) is in range: a copy of it looks unwritten
    if fmt.kind == "int":  # negatives too; as the two's-complement bit pattern of the format
        mask = (1 << fmt.bits) - 1
        return st.integers(-1000, 1000).map(lambda v: v & mask).filter(lambda b: b != poison)
    return st.integers(0, min((1 << fmt.bits) - 1, 1000)).filter(lambda b: b != poison)


@cache
def param_bits(name: str) -> st.SearchStrategy[int]:
    """One element that is an op param (a fill), as bits: as often special as an array's
    elements are (an array of a few dozen holds some special value in most cases, a single
    param drawn like one element would hold one in a few). Floats: a sign, and a zero, an
    infinity, a NaN (canonical, signalling or with a payload), a subnormal, or any element
    (``element_bits``), each kind as likely; integers: 0, -1, the extremes, or any element."""
    fmt = get_format(name)
    reserved = reserved_bits(name)
    if not fmt.is_float:
        extremes = (0, (1 << fmt.bits) - 1, 1 << (fmt.bits - 1), (1 << (fmt.bits - 1)) - 1)
        return st.one_of(st.sampled_from(extremes), element_bits(name)).filter(lambda b: b not in reserved)
    p = _positive_bits(fmt)
    unsigned = [(p["zero"],), (p["nan"], *(b & ~(1 << (fmt.bits - 1)) for b in nan_payload_bits(name))),
                (p["min_subnormal"], p["max_subnormal"])]
    if "inf" in p:
        unsigned.insert(1, (p["inf"],))
    sign = 1 << (fmt.bits - 1)
    kinds = [st.tuples(st.sampled_from(tuple(dict.fromkeys(k))), st.booleans()).map(
        lambda t: t[0] | (sign if t[1] else 0)) for k in unsigned]
    kind = st.integers(0, len(kinds)).flatmap(lambda k: kinds[k] if k < len(kinds) else element_bits(name))
    return kind.filter(lambda b: b not in reserved)


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


# The width of each integer op-param kind a contract may name (usize and isize: 64-bit hosts).
INT_PARAM_BITS = {"i8": 8, "i16": 16, "i32": 32, "i64": 64, "isize": 64,
                  "u8": 8, "u16": 16, "u32": 32, "u64": 64, "usize": 64}


def int_param_edges(kind: str, axis: int | None = None) -> tuple[int, ...]:
    """Edge values of an integer op param of ``kind`` (``i64``, ``i32``, ``usize``...), where
    code that narrows it wraps: ±2^31 and ±2^32 with their neighbours, the kind's own extremes,
    and, for a param that counts along an axis of ``axis`` elements (a shift, a diagonal), the
    multiples of the axis length next to those boundaries and a turn either way. Only values
    the kind holds; smallest magnitude first (where shrinking leads)."""
    bits = INT_PARAM_BITS.get(kind.strip().lower())
    if bits is None:
        return ()
    signed = kind.strip().lower().startswith("i")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    wraps = [(1 << 31) + d for d in (-1, 0, 1)] + [(1 << 32) + d for d in (-1, 0, 1)]
    values = set(wraps) | {-v for v in wraps} | {lo, lo + 1, hi, hi - 1}
    if axis:
        for boundary in (1, 1 << 31, 1 << 32, hi):
            k = -(-boundary // axis)  # the first multiple of the axis length at or past it
            values |= {k * axis, -k * axis, k * axis + 1, -k * axis - 1}
        values |= {2 * axis, -2 * axis, hi - hi % axis}
    return tuple(sorted((v for v in values if lo <= v <= hi), key=lambda v: (abs(v), v < 0)))


def int_param(kind: str, usual: st.SearchStrategy[int], axis: int | None = None) -> st.SearchStrategy[int]:
    """An integer op param: ``usual`` values or, two draws in three, the type-boundary edges of
    its kind (``int_param_edges``); shrinks to ``usual``."""
    edges = int_param_edges(kind, axis)
    if not edges:
        return usual
    return st.integers(0, 2).flatmap(lambda k: st.sampled_from(edges) if k else usual)


# The array-wide sources an array's elements are filled from, beside its background value. Each
# is a vectorised function of a raw 64-bit stream, so an array costs a fixed number of Hypothesis
# choices whatever its size (a choice per element cost more than the kernel and the oracle
# together). Hypothesis picks which sources an array mixes, and shrinks towards none: an array
# of one value, plus the few elements overwritten with special values.
_FLOAT_SOURCES = ("pool", "moderate", "wide", "bits", "edges", "specials", "hints")
_INT_SOURCES = ("pool", "small", "bits")


@cache
def uniform(count: int) -> st.SearchStrategy[int]:
    """An integer in [0, count), uniformly, as one choice that shrinks towards 0. Hypothesis
    draws a bounded integer uniformly only within 256 values and log-scaled beyond, which would
    leave the high part of a packed choice (or a seed) almost always zero; bytes it draws
    uniformly, and shrinks from the most significant one down."""
    if count <= 256:
        return st.integers(0, count - 1)
    size = (count.bit_length() + 7) // 8 + 1  # a spare byte: the modulo's bias stays below 1/256
    return st.binary(min_size=size, max_size=size).map(lambda b: int.from_bytes(b, "big") % count)


SEED = uniform(1 << 32)


@cache
def background_bits(name: str, hints: tuple[float, ...] = ()) -> tuple[int, ...]:
    """The values an array's background (and its pools) are picked from, simplest first (where
    shrinking leads): 0, ±1, ±k/8 for floats, small integers; then the edges and the hints."""
    fmt = get_format(name)
    if fmt.kind == "bool":
        return (0, 1)
    if fmt.is_float:
        ks = sorted(range(-64, 65), key=lambda k: (abs(k) % 8 != 0, abs(k), k < 0))
        simple = [int(b) for b in to_bits([k / 8 for k in ks], fmt)]
        extra = [*edge_bits(name), *(int(b) for b in to_bits(hints, fmt))]
    else:
        mask = (1 << fmt.bits) - 1
        lo = -1000 if fmt.kind == "int" else 0
        simple = [v & mask for v in sorted(range(lo, 1001), key=lambda v: (abs(v), v < 0)) if v <= mask]
        extra = [mask, mask >> 1, (mask >> 1) + 1] if fmt.kind == "int" else [mask]
    poison = POISON_BITS[name]
    return tuple(dict.fromkeys(b for b in (*simple, *extra) if b != poison))


def _array_choice(table: int, sources: int, most: int) -> st.SearchStrategy[int]:
    """(overwrite count, source bits, background index) as one uniform integer."""
    return uniform(table * (1 << sources) * (most + 1))


def raw_words(seed: int, n: int) -> np.ndarray:
    """``n`` raw 64-bit words of PCG64 seeded by ``seed``: a bit generator's raw stream is stable
    across numpy versions and machines (NEP 19), so the same choices give the same array
    everywhere."""
    return np.random.PCG64(seed).random_raw(n).astype(np.uint64)


def _pick(table, r: np.ndarray) -> np.ndarray:
    table = np.asarray(table, dtype=np.uint64)
    return table[r % np.uint64(len(table))]


def _source_bits(source: str, fmt: Format, r: np.ndarray, spare: np.ndarray, table: tuple[int, ...],
                 hints: tuple[float, ...]) -> np.ndarray:
    """One source's bit pattern for every element, from raw words ``r`` (a word per element)
    and ``spare`` (four more)."""
    mask = np.uint64((1 << fmt.bits) - 1)
    if source == "pool":  # one to three values repeated across the array: ties, equal pairs
        size = int(spare[0] % np.uint64(3)) + 1
        w = spare[1:size + 1]  # each value: a special one, any bit pattern or from the table
        kind = w % np.uint64(4)
        pool = np.where(kind < 2, _pick(special_bits(fmt.name) or table, w >> np.uint64(2)),
                        np.where(kind == 2, w >> np.uint64(2) & mask, _pick(table, w >> np.uint64(2))))
        return pool[(r >> np.uint64(32)) % np.uint64(size)]
    if source == "bits":  # anything the format holds: huge, tiny, subnormal, NaN payloads
        return r & mask
    if source == "small":  # integers in [-1000, 1000] (unsigned: [0, 1000]), as the format's bits
        if fmt.kind == "int":
            return ((r % np.uint64(2001)).astype(np.int64) - 1000).astype(np.uint64) & mask
        return r % np.uint64(min(int(mask), 1000) + 1)
    if source == "edges":
        return _pick(edge_bits(fmt.name), r)
    if source == "specials":  # what the semantics rules are about: ±0, NaN, ±inf, subnormals
        return _pick(special_bits(fmt.name), r)
    if source == "hints":
        return _pick(to_bits(hints, fmt), r)
    if source == "moderate":  # k/8 for k in [-64, 64]: exact, small, many ties
        values = ((r % np.uint64(129)).astype(np.int64) - 64) / 8.0
    else:  # wide: either sign, magnitudes log-uniform over [2^-8, 2^14), every mantissa bit random
        mantissa = 1.0 + (r >> np.uint64(12)).astype(np.float64) * 2.0 ** -52
        exponent = ((r >> np.uint64(1)) % np.uint64(22)).astype(np.int64) - 8
        values = np.where(r & np.uint64(1), -1.0, 1.0) * np.ldexp(mantissa, exponent)
    return to_bits(values, fmt).astype(np.uint64)


@cache
def _sources(name: str, with_hints: bool) -> tuple[str, ...]:
    fmt = get_format(name)
    sources = _FLOAT_SOURCES if fmt.is_float else _INT_SOURCES if fmt.kind != "bool" else ("bits",)
    return tuple(s for s in sources if s != "hints" or with_hints)


@cache
def _overwrite_values(name: str) -> tuple[int, ...]:
    """NaN, ±inf, ±0 and the extreme subnormals: what a few elements are overwritten with."""
    return tuple(v for v in special_bits(name) if v != POISON_BITS[name])


def draw_values(draw, name: str, shape: tuple[int, ...], hints: tuple[float, ...] = ()) -> np.ndarray:
    """A contiguous array of ``shape`` in format ``name``, drawn with ``draw``: a background
    value, elements from the sources Hypothesis mixes in (a pool of repeated values for ties,
    moderate values, magnitudes from 2^-8 to 2^14, any bit pattern, edges, NaN, ±inf, ±0 and
    subnormals, the OpKind's hints) and a few elements overwritten with special values."""
    fmt = get_format(name)
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if n == 0:
        return np.zeros(shape, dtype=fmt.numpy_dtype)
    table = background_bits(name, hints)
    sources = _sources(name, bool(hints))
    values = _overwrite_values(name)
    most = 4 if values else 0  # at most n of them overwrite (a one-element array: four in five)
    # One choice for the number of overwritten elements, the sources mixed in (a bit each) and
    # the background value, in that order of significance: shrinking leads to fewer special
    # values first, then to fewer sources, then to a simpler background; one choice costs a
    # third of three.
    count, rest = divmod(draw(_array_choice(len(table), len(sources), most)), len(table) << len(sources))
    mixed, index = divmod(rest, len(table))
    background = table[index]
    bits = np.full(n, background, dtype=np.uint64)
    if mixed:
        r = raw_words(draw(SEED), 2 * n + 4)
        on = [s for k, s in enumerate(sources) if mixed >> k & 1]
        pick = r[:n] % np.uint64(len(on) + 1)  # 0 keeps the background
        for k, source in enumerate(on, start=1):
            chosen = pick == k
            if chosen.any():
                bits[chosen] = _source_bits(source, fmt, r[n:2 * n], r[2 * n:], table, hints)[chosen]
    # Up to four elements overwritten with special values, so that most cases hold some however
    # few elements they have. One choice per element: its position and value.
    for _ in range(min(count, n)):
        i, v = divmod(draw(uniform(n * len(values))), len(values))
        bits[i] = values[v]
    if fmt.kind == "bool":
        return (bits & np.uint64(1)).astype(np.bool_).reshape(shape)
    bits[np.isin(bits, reserved_bits(name))] = background  # the poison marks unwritten outputs, never an input
    return bits.astype(fmt.bits_dtype).view(fmt.numpy_dtype).reshape(shape)


@st.composite
def value_array(draw, name: str, shape: tuple[int, ...], hints: tuple[float, ...] = ()):
    """``draw_values`` as a strategy."""
    return draw_values(draw, name, shape, hints)
