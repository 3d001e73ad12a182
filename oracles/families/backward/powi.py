"""PowIElementwiseBackward: grad_x = upstream·n·x^(n−1) for the forward x^n (``PowI { exp: n }``),
exact in rationals and rounded once.

Decided semantics (also the OpDef domain):
- n = 0: the forward is the constant 1 for every x (IEEE pow(x, 0) = 1, NaN included), so
  grad_x is +0 everywhere, whatever upstream holds: the kernel need not read it;
- n = 1: x^0 = 1 for every x, so grad_x = upstream, NaN and ±inf x included;
- otherwise x^(n−1) follows IEEE pow at the integer exponent k = n − 1: 0^k is ±0 for k > 0 and
  ±inf for k < 0 (the sign of x for odd k), (±inf)^k is ±inf for k > 0 and 0 for k < 0, a NaN x
  gives NaN; the product with n and upstream is IEEE (inf·0 is NaN).

Derived bound (``terms``): x^k by repeated multiplication (|k| − 1 roundings, or pow within a few
ulp), a reciprocal where k < 0, then the products with n and upstream, each in the accumulator:
|error| ≤ (|k| + 3)·u·|grad| + ulp, so count |k| + 4. Where a partial product of those factors
(|x|^j times 1, |n|, |upstream| or both, j ≤ |k|, or its reciprocal) leaves the accumulator's
normal range, rounding stops being relative: NaN, ±inf and any finite value are admitted there.

An infinite upstream with a finite nonzero x gives ±inf exactly, but the contract fixes no order
of the three factors and evaluates x^(n−1) in the accumulator: where a partial product without
upstream (|x|^j, n·|x|^j, or a reciprocal) falls below the accumulator's smallest normal times
2^p, IEEE arithmetic in that accumulator may hold it as 0 (x = 2^-133 in F32: x² rounds to 0),
and upstream·0 is NaN. NaN is admitted there beside the infinity (never the other infinity: an
underflow or overflow keeps each factor's sign).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from numerics.rounding import FloatSpec
from oracles.families.backward import common as c
from oracles.output import float_output, output_spec
from oracles.shapes import as_floats, broadcast, object_array
from oracles.sums import acc_format

FAR = 1 << 14  # |log2 x^k| beyond this: x^k is far outside every format (and every Fraction's reach)
EXACT_BITS = 1 << 16  # a power whose exact digits would pass this many bits is bracketed instead
SLACK = 8  # bits of a bracket's precision given up to mpmath's integer power (within a few ulp)


def _power(x: float, k: int):
    """x^k (k ≠ 0) as a value: exact, or the IEEE special. Where |x^k| is beyond 2^±16384 (k is an
    i32: x^k would take 2^31 digits) it stands in as ±2^±16384: the same rounding (overflow, or
    a signed zero) and the same escape from the accumulator's range."""
    if x != x:
        return math.nan
    odd_negative = k % 2 == 1 and math.copysign(1.0, x) < 0
    if math.isinf(x):
        return (-math.inf if odd_negative else math.inf) if k > 0 else Fraction(0)
    if x == 0:
        return Fraction(0) if k > 0 else (-math.inf if odd_negative else math.inf)
    p = _magnitude_power(abs(Fraction(x)), k)
    return -p if odd_negative else p


def _magnitude_power(m: Fraction, k: int) -> Fraction:
    """m^k for a rational m > 0, or ±2^±16384 in its place where |log2 m^k| exceeds 2^14 (the
    logarithm from the integers: m may be beyond F64, as 1/x of a subnormal x is)."""
    magnitude = k * (math.log2(m.numerator) - math.log2(m.denominator))
    if abs(magnitude) > FAR:
        return Fraction(1 << FAR) if magnitude > 0 else Fraction(1, 1 << FAR)
    if _too_long(m, k):  # (1 + 2^-23)^(2^31) is about e^256 but has 2^36 digits
        return _bracket(m, k, 192)[0]
    return m**k


def _too_long(m: Fraction, k: int) -> bool:
    return abs(k) * max(m.numerator.bit_length(), m.denominator.bit_length()) > EXACT_BITS


