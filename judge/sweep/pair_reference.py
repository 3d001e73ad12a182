"""The certified reference of a pair sweep (``judge sweep --pairs``), by OpKind.

Two kinds of certificate, chosen by the OpKind's table entry:

- *IEEE basic operations and exact selections* (``oracles.fast.pairs``: add, sub, mul, div,
  maximum, minimum, rem). The binary64 result is the exact one correctly rounded (or, for a
  floored remainder's final sum, carries its exact error), so only an exact tie is left open.
- *A documented libm function* (the entry's ``f64_reference`` of a binary OpKind: pow). The
  binary64 result ``r`` of the C library's function (numpy's ``np.power`` on the host, CUDA's
  ``pow`` in the fused kernel) is within its documented error of the exact value: glibc's pow
  within 1 ulp, CUDA's within 2 (the entry's second field). Every rounding boundary of a 16-bit
  format, a midpoint between neighbours or the overflow threshold, is a binary64 number. Where
  ``r`` lies more than ``MARGIN_F64_ULPS`` (16) binary64 ulps of ``r`` from every boundary, the
  exact value lies on the same side of each, so ``r`` rounds to the correctly rounded 16-bit
  result; the other pairs are *flagged* and settled by the pure oracle. This is
  ``judge.sweep.f32_reference``'s argument, for a 16-bit target. Where ``r`` overflows
  binary64 the exact value is beyond 2^1024, far past any 16-bit threshold (±inf); where it
  underflows to a binary64 subnormal the margin's 2^-1074 term covers the absolute error.

As with every certified path, each chunk re-evaluates a random sample of its pairs, special
operands among them, with the pure oracle (``oracles.fast.pairs.cross_check``): a library that
breaks its documented bound raises ``FastPathMismatch`` instead of changing a verdict.
"""

from __future__ import annotations

import numpy as np

from judge.sweep.f32_reference import MARGIN_F64_ULPS

# f64_reference names of binary OpKinds -> the binary64 function on the host
LIBM = {"pow": np.power}


def _opdef(op_kind: str):
    import oracles

    try:
        return oracles.get(op_kind)
    except KeyError:  # no definition: nothing certified for it
        return None


def libm_name(op_kind: str) -> str | None:
    """The libm function certified for this binary OpKind, or None."""
    opdef = _opdef(op_kind)
    if opdef is None or opdef.arity != 2 or opdef.f64_reference is None:
        return None
    name = opdef.f64_reference[0]
    return name if name in LIBM else None


def covered(op_kind: str) -> bool:
    from oracles.fast import pairs

    return pairs.covered(op_kind) or libm_name(op_kind) is not None


def covered_kinds() -> list[str]:
    import oracles

    return sorted(k for k in oracles.op_kinds() if covered(k))


def reference(op_kind: str, a_bits, b_bits, fmt_name: str, rules, pure_evaluate, counts: dict | None = None):
    """(bits, hi, lo) of ``op_kind`` on the pairs, as ``oracles.fast.pairs.reference``."""
    from oracles.fast import pairs

    if pairs.covered(op_kind):
        return pairs.reference(op_kind, a_bits, b_bits, fmt_name, rules, pure_evaluate, counts)
    table = pairs.values_of(fmt_name)
    with np.errstate(all="ignore"):
        hi = LIBM[libm_name(op_kind)](table[a_bits], table[b_bits])
    bits, flagged = near_boundary(hi, fmt_name)
    lo = np.zeros_like(hi)
    idx = np.flatnonzero(flagged)
    if idx.size:
        pairs.settle(op_kind, a_bits, b_bits, fmt_name, rules, pure_evaluate, idx, bits, hi, lo)
    if counts is not None:
        counts["settled"] = counts.get("settled", 0) + int(idx.size)
    return bits, hi, lo


def admitted(op_kind: str, a_bits, b_bits, fmt_name: str, rules):
    """(alt bits, where) of a further result the contract admits on the pairs, or None
    (``oracles.fast.pairs.admitted``: either zero of an extremum's (+0, −0) under unordered zeros)."""
    from oracles.fast import pairs

    return pairs.admitted(op_kind, a_bits, b_bits, fmt_name, rules) if pairs.covered(op_kind) else None


def _next_pattern(bits: np.ndarray, s, up: bool) -> np.ndarray:
    """The neighbour towards +inf (up) or -inf of each non-NaN pattern (``nextafter``)."""
    b = bits.astype(np.int64)
    sign = s.sign_bit
    mag, neg = b & ~sign, (b & sign) != 0
    away = neg != up
    out = np.where(away, b + 1, b - 1)
    out = np.where(mag == 0, 1 if up else sign | 1, out)
    return np.where((mag == s.inf_mag) & away, b, out)


def near_boundary(ref: np.ndarray, fmt_name: str, margin: int = MARGIN_F64_ULPS):
    """(bits of binary64 ``ref`` rounded to the 16-bit format, the mask of elements within
    ``margin`` binary64 ulps of one of its rounding boundaries)."""
    from numerics.rounding import float_spec
    from oracles.fast.pairs import round_or_flag, values_of

    s = float_spec(fmt_name)
    table = values_of(fmt_name)
    r, _ = round_or_flag(ref, s)
    finite_r = (r.astype(np.int64) & ~s.sign_bit) < s.inf_mag
    rd = table[r]
    with np.errstate(all="ignore"):
        up = table[_next_pattern(r, s, True)]
        dn = table[_next_pattern(r, s, False)]
        mid_up, mid_dn = (rd + up) * 0.5, (rd + dn) * 0.5
        # at ±max the neighbour is ±inf: the boundary lies half an ulp beyond, as on the other side
        mid_up = np.where(np.isinf(up) & finite_r, rd + (rd - mid_dn), mid_up)
        mid_dn = np.where(np.isinf(dn) & finite_r, rd - (mid_up - rd), mid_dn)
        dist = np.minimum(np.abs(ref - mid_up), np.abs(ref - mid_dn))
        threshold = (2.0 - 2.0 ** (1 - s.p)) * 2.0**s.emax + 2.0 ** (s.emax - s.p)
        dist = np.where(np.isinf(rd), np.abs(ref) - threshold, dist)
        bound = (np.abs(ref) * 2.0**-52 + 2.0**-1074) * margin
        return r, np.isfinite(ref) & (dist <= bound)
