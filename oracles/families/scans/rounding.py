"""Correct rounding of a lane's outputs: Ziv's strategy over ``recurrence.approximate``, with an
absolute error bound (a scan's output may cancel to far below its terms), and an exact
settlement of the outputs that bound cannot decide.

Each pass approximates every output still pending at precision w with its error bound E; an
output is decided when y − E and y + E round to the same bits, or both to a zero (the value lies
within half the smallest subnormal of zero: a zero of either sign, which this non-exact op is not
judged on). Otherwise w doubles.

What can stay undecided is a value on a rounding boundary, which only a rational value can be:

- without softplus (SsdChunkScan; SelectiveScan with delta_softplus false) every path term is
  a rational times e^R with a rational exponent R = a·Σ step_r (or R = 0 where the decay or the
  steps are 0). ``settle`` sums the coefficients of equal exponents exactly: by the
  Lindemann–Weierstrass theorem the e^R of distinct rational R are linearly independent over the
  rationals, so the output is zero iff every coefficient sum is, rational iff only R = 0 is left
  (then rounded exactly), and otherwise transcendental: never a boundary, and a Ziv loop over
  the grouped sum ends, except where a rational part Q_0 is a boundary and the rest as small as
  e^(−10^38) (a huge step times a decay): ``_negligible_tail`` then rounds Q_0 pushed towards
  the rest's sign, which a Ziv loop on the rest alone decides;
- with softplus every nonzero path term carries a factor log(1 + e^step); the Judge takes such
  sums to be zero or transcendental (what Schanuel's conjecture would give), so only exact zeros
  need settling, and the zero rule above settles them. A loop that still runs at
  ``MAX_PRECISION`` bits raises ``RoundingUndecided``.

Extreme operands: a decay e^(δ'·a) or a softplus e^step of a huge negative exponent (steps and
decays near the format's range) makes terms like 2^(−10^308), which raw mpf carry with their
exponent as an integer. The bounds y ± E are therefore rounded outwards at a precision of their
own, never formed exactly (an exact sum of terms 2^(10^10) apart would need a mantissa of that
many bits), and an output decided from an approximation below 2^(qmin − FAR) is reported by a
stand-in (``reported``) whose dyadic form is small.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import mp
from mpmath.libmp import (
    fone,
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
    mpf_cmp,
    mpf_exp,
    mpf_mul,
    mpf_shift,
    mpf_sub,
)

from numerics.rounding import FloatSpec, round_dyadic, round_fraction
from oracles.families.scans.recurrence import Lane, PathSums, approximate
from oracles.ziv import RoundingUndecided

START_GUARD = 40
EXACT_AFTER = 2  # passes before a lane without softplus settles its pending outputs exactly
MAX_PRECISION = 1 << 14
FAR = 1 << 14  # an output approximated below 2^(qmin − FAR) is reported by a stand-in


def fraction(t: tuple) -> Fraction:
    """The exact value of a finite raw mpf."""
    sign, man, exp, _ = t
    v = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -v if sign else v


def round_raw(t: tuple, s: FloatSpec) -> int:
    """Bits of a finite raw mpf rounded into ``s`` (far outside the format's range without
    building the huge integers ``round_dyadic`` would)."""
    sign, man, exp, bc = t
    if not man:
        return 0
    top = exp + bc  # |v| < 2^top
    if top < s.qmin:  # below half the smallest subnormal: zero
        return s.sign_bit if sign else 0
    if top > s.emax + 2:
        return s.inf_mag | (s.sign_bit if sign else 0)
    return round_dyadic(bool(sign), int(man), exp, s)


def decide(y: tuple, e: tuple, s: FloatSpec) -> int | None:
    """The bits every value within e of y rounds to, a zero where all of them round to a zero,
    or None. y − e is rounded towards −∞ and y + e towards +∞ (rounding is monotone, so a
    widened interval that rounds to one value proves the exact one does), at a precision past
    both operands' mantissas: exact where their exponents are close, a sticky perturbation where
    they are far apart (mpmath then never shifts a mantissa by the whole distance)."""
    prec = max(y[3], e[3], s.p) + 64
    lo, hi = round_raw(mpf_sub(y, e, prec, "f"), s), round_raw(mpf_add(y, e, prec, "c"), s)
    if lo == hi:
        return lo
    magnitude = s.sign_bit - 1
    if not lo & magnitude and not hi & magnitude:
        return 0
    return None


def reported(y: tuple, s: FloatSpec):
    """The exact value reported (an mpmath mpf) for an output decided from its approximation y
    (within the bound E that decided it): y itself, or for |y| < 2^(qmin − FAR) the stand-in
    ±2^(qmin − FAR) of y's sign. Such a y comes from exponentials of huge negative arguments
    (2^(−10^308) is a raw mpf with a 1024-bit exponent, as a Fraction 10^308 bits); the stand-in
    is within 2^(qmin − FAR + 1) of y, far below E, half the smallest subnormal and every
    derived bound's resolution, and on the same side of zero as y, so every error the scorer
    measures against a value of the format compares with the bounds as y's would."""
    sign, man, exp, bc = y
    if man and exp + bc < s.qmin - FAR:
        return mp.make_mpf((sign, 1, s.qmin - FAR, 1))
    return mp.make_mpf(y)


