"""RmsNormLastDim and LayerNormLastDim, correctly rounded in exact rational arithmetic.

Per row of the last axis (n elements, no affine): RmsNorm y_i = x_i / sqrt(Σx_j²/n + eps);
LayerNorm y_i = (x_i − μ) / sqrt(v + eps) with μ = Σx_j/n and the population variance
v = Σ(x_j − μ)²/n. Both are sign(a)·sqrt(a²/q) for a rational a and q > 0, so the result is
rounded exactly by ``round_sqrt_ratio`` (integer square roots), no approximation involved.

Special values (the decided semantics, also in the OpDef domain):
- a NaN anywhere in a row makes the whole row NaN;
- RmsNorm, ±inf in a row: the mean square is +inf, so finite x_i give ±0 (x_i's sign) and the
  infinite ones NaN (inf/inf);
- LayerNorm, ±inf in a row: the mean is infinite or undefined, every element NaN;
- an empty last axis has no output elements; a zero numerator gives +0 (x − x is +0), except
  RmsNorm keeps the sign of a zero x_i (−0 / positive).

Derived bounds (``terms``), u the accumulator's unit roundoff, to first order with room left:
- RmsNorm: squares, a sum in any order, the division by n, + eps: q̂ is off by (n + 2)·u
  relatively; the square root halves that, and it and the final division (or rsqrt and a product)
  add 3u: |error| ≤ (n/2 + 5)·u·|y_i|. ``count`` = n + 8, ``abs_sum`` = |y_i|.
- LayerNorm: the mean is off by at most D = u·(Σ|x_j| + 2|μ|) + 2^qmin (the last term: a mean
  in the accumulator's subnormal range is off by up to half its smallest subnormal). With d̂_j = x_j − μ̂ the error of
  μ̂ enters the variance only squared (Σ(x_j − μ) = 0), so v̂ + eps is within
  E = D² + (n + 8)·u·(V + 2·σ·r) of V = v + eps (σ = √v, r = √(Σx²/n); the σ·r term admits
  updating (Welford) forms, whose error grows with σ·r rather than r²). With ε = E/V ≤ 1/2 the
  reciprocal square root is off by at most ε + 4u relatively, and the numerator by
  D·(1 + u) + u·|d_i|, so |error| ≤ B = 2·(|y_i|·(ε + 4u) + (2D + u·|d_i|)/√V). Beyond ε = 1/2
  the accumulator cannot resolve the row; every |y| is at most √n, so B = 2√n + 2.
  ``count`` = n + 8 and ``abs_sum`` = B / ((count − 1)·u) give the machinery that B.
  A one-pass variance E[x²] − E[x]² errs by about n·u·r², which is r/σ times the σ·r term: rows
  with a large common offset and a small spread expose it.
- Where the sum of squares (for LayerNorm also Σ|x| or the centred squares, which updating forms
  square) can reach the accumulator's overflow threshold, the results an overflowed sum gives
  (±0 for finite x_i; NaN or ±0 for LayerNorm) are admitted as well.
"""

from __future__ import annotations

import math
from fractions import Fraction

from numerics.rounding import FloatSpec, round_sqrt_ratio
from oracles import arith, edges
from oracles.arith import _sqrt_exact

INF = math.inf


def _normalised(a: Fraction, q: Fraction, s: FloatSpec, zero_negative: bool):
    """(bits, exact) of a / sqrt(q), q > 0, correctly rounded."""
    if a == 0:
        return arith.zero(zero_negative, s)
    r = a * a / q
    bits = round_sqrt_ratio(r.numerator, r.denominator, s)
    mag = _sqrt_exact(r.numerator, r.denominator, s.p + 64)
    return (bits | s.sign_bit, -mag) if a < 0 else (bits, mag)


def _sqrt_below(q: Fraction) -> Fraction:
    """A rational lower bound of sqrt(q) within 2^-60 relatively."""
    k = max(0, (130 - (q.numerator.bit_length() - q.denominator.bit_length())) // 2)
    return Fraction(math.isqrt((q.numerator << (2 * k)) // q.denominator), 1 << k)


def _sqrt_above(q: Fraction) -> Fraction:
    return _sqrt_below(q) * (1 + Fraction(1, 1 << 58))


def _overflows(total: Fraction, n: int, u: Fraction, acc: FloatSpec) -> bool:
    """Whether some summation order of a sum of n terms near ``total`` can overflow."""
    return total * (1 + 2 * (n + 2) * u) >= edges.overflow_threshold(acc) / 2


def rms_row(row: list[float], eps: Fraction, s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one RmsNorm row."""
    n = len(row)
    if n == 0:
        return [], []
    if any(v != v for v in row):
        return [arith.nan(s)] * n, [(n, Fraction(0))] * n
    if any(v in (INF, -INF) for v in row):
        results = [arith.nan(s) if v in (INF, -INF) else arith.zero(arith.signbit(v), s) for v in row]
        return results, [(n, Fraction(0))] * n
    xs = [Fraction(v) for v in row]
    squares = sum(x * x for x in xs)
    q = squares / n + eps
    u = Fraction(1, 1 << acc.p)
    overflow = _overflows(squares, n, u, acc)
    results, terms = [], []
    for v, x in zip(row, xs, strict=True):
        result = _normalised(x, q, s, arith.signbit(v))
        if overflow:
            result = edges.with_alternatives(result, (math.copysign(0.0, v),))
        results.append(result)
        terms.append((n + 8, abs(x) / _sqrt_below(q)))
    return results, terms


def _layer_bound(d: Fraction, ctx) -> Fraction:
    """The bound B of the module docstring for numerator d (ctx: n, u, D, V, E, √V below)."""
    n, u, D, V, E, root = ctx
    eps_v = E / V
    if eps_v > Fraction(1, 2):
        return 2 * _sqrt_above(Fraction(n)) + 2
    y = abs(d) / root
    return 2 * (y * (eps_v + 4 * u) + (2 * D + u * abs(d)) / root)


def layer_row(row: list[float], eps: Fraction, s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one LayerNorm row."""
    n = len(row)
    if n == 0:
        return [], []
    if any(v != v or v in (INF, -INF) for v in row):
        return [arith.nan(s)] * n, [(n, Fraction(0))] * n
    xs = [Fraction(v) for v in row]
    mu = sum(xs) / n
    ds = [x - mu for x in xs]
    v = sum(d * d for d in ds) / n
    V = v + eps
    u = Fraction(1, 1 << acc.p)
    D = u * (sum(abs(x) for x in xs) + 2 * abs(mu)) + Fraction(2) ** acc.qmin
    squares = sum(x * x for x in xs)
    r = _sqrt_above(squares / n)
    E = D * D + (n + 8) * u * (V + 2 * _sqrt_above(v) * r)
    ctx = (n, u, D, V, E, _sqrt_below(V))
    overflow = any(_overflows(t, n, u, acc) for t in (sum(abs(x) for x in xs), 4 * n * v, squares))
    results, terms = [], []
    for d in ds:
        result = _normalised(d, V, s, False)
        if overflow:
            result = edges.with_alternatives(result, (math.nan, 0.0, -0.0))
        results.append(result)
        terms.append((n + 8, _layer_bound(d, ctx) / ((n + 7) * u)))
    return results, terms
