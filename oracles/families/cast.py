"""Cast (dtype conversion): one correct rounding of the source value into the target format.

A float target gets IEEE convertFormat: round to nearest, ties to even, with subnormals and the
target's own overflow (±inf for IEEE formats, NaN for F8E4M3, which has no infinity); NaN stays
NaN, ±0 and ±inf keep their sign (±inf becomes NaN in F8E4M3). An integer target gets the value
truncated toward zero (C and Rust ``as`` conversion); Fuel defines no result for NaN or for a
value outside the target's range, so ``draw_input`` keeps generated values inside it and the
oracle refuses anything else. Values are decoded from their bits here (never by a numpy cast,
which is what is being judged).

The cast family is elementwise: output element i is the cast of input element i. A case draws
any shape within the contract's rank and the budget and, for an integer target, source values
inside the target's range; for a narrower float target, half its values are ties of the target
(exactly halfway between two of its values) or their neighbours; its params carry the target
dtype. From an 8- or 16-bit source every item also casts every source value (``value_grid``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes

from numerics.formats import dtype_name, get_format
from numerics.rounding import (
    bits_to_array,
    decode_fraction,
    float_spec,
    int_range,
    ints_to_array,
    round_fraction,
)
from oracles.family import Family
from oracles.opdef import OpDef
from oracles.output import OracleOutput, out_format


def read_source(x: np.ndarray, src: str) -> list:
    """The exact values of ``x`` (C order): Fraction or ±inf/NaN floats for a float format,
    (value, negative) pairs keeping the sign of zero; plain ints for an integer format."""
    fmt = get_format(src)
    flat = np.ascontiguousarray(x).reshape(-1)
    if not fmt.is_float:
        return [(int(v), False) for v in flat.tolist()]
    s = float_spec(src)
    bits = flat.view(s.bits_dtype).tolist()
    return [(decode_fraction(b, s), bool(b & s.sign_bit)) for b in bits]


def cast_value(value, negative: bool, dst: str) -> tuple[int, Fraction | None]:
    """(bits or integer of the result in ``dst``, exact value or None) for one source value."""
    fmt = get_format(dst)
    if fmt.is_float:
        s = float_spec(dst)
        if isinstance(value, float):  # ±inf or NaN
            if value != value:
                return s.nan_bits, None
            return _infinite(value, s), None
        return round_fraction(Fraction(value), s, negative_zero=negative), Fraction(value)
    lo, hi = int_range(dst)
    if isinstance(value, float):
        raise ValueError(f"cast of {value} to {dst} is undefined (Fuel defines no NaN/inf to integer result)")
    result = math.trunc(value)
    if not lo <= result <= hi:
        raise ValueError(f"cast of {value} to {dst} is undefined: {result} is outside [{lo}, {hi}]")
    return result, None


def _infinite(value: float, s) -> int:
    """±inf into a float format: ±inf, or NaN where the format has no infinity."""
    if not s.has_inf:
        return s.nan_bits
    return s.inf_mag | (s.sign_bit if value < 0 else 0)


def evaluate_cast(inputs, params, out_dtypes, rules) -> list[OracleOutput]:
    """out[i] = cast of inputs[0][i] into the output dtype."""
    x = np.asarray(inputs[0])
    src = dtype_name(x.dtype)
    dst = out_format(out_dtypes)
    results = [cast_value(v, neg, dst) for v, neg in read_source(x, src)]
    values = [r[0] for r in results]
    if not get_format(dst).is_float:
        return [OracleOutput(expected=ints_to_array(values, dst, x.shape))]
    exact = np.empty(len(results), dtype=object)
    exact[:] = [r[1] for r in results]
    return [OracleOutput(expected=bits_to_array(values, dst, x.shape), exact=exact.reshape(x.shape))]


# --- generation ------------------------------------------------------------------------------


def _cast_shapes(contract, budget):
    """Any shape within the contract's rank and the budget; params carry the target dtype
    (``OpParams::Cast`` holds none: the target lives on the output), which ``draw_input`` needs."""
    rank = contract.inputs[0].rank
    hi = budget.max_rank if rank.hi is None else min(rank.hi, max(budget.max_rank, rank.lo))
    shapes = array_shapes(min_dims=rank.lo, max_dims=hi, min_side=0, max_side=budget.max_side)
    shapes = shapes.filter(lambda s: math.prod(s) <= budget.max_elements)
    dst = contract.outputs[0].dtype_rule.dtype
    return shapes.map(lambda s: ([s], {"dst": dst}))


def draw_shapes(draw, contract, opdef, budget):
    return draw(_cast_shapes(contract, budget))


def draw_input(opdef, i: int, src: str, shapes, params):
    """The source array: integer targets get values inside the target's range (the only ones
    Fuel defines); no element's cast is the target's poison pattern (it would read as unwritten),
    and no float element holds one of its own format's reserved bits (a copy may carry it there)."""
    dst = params["dst"]
    shape = tuple(shapes[i])
    n = math.prod(shape)
    if get_format(dst).is_float:
        elements = _source_elements(src)
        if _narrows(src, dst):  # half the elements: exact ties of the target and their
            # neighbours (a flatmap: one_of would flatten into the edge-biased branches)
            ties, others = _tie_elements(src, dst), elements
            elements = st.booleans().flatmap(lambda tie: ties if tie else others)
    else:
        elements = _in_range_elements(src, dst)
    return st.lists(elements, min_size=n, max_size=n).map(lambda b: _box(b, src, dst, shape))


