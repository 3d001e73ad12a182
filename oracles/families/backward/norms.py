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
from oracles.families.backward import dyadic as dy


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
    st = _rms_stats(xs, gs, eps, acc)
    results, terms = [], []
    for x, g in zip(st["X"], st["G"], strict=True):
        # a_i = g_i·q − x_i·D/n over one denominator, never reduced (no gcd of long integers)
        a = g * st["cg"] - x * st["cx"]
        result = c.box_sqrt_ratio(a, st["den"], st["q3"], s)
        if st["wide"]:
            results.append(c.escaped(result))
            terms.append(c.escaped_term(s, acc))
            continue
        results.append(result)
        gi, xi = (abs(g), -st["kg"]), (abs(x), -st["k"])
        terms.append((3 * n + 13, dy.total([
            dy.mul(gi, st["R1"]), dy.mul(xi, st["R2"]), dy.mul(dy.up_pair(abs(a), st["den"]), st["R3"]),
            (1, acc.emin), dy.mul(st["U"], dy.at_least_one(gi), dy.at_least_one(xi))])))
    return results, terms


def _rms_stats(xs: list[float], gs: list[float], eps: Fraction, acc: FloatSpec) -> dict:
    """A row's exact statistics, taken in integers (x_j = X_j/2^K, g_j = G_j/2^L), and the bound's
    constants rounded up to dyadic pairs (``dyadic``): abs_sum_i = |g_i|·R1 + |x_i|·R2 + |a_i|·R3
    + tiny + U·max(1, |g_i|)·max(1, |x_i|), that is T1 + T2 + |x_i|·tiny/r³ + |dx_i| + tiny +
    tiny·A_i."""
    n = len(xs)
    (X, k), (G, kg) = dy.scaled(xs), dy.scaled(gs)
    squares = Fraction(sum(x * x for x in X), 1 << 2 * k)
    q = squares / n + eps
    dn = sum(g * x for g, x in zip(G, X, strict=True))  # D = dn/2^(K+L)
    S = Fraction(sum(abs(g * x) for g, x in zip(G, X, strict=True)), 1 << k + kg)
    q3 = q * q * q
    r_lo = c.sqrt_below(q)
    r3_lo = r_lo**3
    tiny = c.tiny(acc)
    x_max, g_max = Fraction(max(map(abs, X)), 1 << k), Fraction(max(map(abs, G)), 1 << kg)
    return dict(
        X=X, G=G, k=k, kg=kg, q3=q3,
        # a_i = (G_i·qn·n·2^(2K) − X_i·dn·qd)/(n·qd·2^(2K+L)) for q = qn/qd
        cg=q.numerator * n << 2 * k, cx=dn * q.denominator, den=n * q.denominator << 2 * k + kg,
        wide=c.escapes([squares, q3 / 4, S, x_max * S, g_max * q], acc, low=False),
        R1=dy.pair(1 / r_lo), R2=dy.pair((S / n + tiny) / r3_lo), R3=dy.pair(1 / r3_lo),
        # the underflow amplification A_i of the module docstring, less its g_i and x_i factors
        U=dy.pair(tiny * 4 * max(1, 2 * S + tiny) * max(1, 1 / r_lo) ** 3))


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