def _bracket(m: Fraction, k: int, prec: int) -> tuple[Fraction, Fraction]:
    """lo ≤ m^k ≤ hi for a rational m > 0, both within 2^(SLACK − prec) of it relatively: mpmath's
    integer powers rounded down and up, each widened by 2^(SLACK − prec)."""
    from mpmath.libmp import from_int, mpf_div, mpf_pow_int, to_man_exp

    a, b = (m.numerator, m.denominator) if k > 0 else (m.denominator, m.numerator)
    n = abs(k)
    lo = mpf_div(mpf_pow_int(from_int(a), n, prec, "f"), mpf_pow_int(from_int(b), n, prec, "c"), prec, "f")
    hi = mpf_div(mpf_pow_int(from_int(a), n, prec, "c"), mpf_pow_int(from_int(b), n, prec, "f"), prec, "c")
    slack = Fraction(1, 1 << (prec - SLACK))

    def exact(v) -> Fraction:
        man, exp = to_man_exp(v)
        man, exp = int(man), int(exp)  # mpmath's gmpy backend hands out mpz
        return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)

    return exact(lo) * (1 - slack), exact(hi) * (1 + slack)


def _settled(g: Fraction, n: int, x: float, k: int, s: FloatSpec):
    """(box, grad) of g·n·x^k where x^k has too many digits to form: its bracket narrowed until
    both ends round to the same bits (they must: an odd integer's huge power is no tie nor a
    float), the lower end standing in for the exact value."""
    from oracles.ziv import RoundingUndecided

    sign = -1 if k % 2 == 1 and x < 0 else 1
    for prec in (192, 384, 768, 1536, 3072, 6144):
        lo, hi = _bracket(abs(Fraction(x)), k, prec)
        ends = [g * n * sign * p for p in (lo, hi)]
        boxes = [c.box(v, s) for v in ends]
        if boxes[0][0] == boxes[1][0]:
            return boxes[0], ends[0]
    raise RoundingUndecided(f"PowI backward: x^{k} for x = {x!r} not settled at 6144 bits")


def _partials(x: Fraction, g: Fraction | None, n: int, k: int) -> list[Fraction]:
    """Magnitudes of the partial products some evaluation order forms: p_j = base^j for
    j = 1..|k|, each also times |n|, |g| and |n·g| (g None: those without upstream only), and
    its reciprocal. Every family is monotone in j, so its extremes lie at j = 1 and j = |k|."""
    base = abs(x) if k > 0 else 1 / abs(x)
    out = []
    for p in (base, _magnitude_power(base, abs(k))):
        out += [p, p * abs(n), 1 / p]
        if g is not None:
            out += [p * abs(g), p * abs(n * g)]
    return out


def powi_backward_element(x: float, g: float, n: int, s: FloatSpec, acc: FloatSpec):
    """((bits, exact[, admitted]), (count, abs_sum)) of one element."""
    if n == 0:
        return c.box(Fraction(0), s), (1, Fraction(0))
    k = n - 1
    p = Fraction(1) if k == 0 else _power(x, k)
    grad = c.mul(c.mul(c.value(g), Fraction(n)), p)
    result = c.box(grad, s)
    if (isinstance(grad, Fraction) and grad and math.isfinite(x) and _too_long(abs(Fraction(x)), k)
            and abs(k * math.log2(abs(x))) <= FAR):
        result, grad = _settled(Fraction(g), n, x, k, s)
    if c.is_special(grad):
        if math.isinf(g) and k and x != 0 and math.isfinite(x) and c.escapes(
                [m for m in _partials(Fraction(x), None, n, k) if m < 1], acc):
            result = c.with_nan(result)  # inf times a power held as 0 (module docstring)
        return result, (1, Fraction(0))
    if k and x != 0 and math.isfinite(x) and c.escapes(_partials(Fraction(x), Fraction(g), n, k), acc):
        return c.escaped(result), c.escaped_term(s, acc)
    return result, (abs(k) + 4, abs(grad) + c.tiny(acc))


def evaluate_powi_backward(inputs, params, out_dtypes, rules):
    from numerics.rounding import float_spec

    fmt, s = output_spec(out_dtypes)
    shape, (x, g) = broadcast([np.asarray(a) for a in inputs[:2]])
    n = int(params["exp"])
    acc_name = acc_format(np.asarray(inputs[0]).dtype)
    acc = float_spec(acc_name)
    pairs = [powi_backward_element(a, b, n, s, acc)
             for a, b in zip(as_floats(x), as_floats(g), strict=True)]
    return [float_output([r for r, _ in pairs], fmt, shape,
                         terms=object_array([t for _, t in pairs], shape), acc_format=acc_name)]
