"""RmsNormLastDimBackward and LayerNormLastDimBackward: the exact derivative of the forward
norms (``oracles.families.lastdim.norms``, no affine), per row of n elements, given the forward's
input x and the upstream gradient g.

- RMS norm, y = x/r with q = Σx²/n + eps, r = √q:  dx_i = g_i/r − x_i·D/(n·r³), D = Σ g_j·x_j,
  that is dx_i = a_i/√(q³) with the rational a_i = g_i·q − x_i·D/n.
- Layer norm, y = d/σ with d = x − μ, V = Σd²/n + eps, σ = √V:
  dx_i = (g_i − ḡ − d_i·C/(n·V))/σ, ḡ = Σg/n, C = Σ g_j·d_j (= σ·Σ g_j·y_j), so
  dx_i = a_i/√V with a rational a_i.
Both are sign(a)·√(a²/Q) for rationals, rounded exactly (``common.box_sqrt``).

Specials follow the IEEE operations of the formulas (``common``): a NaN or ±inf in x makes the
row NaN (the mean square or mean is infinite: inf/inf, inf − inf); a NaN in g makes the row NaN;
±inf in g gives ±inf or NaN element by element (0·inf where x_i or d_i is 0). The contract fixes
no evaluation order, and the sum it then forms is infinite, so an infinite element also admits
NaN: an arrangement may meet that infinity with a factor held as 0 (x_i·ρ³/n underflows) or
with a finite part that overflows to the other infinity, and layer norm's raw-moment form
a·g + b·x + c (torch's fused kernel: b = (Σg·μ − Σg·x)·ρ³/n) gives inf − inf wherever x_i and
μ share a sign. Layer norm admits either infinity and NaN for every element of such a row where
the sign of μ or of a centred value d_j is within the mean's rounding error (x_j − μ̂ may round
to the other sign or to 0). The signs of the other factors are exact, so no other arrangement
gives the opposite infinity.

Derived bounds (``terms``), u the accumulator's unit roundoff, tiny its smallest normal:
- RMS: q̂ errs by θ ≤ (n + 2)·u relatively, r̂ and r̂³ (or a reciprocal square root) by θ/2 and
  1.5θ plus 4u, D by n·u·(S + tiny), S = Σ|g_j·x_j|. With T1 = |g_i|/r and
  T2 = |x_i|·S/(n·r³): |error| ≤ (3n + 12)·u·(T1 + T2 + |x_i|·tiny/r³ + |dx_i| + tiny).
- Layer: the mean errs by M = u·(Σ|x| + 2|μ|) + 2^qmin, the variance + eps by E (as the forward
  derives it, ``lastdim.norms``), ε = E/V; ḡ by (n + 1)·u·Σ|g|/n + tiny, C by M·Σ|g| +
  (n + 1)·u·S + n·tiny, S = Σ|g_j·d_j|. The numerator a_i then errs by
  u·|g_i| + (n+1)·u·Σ|g|/n + tiny + S/(nV)·(M + u·|d_i|) + |d_i|/(nV)·(M·Σ|g| + (n+1)·u·S + n·tiny)
  + |d_i|·S/(nV)·(ε + 4u) + u·(|g_i − ḡ| + |d_i|·S/(nV)), and dx_i by that over σ plus
  |a_i|/σ·(ε/2 + 4u); twice that is the bound (second-order room). Beyond ε = 1/2 the row escapes.
- Underflow: a product that rounds below the smallest normal errs by u·tiny absolutely, not
  relatively, and every factor it meets afterwards scales that error. The arrangements admitted
  (g·ρ or g/r, ρ = 1/r; x_i·D·ρ³/n in any association, ρ³ as ρ·ρ·ρ, 1/(r·q) or a cube, with
  autograd's factors 2 and ½ of x²; the normalised form ρ·(g − y·mean(g·y)), y = x·ρ; for layer
  norm also the raw-moment form a·g + b·x + c) meet each of their atoms at most once (ρ at most
  three times), so an underflow's error grows by at most the product A_i of the atoms' parts
  above 1: RMS A_i = 4·max(1,|g_i|)·max(1,|x_i|)·max(1, 2S + tiny)·max(1, 1/r)³; layer
  A_i = 4·max(1, |g_i| + Σ|g|)·max(1, |x_i| + |μ|)²·max(1, 2C* + tiny)·max(1, 1/σ)³ with
  C* = Σ|g_j|·(|x_j| + |μ|) (above |C|, Σ|g·x| and |Σg·μ|). The n products of each sum and the
  chain's few roundings add (2n + 8)·u·tiny·A_i at most: tiny·A_i joins the RMS abs_sum (count
  3n + 13 covers it), (2n + 8)·u·tiny·A_i the layer bound. That term is far below the others
  unless a partial product of some arrangement falls below the smallest normal times 2^p
  (``common.escapes(low=True)``), and there it admits the range the underflow spans, as the
  softmax bound's |y_i|·n·tiny does (x = 1024, g = −2^-1022: g·x·ρ³ is subnormal, and x times
  it errs by 1024·u·tiny). A square that underflows into q or V errs by u·tiny against eps:
  below u² relatively for the drawn eps (≥ 2^-20).
- A row whose intermediates (Σx², q^1.5, S, |x_i|·S, |g_i|·q; Σ|x|, the centred squares, Σ|g|,
  |d_i|·S) can reach the accumulator's overflow threshold admits NaN and ±inf and any finite
  value (``common.escapes``): no accumulator of that format resolves it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from numerics.rounding import FloatSpec
from oracles import arith
from oracles.families.backward import common as c


def _special_rms(xs: list[float], gs: list[float], s: FloatSpec):
    """Results of a row holding a NaN or ±inf, from the IEEE operations of g/r − x·D/(n·r³); an
    infinite one also admits NaN (module docstring)."""
    n = len(xs)
    if not all(math.isfinite(x) for x in xs):
        return [arith.nan(s)] * n
    xv, gv = [Fraction(x) for x in xs], [c.value(g) for g in gs]
    D = c.total(c.mul(g, x) for g, x in zip(gv, xv, strict=True))
    # r is finite and positive here: against a special it acts as 1
    out = [c.box(c.sub(g, c.mul(x, D)), s) for g, x in zip(gv, xv, strict=True)]
    return [c.with_nan(r) if c.infinite(r, s) else r for r in out]


def rms_backward_row(xs: list[float], gs: list[float], eps: Fraction, s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one RmsNorm row: results (bits, exact[, admitted]); terms (count, abs_sum)."""
    n = len(xs)
    if n == 0:
        return [], []
    if not all(math.isfinite(v) for v in (*xs, *gs)):
        return _special_rms(xs, gs, s), [(n, Fraction(0))] * n
    xv, gv = [Fraction(x) for x in xs], [Fraction(g) for g in gs]
    squares = sum(x * x for x in xv)
    q = squares / n + eps
    D = sum(g * x for g, x in zip(gv, xv, strict=True))
    S = sum(abs(g * x) for g, x in zip(gv, xv, strict=True))
    q3 = q * q * q
    r_lo = c.sqrt_below(q)
    r3_lo = r_lo**3
    tiny = c.tiny(acc)
    # the underflow amplification A_i of the module docstring, less its g_i and x_i factors
    amplified = 4 * max(1, 2 * S + tiny) * max(1, 1 / r_lo) ** 3
    wide = c.escapes([squares, q3 / 4, S, *(abs(x) * S for x in xv), *(abs(g) * q for g in gv)],
                     acc, low=False)
    results, terms = [], []
    for x, g in zip(xv, gv, strict=True):
        a = g * q - x * D / n
        result = c.box_sqrt(a, q3, s)
        if wide:
            results.append(c.escaped(result))
            terms.append(c.escaped_term(s, acc))
            continue
        dx = abs(a) / (r3_lo)  # an upper bound of |dx_i|
        t1, t2 = abs(g) / r_lo, abs(x) * S / (n * r3_lo)
        results.append(result)
        under = tiny * max(1, abs(g)) * max(1, abs(x)) * amplified
        terms.append((3 * n + 13, t1 + t2 + abs(x) * tiny / r3_lo + dx + tiny + under))
    return results, terms


