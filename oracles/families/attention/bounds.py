"""The derived error bounds of attention (SPEC §4's machinery: each output element carries
``terms`` = (count, abs_sum) and is held to (count − 1)·u_acc·abs_sum + ulp, u_acc the unit
roundoff of the accumulator: F32 for BF16/F16, the input's own format otherwise).

The bound B of an element is derived here as a Fraction and handed over as abs_sum =
B / ((count − 1)·u), count being the number of terms its last sum folds (plus one). B covers a
kernel that works in the accumulator, in any order of summation, max-shifted or online
("flash": a running maximum and rescaled partial sums) and with exp, tanh and log within
4 ulp. First-order terms, doubled for the second-order ones:

- a score: ŝ_j = s_j + u·σ_j, σ_j = (d + 2)·A_j + 6·|cap(x_j)| + |a_j| + |s_j| (A_j = scale·Σ|q·k|:
  the dot product of d terms and the scale; softcap's division, tanh and product; the alibi
  product and the addition);
- a weight: the shift by the kernel's maximum cancels between numerator and denominator, so
  p̂_j = p_j·(1 + u·(ρ_j + R)) with ρ_j = σ_j + |s_j − m| + 4 (the shifted score's rounding, exp)
  and R = Σ_k p_k·ρ_k + 7n + 2: the denominator's n − 1 additions and its terms' errors, the
  output's n − 1 additions, up to n online rescalings of 5u each, two divisions. A backward
  pass that rebuilds p from a saved log-sum-exp L ≈ m + log n also rounds s_j − L: ρ_j gains
  |m| + log₂ n + 2;
- an output o_c = Σ p_j·v_jc errs by 2u·Σ_j p_j·|v_jc|·(ρ_j + R + 2); an exponential that
  underflows in the accumulator adds up to 2^emin·|v_jc| per term (S ≥ 1);
- backward: dP_j = do·v_j (d·u·Σ|do·v|), D = do·o (d·u·Σ|do·o| + Σ|do_c|·B(o_c)),
  dS_j = p_j·(dP_j − D), the softcap factor g_j = 1 − tanh² (off by u·(2(d + 2)·A_j / c + 6)),
  ds_j = dS_j·g_j, and the final sums dQ = scale·Σ_j ds_j·k_j, dK = scale·Σ_i ds_ij·q_i,
  dV = Σ_i p_ij·do_i, each term's error carried into the sum plus the sum's own (terms + 1)·u.

    >>> terms_of(Fraction(1, 1 << 20), 1, Fraction(1, 1 << 24))
    (2, Fraction(16, 1))
"""

from __future__ import annotations

from fractions import Fraction

from oracles.families.attention.numbers import upper

SECOND_ORDER = 2  # first-order bounds doubled: room for the products of small errors


def terms_of(bound: Fraction, folded: int, u: Fraction) -> tuple[int, Fraction]:
    """(count, abs_sum) for which the machinery's (count − 1)·u·abs_sum is ``bound``."""
    count = max(folded, 1) + 1
    return count, _up(bound / ((count - 1) * u))


def _up(x: Fraction) -> Fraction:
    """x rounded up to 64 significant bits (the scorer's arithmetic stays small)."""
    if x <= 0:
        return Fraction(0)
    e = x.numerator.bit_length() - x.denominator.bit_length() - 64
    unit = Fraction(2) ** e
    return -(-x // unit) * unit


def rho(row, w, d: int, backward: bool) -> tuple[list[Fraction], Fraction]:
    """(ρ_j per attended key, R) of the module docstring."""
    n = len(row.keys)
    extra = w.m + n.bit_length() + 2 if backward else 0
    rhos = [(d + 2) * A + 6 * cap + abs(a) + s + shift + 4 + extra
            for A, cap, a, s, shift in zip(row.A, w.cap, row.a, w.s, w.shift, strict=True)]
    R = sum((upper(p) * r for p, r in zip(w.p, rhos, strict=True)), Fraction(0)) + 7 * n + 2
    return rhos, R


def weight_errors(w, rhos, R, u: Fraction, tiny: Fraction) -> list[Fraction]:
    """|p̂_j − p_j| per attended key."""
    return [SECOND_ORDER * u * upper(p) * (r + R) + tiny for p, r in zip(w.p, rhos, strict=True)]


def output_bound(w, rhos, R, column: list, u: Fraction, tiny: Fraction) -> Fraction:
    """B of o_c = Σ_j p_j·v_jc (``column``: the v_jc as Fractions)."""
    total = Fraction(0)
    for p, r, v in zip(w.p, rhos, column, strict=True):
        total += upper(p) * upper(v) * (r + R + 2)
    top = max((upper(v) for v in column), default=Fraction(0))
    return SECOND_ORDER * u * total + 2 * len(column) * tiny * top


def chain_error(row, j: int, softcap: Fraction, d: int, u: Fraction) -> Fraction:
    """|ĝ_j − g_j| of the softcap factor (0 without softcap: g = 1 exactly)."""
    if softcap == 0:
        return Fraction(0)
    return u * (2 * (d + 2) * row.A[j] / softcap + 6)


def sum_bound(term_errors: Fraction, abs_terms: Fraction, count: int, u: Fraction,
              tiny: Fraction) -> Fraction:
    """B of a sum of ``count`` terms: their own errors, the additions', and underflow."""
    return SECOND_ORDER * (term_errors + (count + 1) * u * abs_terms) + count * tiny
