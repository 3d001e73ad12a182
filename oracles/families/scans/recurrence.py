"""The scans' state recurrence: every output of a lane approximated at a working precision (for
the Ziv loop of ``oracles.families.scans.rounding``), and the sums over the scan's paths that
both the approximation's error and the kernel bound (``oracles.families.scans.bounds``) are made of.

A lane is one (batch, channel) of a scan, ``L`` steps over N state channels:

    h_t[n] = exp(δ'_t·a[n])·h_{t−1}[n] + δ'_t·drive_t[n],   y_t = Σ_n C_t[n]·h_t[n],   h_{−1} = 0,

with δ'_t = softplus(step_t) or step_t itself. Unrolled, y_t = Σ_n C_t[n]·Σ_{s≤t} P_{s,t}[n] with
the path terms P_{s,t}[n] = δ'_s·drive_s[n]·Π_{r∈(s,t]} α_r[n]. Channels with the same decay and
the same drive column carry the same state; a lane merges them (their C summed exactly).

Error of the approximation (ε = 2^−w, every mpmath operation within 2^(2−w) relatively, softplus
within 2^(4−w)): a path term collects ε per rounding on its path (a product and a sum per step,
the exponential's own error, the drive product, the output's dot product over N) and, through
exp, the error of its exponent: |z_r|·(δ' error + ε) per step. To first order, with a factor two
for what follows:

    |ỹ_t − y_t| ≤ 2ε·Σ_n |C_t[n]|·(6·G_t + (N + 24)·H_t + 20·K_t)

where H_t = Σ_s |P_{s,t}|, G_t = Σ_s (t − s)·|P_{s,t}| and K_t = Σ_s |P_{s,t}|·Σ_{r∈(s,t]} |z_r|,
each carried by a recurrence of its own (H_t = |α_t|·H_{t−1} + |β_t|, G_t = |α_t|·(G_{t−1} + H_{t−1}),
K_t = |α_t|·(K_{t−1} + |z_t|·H_{t−1})).

The path sums are computed once per lane, in binary64 where every quantity of the lane lies within
2^±120 (``tame``: no product the sums form leaves binary64's normal range, except decays that
underflow, whose loss the underflow allowance covers; binary64's relative error, 2^-50 after a
few operations, is far below the factor two), and otherwise upwards at ``BOUND_PREC`` bits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mpmath.libmp import (
    fone,
    from_float,
    from_int,
    fzero,
    mpf_add,
    mpf_cmp,
    mpf_exp,
    mpf_log,
    mpf_mul,
    mpf_neg,
    to_float,
)

BOUND_PREC = 80
UP = "u"
TAME = 120  # binary64 path sums where every magnitude of the lane is within 2^±TAME
MARGIN = 1 + 2.0**-40  # binary64 sums widened before they become upper bounds


@dataclass(frozen=True)
class Lane:
    """One lane of a scan, its channels merged (see the module docstring).

    steps: step_t (delta or dt) as exact raw mpf, length L (the numeric prefix: no NaN, no inf).
    decay: a per channel group (raw mpf, ≤ 0).
    drive: [t][g] the exact product b·x of the group's drive (raw mpf).
    net: [t][g] Σ C over the group's channels (exact raw mpf); gross: [t][g] Σ |C| (upwards).
    spread: [t][g] max(1,|b|)·max(1,|x|): the drive's factors, for the underflow allowance.
    channels: N before merging; softplus: δ' = log(1 + e^step); chunk: the chunk length Q a
        chunked evaluation uses (None: sequential only).
    """

    steps: tuple
    decay: tuple
    drive: tuple
    net: tuple
    gross: tuple
    spread: tuple
    channels: int
    softplus: bool
    chunk: int | None


@dataclass
class PathSums:
    """Per output t, upper bounds (binary64 floats, or raw mpf where ``exact``): H, G, K as in the module docstring weighted by
    Σ_n |C_t[n]|; Kc = Σ_s |P_{s,t}|·Σ_{r=chunk start of s}^{t} |z_r| (a chunked evaluation's
    exponents are differences of prefix sums from the chunk's start), weighted likewise; D and F
    the underflow allowance's sums (``bounds``); size, a bound on every intermediate magnitude;
    error, the approximation's error over 2ε (weighted by |Σ_n C_t[n]| of each group). zero[t]:
    output t has no nonzero term (decided exactly)."""

    exact: bool = True
    H: list = field(default_factory=list)
    G: list = field(default_factory=list)
    K: list = field(default_factory=list)
    Kc: list = field(default_factory=list)
    D: list = field(default_factory=list)
    F: list = field(default_factory=list)
    size: list = field(default_factory=list)
    error: list = field(default_factory=list)
    zero: list = field(default_factory=list)

    def upper(self, value) -> tuple:
        """A path sum as a raw mpf upper bound."""
        return value if self.exact else from_float(value * MARGIN, 53, UP)


def _log1p(v: tuple, wp: int) -> tuple:
    """log(1 + v) for v > 0, within 2^(2 − wp) relatively."""
    mag = v[2] + v[3]  # v < 2^mag
    if mag < -wp - 4:  # log(1 + v) = v·(1 − v/2 + ...): v alone is within 2^-(wp+4)
        return v
    return mpf_log(mpf_add(fone, v, wp + max(0, -mag) + 10), wp)


def softplus(x: tuple, wp: int) -> tuple:
    """log(1 + e^x) of an exact finite raw mpf, within 2^(4 − wp) relatively."""
    if not x[1]:
        return mpf_log(from_int(2), wp)
    g = wp + 10
    if not x[0]:  # x > 0: x + log1p(e^-x), both positive
        return mpf_add(x, _log1p(mpf_exp(mpf_neg(x), g), g), wp)
    return _log1p(mpf_exp(x, g), wp)


def step_factor(lane: Lane, t: int, wp: int) -> tuple:
    """δ'_t at working precision ``wp`` (exact where there is no softplus)."""
    return softplus(lane.steps[t], wp) if lane.softplus else lane.steps[t]


def approximate(lane: Lane, w: int, upto: int | None = None) -> list:
    """ỹ_t for t < ``upto`` (every t by default) at precision ``w`` (raw mpf); its error is
    within 2^(1−w)·``PathSums.error[t]``."""
    groups = range(len(lane.decay))
    h = [fzero for _ in groups]
    values = []
    for t in range(len(lane.steps) if upto is None else upto):
        dp = step_factor(lane, t, w)
        y = fzero
        for g in groups:
            z = mpf_mul(dp, lane.decay[g], w)
            alpha = mpf_exp(z, w) if z[1] else fone
            h[g] = mpf_add(mpf_mul(alpha, h[g], w), mpf_mul(dp, lane.drive[t][g], w), w)
            y = mpf_add(y, mpf_mul(lane.net[t][g], h[g], w), w)
        values.append(y)
    return values


@dataclass(frozen=True)
class _Arith:
    """The number type path sums are carried in: binary64, or raw mpf rounded upwards."""

    of: object  # raw mpf -> number
    add: object
    mul: object
    exp: object  # z <= 0 -> e^z
    softplus: object  # exact step (raw mpf) -> δ'
    big: object  # max
    zero: object
    one: object
    out: object  # number -> raw mpf upper bound


def _float_softplus(x: tuple) -> float:
    v = to_float(x)
    return v + math.log1p(math.exp(-v)) if v > 0 else math.log1p(math.exp(v))


FLOATS = _Arith(to_float, float.__add__, float.__mul__, math.exp, _float_softplus, max, 0.0, 1.0,
                lambda v: from_float(v * MARGIN, 53, UP))


def _mpf_arith(w: int) -> _Arith:
    def add(a, b):
        return mpf_add(a, b, BOUND_PREC, UP)

    def mul(a, b):
        return mpf_mul(a, b, BOUND_PREC, UP)

    return _Arith(lambda t: t, add, mul, lambda z: mpf_exp(z, BOUND_PREC, UP) if z[1] else fone,
                  lambda x: softplus(x, w), lambda a, b: a if mpf_cmp(a, b) >= 0 else b, fzero, fone,
                  lambda v: v)


def tame(lane: Lane) -> bool:
    """Every nonzero magnitude of the lane within 2^±TAME (products of two for the drive)."""
    def within(t: tuple, k: int = 1) -> bool:
        return not t[1] or -k * TAME <= t[2] + t[3] <= k * TAME

    return (all(within(x) for x in (*lane.steps, *lane.decay))
            and all(within(x, 2) for row in lane.drive for x in row)
            and all(within(x) for row in (*lane.net, *lane.gross, *lane.spread) for x in row))