def lane_values(lane: Lane, s: FloatSpec, sums: PathSums) -> list[tuple]:
    """(bits, exact) of every output of the lane."""
    out: list = [(0, Fraction(0)) if z else None for z in sums.zero]
    w, passes = s.p + START_GUARD, 0
    while True:
        pending = [t for t, r in enumerate(out) if r is None]
        if not pending:
            return out
        if passes >= EXACT_AFTER and not lane.softplus:
            for t in pending:
                out[t] = settle(lane, t, s)
            return out
        if w > MAX_PRECISION:
            raise RoundingUndecided(f"scan output {pending[0]} undecided at {MAX_PRECISION} bits")
        values = approximate(lane, w, upto=pending[-1] + 1)
        for t in pending:
            bits = decide(values[t], mpf_shift(sums.upper(sums.error[t]), 1 - w), s)
            if bits is not None:
                out[t] = (bits, reported(values[t], s))
        w, passes = 2 * w, passes + 1


def grouped(lane: Lane, t: int) -> dict[Fraction, Fraction]:
    """Output t as {R: Q}: y_t = Σ Q·e^R, equal exponents summed exactly, zero sums dropped
    (a lane without softplus: every quantity is an exact rational)."""
    found: dict[Fraction, Fraction] = {}
    steps = [fraction(x) for x in lane.steps[: t + 1]]
    for g, decay in enumerate(lane.decay):
        c = fraction(lane.net[t][g])
        if not c:
            continue
        a, path = fraction(decay), Fraction(0)  # path: Σ step_r over r in (s, t]
        for s_ in range(t, -1, -1):
            beta = steps[s_] * fraction(lane.drive[s_][g])
            if beta:
                key = a * path
                found[key] = found.get(key, Fraction(0)) + c * beta
            path += steps[s_]
    return {r: q for r, q in found.items() if q}


def settle(lane: Lane, t: int, s: FloatSpec) -> tuple:
    """(bits, exact) of output t from its grouped exact form (module docstring)."""
    terms = grouped(lane, t)
    if not terms:
        return 0, Fraction(0)
    if set(terms) == {0}:
        q = terms[0]
        return round_fraction(q, s), q
    if terms.get(0):
        near = _negligible_tail(terms, s)
        if near is not None:
            return near
    w = s.p + START_GUARD
    while w <= MAX_PRECISION:
        y, e = _approx_sum(terms, w)
        bits = decide(y, e, s)
        if bits is not None:
            return bits, reported(y, s)
        w *= 2
    raise RoundingUndecided(f"scan output {t} undecided at {MAX_PRECISION} bits")