def _special_layer(xs: list[float], gs: list[float], s: FloatSpec, acc: FloatSpec):
    """Results of a row holding a NaN or ±inf, from the IEEE operations of (g − ḡ − d·C/(nV))/σ,
    with the alternatives of the module docstring."""
    n = len(xs)
    if not all(math.isfinite(x) for x in xs) or any(g != g for g in gs):
        return [arith.nan(s)] * n
    xv, gv = [Fraction(x) for x in xs], [c.value(g) for g in gs]
    mu = sum(xv) / n
    ds = [x - mu for x in xv]
    gbar = c.total(gv)  # only its special value matters here: Σg/n is infinite or NaN
    C = c.total(c.mul(g, d) for g, d in zip(gv, ds, strict=True))
    out = [c.box(c.sub(c.sub(g, gbar), c.mul(d, C)), s) for g, d in zip(gv, ds, strict=True)]
    M = c.unit(acc) * (sum(abs(x) for x in xv) + 2 * abs(mu)) + Fraction(2) ** acc.qmin
    if any(abs(v) <= 2 * M for v in (mu, *ds)):  # a sign the kernel's μ̂ may turn
        return [c.escaped(r) for r in out]
    return [c.with_nan(r) if c.infinite(r, s) else r for r in out]


def _layer_stats(xv: list[Fraction], gv: list[Fraction], eps: Fraction, acc: FloatSpec) -> dict:
    """The row's exact statistics and the error terms of the module docstring."""
    n = len(xv)
    u = c.unit(acc)
    mu = sum(xv) / n
    ds = [x - mu for x in xv]
    v = sum(d * d for d in ds) / n
    V = v + eps
    M = u * (sum(abs(x) for x in xv) + 2 * abs(mu)) + Fraction(2) ** acc.qmin
    squares = sum(x * x for x in xv)
    E = M * M + (n + 8) * u * (V + 2 * c.sqrt_above(v) * c.sqrt_above(squares / n))
    sum_g = sum(abs(g) for g in gv)
    S = sum(abs(g * d) for g, d in zip(gv, ds, strict=True))
    root = c.sqrt_below(V)
    c_star = sum(abs(g) * (abs(x) + abs(mu)) for g, x in zip(gv, xv, strict=True))
    return dict(n=n, u=u, tiny=c.tiny(acc), mu=mu, ds=ds, V=V, M=M, eps_v=E / V,
                gbar=sum(gv) / n, C=sum(g * d for g, d in zip(gv, ds, strict=True)),
                sum_g=sum_g, S=S, root=root,
                # A_i of the module docstring, less its g_i and x_i factors
                amplified=4 * max(1, 2 * c_star + c.tiny(acc)) * max(1, 1 / root) ** 3,
                wide=[sum(abs(x) for x in xv), 4 * n * v, squares, sum_g, S])


