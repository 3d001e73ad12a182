"""The derived bound of a scan's outputs (SPEC §4's reduction bound, extended to a recurrence),
in the accumulator the contracts name (F32 for BF16/F16, the input format otherwise), u its unit
roundoff and 2^qmin its smallest subnormal.

Why it holds. A kernel evaluates y_t = Σ_n C_t[n]·Σ_{s≤t} P_{s,t}[n] (``recurrence``) in some
arrangement of roundings; to first order each path term P_{s,t}[n]·C_t[n] comes out multiplied
by (1 + θ) with |θ| the sum of the relative errors met along its path, and the error of y_t is
at most Σ |C_t[n]·P_{s,t}[n]|·|θ_{s,t}|. Since a ≤ 0 and δ' ≥ 0, every decay α = exp(δ'·a) is
at most 1: an error made at step r is carried to step t with a factor at most 1, never grown.

- SelectiveScan, sequential (mamba_ssm's ``selective_scan_ref``): per step of the path a
  product, a sum and the exponential (libm exp within 4 ulp: 8u): 10u per step, 10·G_t in all;
  the drive δ'·b·u (two products, softplus within 4u), the step's sum and the output's dot
  product over N: (N + 12 + 8σ)·u per term, σ = 1 with softplus; the exponent z = δ'·a carries
  (1 + 5σ)·u of relative error, which exp turns into |z|·(1 + 5σ)·u: (2 + 10σ)·K_t.
- SsdChunkScan, sequential or in chunks of Q (mamba_ssm's ``ssd_minimal_discrete``): the
  roundings of either arrangement (a chunked one sums over Q positions, the N states and the
  chunks: at most 2Q + 2N + chunks + 60 per term besides the 10 per step), and exponents formed
  as differences of prefix sums from the start of a chunk, which err by up to
  (2Q + chunks + 4)·u·Σ|z_r| over r from the chunk start of s to t: the Kc_t sum.
- Underflow: a rounding that underflows errs by at most half the smallest subnormal, absolutely;
  an underflowed decay (α → 0) loses at most 2^qmin·|h|. Carried with factors at most 1, all of
  it stays below 2^qmin·8·(D_t + F_t + N) (``recurrence.PathSums``).

The whole, doubled for the higher-order terms:

    |ŷ_t − y_t| ≤ 2u·(10·G_t + c_H·H_t + c_K·K_t) + 2^qmin·8·(D_t + F_t + N) (+ one ulp of y_t)

passed to the scorer as ``terms`` (count, abs_sum) with count the roundings on the longest path
and abs_sum = bound / ((count − 1)·u), as the row ops do.
"""

from __future__ import annotations

import math
from fractions import Fraction

from mpmath.libmp import from_int, fzero, mpf_add, mpf_mul, mpf_shift

from numerics.rounding import FloatSpec
from oracles.families.scans.recurrence import BOUND_PREC, MARGIN, UP, Lane, PathSums
from oracles.families.scans.rounding import fraction

HUGE = 1 << 14  # an exponent beyond which the bound says nothing: the output rounds to inf


def _lin(*pairs) -> tuple:
    total = fzero
    for coef, value in pairs:
        total = mpf_add(total, mpf_mul(from_int(coef), value, BOUND_PREC, UP), BOUND_PREC, UP)
    return total


def coefficients(lane: Lane, t: int) -> tuple[int, int, int, str]:
    """(c_G, c_H, c_K, which K sum) of output t for the lane's OpKind (module docstring)."""
    n = lane.channels
    if lane.chunk is None:
        sigma = 1 if lane.softplus else 0
        return 10, n + 12 + 8 * sigma, 2 + 10 * sigma, "K"
    q, chunks = lane.chunk, t // lane.chunk + 1
    return 10, 2 * q + 2 * n + chunks + 60, 2 * q + chunks + 4, "Kc"


def kernel_bound(lane: Lane, sums: PathSums, t: int, acc: FloatSpec) -> Fraction:
    """The bound on |ŷ_t − y_t|, the final rounding's ulp aside (from exact path sums)."""
    c_g, c_h, c_k, k_name = coefficients(lane, t)
    rounding = _lin((c_g, sums.G[t]), (c_h, sums.H[t]), (c_k, getattr(sums, k_name)[t]))
    underflow = _lin((8, sums.D[t]), (8, sums.F[t]), (8, from_int(lane.channels)))
    bound = mpf_add(mpf_shift(rounding, 1 - acc.p), mpf_shift(underflow, acc.qmin), BOUND_PREC, UP)
    if bound[2] + bound[3] > HUGE:
        return Fraction(1 << HUGE)
    return fraction(bound)


def terms(lane: Lane, sums: PathSums, t: int, acc: FloatSpec) -> tuple[int, Fraction]:
    """(count, abs_sum) for the scorer: count − 1 = the roundings on output t's longest path,
    (count − 1)·u·abs_sum = the kernel bound."""
    c_g, c_h, c_k, k_name = coefficients(lane, t)
    count = c_g * (t + 1) + c_h + 1
    if sums.exact:
        return count, kernel_bound(lane, sums, t, acc) * (1 << acc.p) / (count - 1)
    # binary64 sums (a tame lane): bound·2^p / (count − 1) is a normal binary64 number here,
    # widened once to stay above the rounding of these few operations
    rounding = c_g * sums.G[t] + c_h * sums.H[t] + c_k * getattr(sums, k_name)[t]
    underflow = 8.0 * (sums.D[t] + sums.F[t] + lane.channels)
    scaled = (2.0 * rounding + math.ldexp(underflow, acc.qmin + acc.p)) / (count - 1)
    return count, Fraction(scaled * MARGIN)
