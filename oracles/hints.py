"""Value hints per OpKind: inputs worth drawing often because kernels get them wrong.

Each hint function takes a float format name and returns Python floats that are exactly
representable in it (candidates are rounded into the format and deduplicated); thresholds come
with their representable neighbours, where the correct answer flips.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from functools import cache

from numerics.formats import get_format
from numerics.rounding import decode_float, float_spec, round_float

Hints = Callable[[str], list[float]]


def representable(fmt: str, values: Iterable[float]) -> list[float]:
    s = float_spec(fmt)
    out: list[float] = []
    seen: set[int] = set()
    for v in values:
        b = round_float(float(v), s)
        if b not in seen and (b & (s.sign_bit - 1)) <= s.inf_mag:
            seen.add(b)
            out.append(decode_float(b, s))
    return out


def neighbours(fmt: str, x: float, k: int = 2) -> list[float]:
    """x rounded into fmt and the k representable values on each side (same sign)."""
    s = float_spec(fmt)
    b = round_float(x, s)
    sign = b & s.sign_bit
    mag = b & (s.sign_bit - 1)
    out = []
    for m in range(max(0, mag - k), min(s.inf_mag - 1, mag + k) + 1):
        out.append(decode_float(sign | m, s))
    return out


def _limits(fmt: str) -> tuple[float, float, float, int, int]:
    """(max finite, min normal, min subnormal, p, emax)."""
    s = float_spec(fmt)
    return (decode_float(s.inf_mag - 1, s), 2.0**s.emin, 2.0**s.qmin, s.p, s.emax)


def _both_signs(values: Iterable[float]) -> list[float]:
    return [w for v in values for w in (v, -v)]


def none(fmt: str) -> list[float]:
    return []


def hints(make: Callable[[str], Iterable[float]]) -> Hints:
    @cache
    def computed(fmt: str) -> tuple[float, ...]:
        if not get_format(fmt).is_float:  # an integer MatMul's operands: no float hints
            return ()
        return tuple(representable(fmt, make(fmt)))

    def fn(fmt: str) -> list[float]:
        return list(computed(fmt))

    return fn


@hints
def exp(fmt):
    big, tiny_n, tiny_s, p, emax = _limits(fmt)
    ln2 = math.log(2)
    over = (emax + 1) * ln2  # e^x reaches 2^(emax+1) here
    under = (math.log2(tiny_s) - 1) * ln2  # e^x falls to half the smallest subnormal
    normal = math.log(tiny_n)
    vals = [0.0, -0.0, 1.0, -1.0, tiny_s, -tiny_s, 2.0 ** -(p + 1)]
    for t in (over, under, normal):
        vals += neighbours(fmt, t, 3)
    return vals


@hints
def log(fmt):
    big, tiny_n, tiny_s, p, _ = _limits(fmt)
    return neighbours(fmt, 1.0, 4) + [tiny_s, tiny_n, big, 0.0, -0.0, -1.0, 2.0, 0.5, math.e]


@hints
def trig(fmt):
    big, _, tiny_s, p, _ = _limits(fmt)
    vals = [0.0, -0.0, tiny_s, big, -big, 1e22, 1e4, 2.0**p, 355.0, 103993.0, 710.0]
    for t in (math.pi / 2, math.pi, 2 * math.pi, 3 * math.pi / 2, 100 * math.pi):
        vals += neighbours(fmt, t, 1)
    return _both_signs(vals)


@hints
def saturating(fmt):
    """tanh, sigmoid, silu, erf, the GELUs: tiny arguments and the saturation knees."""
    big, _, tiny_s, p, _ = _limits(fmt)
    vals = [0.0, tiny_s, 2.0 ** -(p + 2), 0.5, 1.0, 3.0, 5.0, 6.0, 9.0, 10.0, 17.0, 19.0, 20.0,
            36.75, 40.0, 88.7, 100.0, 700.0, 800.0, big]
    return _both_signs(vals)


@hints
def gelu(fmt):
    """The saturation knees, and the band x in [-3.4, -2.2] where the tanh and erf forms of GELU
    part most (by up to 4.7e-4 relative, at x = -2.7): a kernel computing the other form shows
    there, and nowhere else beyond the sanity bound."""
    return saturating(fmt) + [-2.2, -2.5, -2.7, -2.875, -3.0, -3.25, -3.375]


@hints
def sqrt(fmt):
    big, tiny_n, tiny_s, p, _ = _limits(fmt)
    return [0.0, -0.0, -1.0, 1.0, 2.0, 4.0, 0.25, tiny_s, tiny_n, big, 2.0, 3.0] + neighbours(fmt, 1.0, 2)


@hints
def recip(fmt):
    big, tiny_n, tiny_s, p, emax = _limits(fmt)
    return _both_signs([0.0, 1.0, 3.0, big, tiny_s, tiny_n, 2.0**emax, 2.0 ** -emax, 1.0 / big])


@hints
def sqr(fmt):
    big, _, tiny_s, p, _ = _limits(fmt)
    vals = [0.0, 1.0, 3.0] + neighbours(fmt, math.sqrt(big), 2) + neighbours(fmt, math.sqrt(tiny_s), 2)
    return _both_signs(vals)


@hints
def rounding_ties(fmt):
    _, _, _, p, _ = _limits(fmt)
    vals = [0.5, 1.5, 2.5, 3.5, 0.49999997, 0.50000006, 1.0, 0.0, 2.0 ** (p - 1) - 0.5,
            2.0 ** (p - 2) + 0.5, 2.0**p, 1e-30]
    return _both_signs(vals)


@hints
def arithmetic(fmt):
    big, tiny_n, tiny_s, p, _ = _limits(fmt)
    vals = [0.0, 1.0, 3.0, 0.1, big, tiny_s, tiny_n, 2.0**p, 2.0 ** (p + 1), 1.0 + 2.0 ** (1 - p),
            2.0 ** -p, big / 2]
    return _both_signs(vals)


@hints
def division(fmt):
    big, tiny_n, tiny_s, p, _ = _limits(fmt)
    return _both_signs([0.0, 1.0, 3.0, 7.0, 0.5, big, tiny_s, tiny_n, 2.0**p])


@hints
def power(fmt):
    big, _, tiny_s, p, _ = _limits(fmt)
    return [-2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.0, -3.0, 0.0, -0.0, 0.25, 1.5, 10.0, -8.0, 4.0,
            1.0 / 3.0, 64.0, big, tiny_s, 2.0 ** (p + 1) + 0.0, 1.0 + 2.0 ** (1 - p)]


@hints
def ties(fmt):
    """Extrema, comparisons, selects and index reductions: repeated and signed-zero values."""
    big, _, tiny_s, _, _ = _limits(fmt)
    return [1.0, 1.0, -1.0, 0.0, -0.0, 2.0, big, -big, tiny_s, -tiny_s]


@hints
def summation(fmt):
    big, _, tiny_s, p, _ = _limits(fmt)
    return _both_signs([1.0, big / 4, 2.0**-p, 2.0 ** (p + 1), 0.0, tiny_s, 3.0])
