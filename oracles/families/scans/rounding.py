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
  the grouped sum ends;
- with softplus every nonzero path term carries a factor log(1 + e^step); the Judge takes such
  sums to be zero or transcendental (what Schanuel's conjecture would give), so only exact zeros
  need settling, and the zero rule above settles them. A loop that still runs at
  ``MAX_PRECISION`` bits raises ``RoundingUndecided``.
"""

from __future__ import annotations

from fractions import Fraction

from mpmath import mp
from mpmath.libmp import (
    from_rational,
    fzero,
    mpf_abs,
    mpf_add,
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
    or None."""
    lo, hi = round_raw(mpf_sub(y, e), s), round_raw(mpf_add(y, e), s)
    if lo == hi:
        return lo
    magnitude = s.sign_bit - 1
    if not lo & magnitude and not hi & magnitude:
        return 0
    return None


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
                out[t] = (bits, mp.make_mpf(values[t]))
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
    w = s.p + START_GUARD
    while w <= MAX_PRECISION:
        y, e = fzero, fzero
        for r, q in terms.items():
            term = mpf_mul(from_rational(q.numerator, q.denominator, w), _exp_fraction(r, w), w)
            y = mpf_add(y, term, w)
            # q and R rounded (2^-w each; R's error scaled by |R| through exp), exp, product, sum
            weight = abs(r) + 8 + len(terms)
            e = mpf_add(e, mpf_mul(mpf_abs(term), from_rational(weight.numerator, weight.denominator, 32, "u"), 32, "u"), 32, "u")
        bits = decide(y, mpf_shift(e, 2 - w), s)
        if bits is not None:
            return bits, mp.make_mpf(y)
        w *= 2
    raise RoundingUndecided(f"scan output {t} undecided at {MAX_PRECISION} bits")


def _exp_fraction(r: Fraction, w: int) -> tuple:
    return mpf_exp(from_rational(r.numerator, r.denominator, w + 8), w) if r else from_rational(1, 1, w)