def _reserved_nans(src: str) -> list[int]:
    """The source format's reserved bits that are NaNs (``numerics.values.reserved_bits``): a
    cast's value cannot tell them from other NaNs, but a copy carries their payload."""
    from numerics.values import reserved_bits

    if not get_format(src).is_float:
        return []
    s = float_spec(src)
    return [b for b in reserved_bits(src) if _is_nan(decode_fraction(b, s))]


def _is_nan(value) -> bool:
    return isinstance(value, float) and value != value


def _box(bits: list[int], src: str, dst: str, shape) -> np.ndarray:
    from numerics.values import POISON_BITS

    fmt = get_format(src)
    arr = np.array(bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    poison, reserved = POISON_BITS[dst], _reserved_nans(src)
    for k, (v, neg) in enumerate(read_source(arr, src)):
        out = cast_value(v, neg, dst)[0]
        if (out & ((1 << get_format(dst).bits) - 1)) == poison or int(arr.view(fmt.bits_dtype)[k]) in reserved:
            arr.view(fmt.bits_dtype)[k] = 0
    return arr.reshape(shape)


@cache
def _source_elements(src: str):
    from numerics.values import element_bits, int_elements

    fmt = get_format(src)
    if fmt.is_float:
        return element_bits(src, tuple(cast_hints(src)))
    lo, hi = int_range(src)
    return int_elements(src, lo, hi).map(lambda v: v & ((1 << fmt.bits) - 1))


def _narrows(src: str, dst: str) -> bool:
    a, b = get_format(src), get_format(dst)
    return a.is_float and b.is_float and a.precision > b.precision


@cache
def _tie_elements(src: str, dst: str):
    """Source values exactly halfway between two neighbouring finite values of ``dst`` (either
    sign, any binade, subnormals included), and the source values one ulp either side: where
    ties-to-even and ties-away-from-zero part, and where a rounding that looks at too few bits
    goes wrong. A tie beyond ``src``'s range is left out (a value the source cannot hold)."""
    s, t = float_spec(src), float_spec(dst)

    def tie(mag: int, negative: bool, nudge: int) -> int:
        below = decode_fraction(mag, t)
        mid = (below + decode_fraction(mag + 1, t)) / 2
        bits = round_fraction(-mid if negative else mid, s)
        return bits + nudge if 0 < (bits & (s.sign_bit - 1)) + nudge < s.inf_mag else bits

    nudges = st.sampled_from((0, 0, 0, 1, -1))
    ties = st.builds(tie, st.integers(0, t.inf_mag - 2), st.booleans(), nudges)
    return ties.filter(lambda b: (b & (s.sign_bit - 1)) not in (0, s.inf_mag))


@cache
def _in_range_elements(src: str, dst: str):
    """Source bit patterns whose cast into integer ``dst`` is defined: in range, not NaN."""
    from numerics.values import element_bits, int_elements

    lo, hi = int_range(dst)
    fmt = get_format(src)
    if not fmt.is_float:
        slo, shi = int_range(src)
        mask = (1 << fmt.bits) - 1
        return int_elements(src, max(lo, slo), min(hi, shi)).map(lambda v: v & mask)
    s = float_spec(src)
    fraction = st.sampled_from((Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(63, 64)))
    near_edges = st.builds(lambda k, f: round_fraction(k + f if k >= 0 else k - f, s),
                           int_elements("I64", lo, hi), fraction)
    defined = lambda b: _defined(b, s, lo, hi)  # noqa: E731
    return st.one_of(element_bits(src).filter(defined), near_edges.filter(defined))


def _defined(bits: int, s, lo: int, hi: int) -> bool:
    v = decode_fraction(bits, s)
    return not isinstance(v, float) and lo <= math.trunc(v) <= hi


def cast_hints(src: str) -> list[float]:
    """Values of ``src`` where narrower targets round hard: their overflow threshold and the
    ties around it, ties at 1, below the smallest subnormal and between subnormals."""
    out: list[float] = []
    for dst in ("F32", "F16", "BF16", "F8E4M3"):
        t = get_format(dst)
        if t.precision >= get_format(src).precision and dst != src:
            continue
        half_ulp_top = Fraction(2) ** (t.emax - t.precision)
        top = float_spec(dst)
        biggest = decode_fraction(top.inf_mag - 1, top)
        tiny = Fraction(2) ** (t.emin - t.precision + 1)
        for v in (biggest, biggest + half_ulp_top, biggest + 2 * half_ulp_top, biggest + half_ulp_top / 2,
                  tiny / 2, tiny * 3 / 2, tiny / 4 * 3, 1 + Fraction(1, 2 ** t.precision),
                  1 + Fraction(3, 2 ** t.precision), Fraction(2) ** t.emin * (1 - Fraction(1, 2 ** t.precision))):
            for sv in (v, -v):
                if _representable(sv, src):
                    out.append(float(sv))
    return out


def _representable(v: Fraction, src: str) -> bool:
    s = float_spec(src)
    back = decode_fraction(round_fraction(v, s), s)
    return back == v


def value_grid(contract, opdef, dtypes):
    """``Family.value_grid``: every value of an 8- or 16-bit source format (its exhaustive
    cast, judged on every item), those whose cast Fuel defines; None for wider sources."""
    from numerics.values import POISON_BITS

    src, dst = dtypes[0], contract.outputs[0].dtype_rule.dtype
    fmt = get_format(src)
    if fmt.bits > 16 or dst is None:
        return None
    reserved = set(_reserved_nans(src))
    every = np.array([b for b in range(1 << fmt.bits) if b not in reserved], dtype=fmt.bits_dtype)
    every = every.view(fmt.numpy_dtype)
    keep = []
    lo_hi = None if get_format(dst).is_float else int_range(dst)
    mask = (1 << get_format(dst).bits) - 1
    for k, (v, neg) in enumerate(read_source(every, src)):
        if lo_hi is not None and (isinstance(v, float) or not lo_hi[0] <= math.trunc(v) <= lo_hi[1]):
            continue
        if (cast_value(v, neg, dst)[0] & mask) != POISON_BITS[dst]:
            keep.append(k)
    return (every[np.array(keep, dtype=np.int64)],)


def rows() -> list[OpDef]:
    return [
        OpDef("Cast", 1, True, {"nan": "propagate"}, evaluate_cast, hints=cast_hints,
              domain="one rounding into the target: RNE, subnormals, overflow to ±inf "
                     "(NaN for F8E4M3); integer targets truncate, within range only"),
    ]


FAMILY = Family(
    name="cast",
    rows=rows,
    draw_shapes=draw_shapes,
    draw_input=draw_input,
    elementwise=True,
    value_grid=value_grid,
)