def _layer_stats(xs: list[float], gs: list[float], eps: Fraction, acc: FloatSpec) -> dict:
    """The row's exact statistics and the error terms of the module docstring. The sums are taken
    in integers (x_j = X_j/2^K, g_j = G_j/2^L, d_j = D_j/(n·2^K) with D_j = n·X_j − ΣX); the
    bound's row constants are rounded up to short dyadic pairs (``dyadic``)."""
    n = len(xs)
    u, tiny = c.unit(acc), c.tiny(acc)
    (X, k), (G, kg) = dy.scaled(xs), dy.scaled(gs)
    sx, sg = sum(X), sum(G)
    D = [n * x - sx for x in X]
    den_d = Fraction(1, n << k)  # d_j = D_j·den_d
    mu = sx * den_d
    v = sum(d * d for d in D) * den_d * den_d / n
    V = v + eps
    sum_x = Fraction(sum(abs(x) for x in X), 1 << k)
    M = u * (sum_x + 2 * abs(mu)) + Fraction(2) ** acc.qmin
    squares = Fraction(sum(x * x for x in X), 1 << 2 * k)
    E = M * M + (n + 8) * u * (V + 2 * c.sqrt_above(v) * c.sqrt_above(squares / n))
    sum_g = Fraction(sum(abs(g) for g in G), 1 << kg)
    den_gd = den_d / (1 << kg)
    C = sum(g * d for g, d in zip(G, D, strict=True)) * den_gd
    S = sum(abs(g * d) for g, d in zip(G, D, strict=True)) * den_gd
    c_star = sum(abs(g) * (n * abs(x) + abs(sx)) for g, x in zip(G, X, strict=True)) * den_gd
    root = c.sqrt_below(V)
    w, eps_v = S / (n * V), E / V
    R = dy.pair(2 / root)
    return dict(
        n=n, X=X, k=k, G=G, kg=kg, sx=sx, sg=sg, D=D, den_d=den_d, V=V, eps_v=eps_v,
        Q=C * den_d / (n * V),  # a_i = g_i − ḡ − D_i·Q
        wide=[sum_x, 4 * n * v, squares, sum_g, S], S=S,
        # bound = R·(K0 + u·(|g_i| + |g_i − ḡ|) + K1·|d_i| + K2·|a_i|) + tiny + U·(the g_i, x_i
        # part of A_i), as dyadic pairs: R·K0, R·u, R·K1, R·K2
        RK0=dy.mul(R, dy.pair((n + 1) * u * sum_g / n + tiny + w * M)), Ru=dy.mul(R, dy.pair(u)),
        RK1=dy.mul(R, dy.pair(w * u + (M * sum_g + (n + 1) * u * S + n * tiny) / (n * V)
                              + w * (eps_v + 4 * u) + u * w)),
        RK2=dy.mul(R, dy.pair(eps_v / 2 + 4 * u)),
        sum_g_int=sum(abs(g) for g in G), abs_mu=dy.up_pair(abs(sx), n << k),
        U=dy.pair((2 * n + 8) * u * tiny * 4 * max(1, 2 * c_star + tiny) * max(1, 1 / root) ** 3))


def _layer_bound(i: int, a: dy.Pair, st: dict, acc: FloatSpec) -> Fraction:
    """The bound of the module docstring for element i, over u (``common.bound_term``), from the
    row constants of ``_layer_stats`` and a: |g − ḡ − d·C/(nV)| rounded up. Every term is
    rounded up."""
    n, kg, g = st["n"], st["kg"], abs(st["G"][i])
    g_dev = dy.up_pair(abs(n * st["G"][i] - st["sg"]), n << kg)
    d = dy.up_pair(abs(st["D"][i]), n << st["k"])
    (mu_m, mu_e), x, e = st["abs_mu"], abs(st["X"][i]), min(st["abs_mu"][1], -st["k"])
    x_mu = dy.at_least_one(((x << -st["k"] - e) + (mu_m << mu_e - e), e))  # max(1, |x_i| + |μ|)
    return dy.total([st["RK0"], dy.mul(st["Ru"], (g, -kg)), dy.mul(st["Ru"], g_dev), dy.mul(st["RK1"], d),
                     dy.mul(st["RK2"], a), (1, acc.emin),
                     dy.mul(st["U"], dy.at_least_one((g + st["sum_g_int"], -kg)), x_mu, x_mu)], shift=acc.p)


def layer_backward_row(xs: list[float], gs: list[float], eps: Fraction, s: FloatSpec, acc: FloatSpec):
    """(results, terms) of one LayerNorm row."""
    n = len(xs)
    if n == 0:
        return [], []
    if not all(math.isfinite(v) for v in (*xs, *gs)):
        return _special_layer(xs, gs, s, acc), [(n, Fraction(0))] * n
    st = _layer_stats(xs, gs, eps, acc)
    wide = st["eps_v"] > Fraction(1, 2) or c.escapes(
        [*st["wide"], max(abs(d) for d in st["D"]) * st["den_d"] * st["S"]], acc, low=False)
    Q, den_g = st["Q"], n << st["kg"]
    results, terms = [], []
    for i, (g, d) in enumerate(zip(st["G"], st["D"], strict=True)):
        # a_i = (n·G_i − ΣG)/(n·2^L) − D_i·Q over one denominator, never reduced
        a = (n * g - st["sg"]) * Q.denominator - den_g * d * Q.numerator
        result = c.box_sqrt_ratio(a, den_g * Q.denominator, st["V"], s)
        if wide:
            results.append(c.escaped(result))
            terms.append(c.escaped_term(s, acc))
            continue
        results.append(result)
        terms.append((2, _layer_bound(i, dy.up_pair(abs(a), den_g * Q.denominator), st, acc)))
    return results, terms