def _approx_sum(terms: dict[Fraction, Fraction], w: int) -> tuple[tuple, tuple]:
    """(ỹ, E): Σ Q·e^R at precision w and a bound on its error."""
    y, e = fzero, fzero
    for r, q in terms.items():
        term = mpf_mul(from_rational(q.numerator, q.denominator, w), _exp_fraction(r, w), w)
        y = mpf_add(y, term, w)
        # q and R rounded (2^-w each; R's error scaled by |R| through exp), exp, product, sum
        weight = abs(r) + 8 + len(terms)
        e = mpf_add(e, mpf_mul(mpf_abs(term), from_rational(weight.numerator, weight.denominator, 32, "u"), 32, "u"), 32, "u")
    return y, mpf_shift(e, 2 - w)


def _low_bit(q: Fraction) -> int | None:
    """k with q an odd multiple of 2^k (q ≠ 0 dyadic), None for a q that is not dyadic."""
    n, d = q.numerator, q.denominator
    if d & (d - 1):
        return None
    return (abs(n) & -abs(n)).bit_length() - d.bit_length()


def _negligible_tail(terms: dict[Fraction, Fraction], s: FloatSpec) -> tuple | None:
    """(bits, exact) of y = Q_0 + T, T = Σ_{R<0} Q_R·e^R, where |T| is too small to move y
    across any rounding boundary (else None): the case a Ziv loop cannot decide when Q_0 is a
    boundary itself and T as small as e^(−10^38).

    Q_0 is dyadic (sums of products of floats), an odd multiple of 2^k; every boundary of the
    rounding into ``s`` (a midpoint, the overflow threshold) is a multiple of 2^(qmin − 1); with
    m = min(k, qmin − 1), a boundary other than Q_0 lies at least 2^m from it. |T| ≤ Σ|Q_R|·e^top
    (top the largest R), bounded above here (top < 0 rounded towards +∞, every positive factor
    away from zero); where that is below 2^(m − 2), y and Q_0 + sign(T)·2^(m − 2) lie in the
    same open interval of width 2^m next to Q_0, free of boundaries, and round alike. T ≠ 0 (Lindemann–Weierstrass), its sign that of
    S = Σ Q_R·e^(R − top) (T = e^top·S), decided by a Ziv loop on S."""
    q0 = terms[0]
    k = _low_bit(q0)
    if k is None:
        return None
    m = min(k, s.qmin - 1)
    tail = {r: q for r, q in terms.items() if r}
    top = max(tail)
    size = sum((abs(q) for q in tail.values()), Fraction(0))
    bound = mpf_mul(from_rational(size.numerator, size.denominator, 64, "u"),
                    mpf_exp(from_rational(top.numerator, top.denominator, 64, "c"), 64, "u"), 64, "u")
    bound = mpf_add(bound, mpf_shift(bound, -20), 64, "u")  # a margin over exp's own rounding
    if mpf_cmp(bound, mpf_shift(fone, m - 2)) >= 0:
        return None
    scaled = {r - top: q for r, q in tail.items()}
    w = s.p + START_GUARD
    while w <= MAX_PRECISION:
        y, e = _approx_sum(scaled, w)
        if mpf_cmp(mpf_abs(y), e) > 0:
            break
        w *= 2
    else:
        raise RoundingUndecided(f"the sign of a scan output's tail undecided at {MAX_PRECISION} bits")
    sign = -1 if y[0] else 1
    bits = round_fraction(q0 + sign * Fraction(1, 1 << (2 - m)), s)  # m <= qmin - 1 < 0
    if mpf_cmp(bound, mpf_shift(fone, m - FAR)) < 0:
        # T below 2^(m − FAR): the stand-in Q_0 ± 2^(m − FAR) (``reported`` says why)
        return bits, q0 + sign * Fraction(1, 1 << (FAR - m))
    return bits, q0 + fraction(mpf_mul(y, _exp_fraction(top, w), w))


def _exp_fraction(r: Fraction, w: int) -> tuple:
    return mpf_exp(from_rational(r.numerator, r.denominator, w + 8), w) if r else from_rational(1, 1, w)