def _layer_bound(g: Fraction, d: Fraction, a: Fraction, st: dict) -> Fraction:
    """The bound of the module docstring for one element (numerator a = g − ḡ − d·C/(nV))."""
    n, u, tiny, V, M, eps_v = st["n"], st["u"], st["tiny"], st["V"], st["M"], st["eps_v"]
    S, sum_g = st["S"], st["sum_g"]
    w = S / (n * V)
    err_a = (u * abs(g) + (n + 1) * u * sum_g / n + tiny
             + w * (M + u * abs(d))
             + abs(d) / (n * V) * (M * sum_g + (n + 1) * u * S + n * tiny)
             + abs(d) * w * (eps_v + 4 * u)
             + u * (abs(g - st["gbar"]) + abs(d) * w))
    x_mu = abs(d + st["mu"]) + abs(st["mu"])
    under = (2 * n + 8) * u * tiny * max(1, abs(g) + sum_g) * max(1, x_mu) ** 2 * st["amplified"]
    return 2 * (err_a + abs(a) * (eps_v / 2 + 4 * u)) / st["root"] + tiny + under


def layer_backward_row(xs: list[float], gs: list[float], eps: Fraction, s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one LayerNorm row."""
    n = len(xs)
    if n == 0:
        return [], []
    if not all(math.isfinite(v) for v in (*xs, *gs)):
        return _special_layer(xs, gs, s, acc), [(n, Fraction(0))] * n
    xv, gv = [Fraction(x) for x in xs], [Fraction(g) for g in gs]
    st = _layer_stats(xv, gv, eps, acc)
    wide = st["eps_v"] > Fraction(1, 2) or c.escapes(
        [*st["wide"], *(abs(d) * st["S"] for d in st["ds"])], acc, low=False)
    results, terms = [], []
    for g, d in zip(gv, st["ds"], strict=True):
        a = g - st["gbar"] - d * st["C"] / (n * st["V"])
        result = c.box_sqrt(a, st["V"], s)
        if wide:
            results.append(c.escaped(result))
            terms.append(c.escaped_term(s, acc))
            continue
        results.append(result)
        terms.append(c.bound_term(_layer_bound(g, d, a, st), acc))
    return results, terms
