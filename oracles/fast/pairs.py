"""Correctly rounded results of binary elementwise OpKinds over chunks of 16-bit operand pairs
(``judge sweep --pairs``, every (x, y) of F16 or BF16: 2^32 pairs), vectorised and certified,
with the pure oracle settling what the certificate leaves open.

The certificate. For add, sub, mul and div of two F16 (or two BF16) values, the binary64 result
y of the IEEE operation on their exact binary64 values is the exact result v correctly rounded
to binary64 (IEEE 754 §4.3: each basic operation is correctly rounded); for mul, and for add and
sub of F16 values, y = v (the exact result fits in 53 bits: a product of two 11-bit
significands; an F16 sum spans 2^16 down to 2^-24). Where an operand is NaN, ±inf or ±0, IEEE
754 defines the result of each basic operation exactly (NaN, ±inf, ±0 or the other operand): y
= v there too. Every rounding boundary of the 16-bit format, a midpoint between neighbours or
the overflow threshold, is a binary64 number. y is the binary64 number nearest to v, so no
boundary lies strictly between them: v and y round to the same 16-bit value unless y is itself
a boundary. ``round_or_flag`` rounds y to nearest and flags exactly those ties; a tie is settled
by ties-to-even where y = v is known (the tie is real), and by the pure oracle elsewhere (a
quotient or a BF16 sum that lands on a boundary). For F16 and BF16 operands a quotient is
never within 2^-53 of a boundary without being on it, nor does a BF16 sum's rounding error
ever put it on one, so the pure oracle is asked rarely; the argument does not rely on that.

As a second line of defence every chunk re-evaluates a random sample of its pairs, regular and
special, with the pure oracle (``cross_check``) and raises ``FastPathMismatch`` on a difference.

The exact value reported beside the bits, for ULP-real errors and bounds, is y with the exact
rounding error of a sum as ``lo`` (TwoSum), 0 for a product (exact) and for a quotient (whose
relative error, below 2^-53, is far below the three reported decimals).

The extrema and the remainder. maximum and minimum return one of their operands (or NaN): the
binary64 selection on the exact values is the result, exact in every format, with −0 ordered
below +0 as the oracle orders it; under the ``zeros: unordered`` rule the other zero of a (+0, −0)
pair is admitted beside it (``admitted``), as the search admits it. The truncated remainder is C's
``fmod``, exact by definition (C11 F.10.7.1: the result is exact; IEEE 754 §5.3.1 makes
remainder exact too), and always representable in its operands' format. The floored remainder is
that ``t = fmod(x, y)``, plus y where t is nonzero and its sign differs from y's: t and y are both
16-bit values, so for F16 operands t + y spans at most 2^17 down to 2^-24 and is exact in
binary64; for BF16 its exact rounding error is kept as ``lo`` (TwoSum), as for a sum, and a tie
that is not known exact is settled by the pure oracle. A zero result takes the divisor's sign.

Only IEEE basic operations and exact selections on binary64 arrays and integer operations are
used (``fmod`` is exact): no rounding libm function, and no 16-bit kernel of the kind being
judged.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import numpy as np

from oracles.fast.errors import FastPathMismatch


def _extremum(largest: bool):
    """maximum / minimum on binary64 values under the contract's NaN rule, −0 below +0."""

    def operation(a, b, rules):
        nan_ignore = _rule(rules, "MaximumElementwise" if largest else "MinimumElementwise", "nan") == "ignore"
        pick = (np.fmax if largest else np.fmin) if nan_ignore else (np.maximum if largest else np.minimum)
        out = pick(a, b)
        zeros = (a == 0) & (b == 0)
        both = np.signbit(a) & np.signbit(b) if largest else np.signbit(a) | np.signbit(b)
        return np.where(zeros, np.where(both, -0.0, 0.0), out)

    operation.__name__ = "maximum" if largest else "minimum"
    return operation


def _remainder(a, b, rules):
    """The floored (sign of the divisor) or truncated (C fmod) remainder; floored: before its
    final sum's rounding, which ``reference`` keeps as ``lo``."""
    t = np.fmod(a, b)
    if _rule(rules, "RemElementwise", "remainder") == "truncated":
        return t
    adjust = (t != 0) & (np.signbit(t) != np.signbit(b))
    out = np.where(adjust, t + b, t)
    return np.where(out == 0, np.copysign(0.0, b), out)


def _remainder_terms(a, b, rules):
    """The two terms whose rounded sum the floored remainder is (t and y where it adjusts,
    t and 0 elsewhere)."""
    t = np.fmod(a, b)
    if _rule(rules, "RemElementwise", "remainder") == "truncated":
        return t, np.zeros_like(t)
    adjust = (t != 0) & (np.signbit(t) != np.signbit(b))
    return t, np.where(adjust, b, 0.0)


def _rule(rules, op_kind: str, key: str) -> str:
    import oracles
    from oracles.output import resolve_rule

    opdef = oracles.get(op_kind)
    allowed = {"nan": opdef.nan_rules or ("propagate",), "remainder": ("floored", "truncated"),
               "zeros": ("ordered", "unordered")}[key]
    return resolve_rule(rules, key, opdef.defaults, allowed)


@dataclass(frozen=True)
class PairOp:
    """One OpKind's binary64 reference: its operation's name (what a fused kernel implements:
    ``judge.sweep.fused_pairs``); ``operation(a, b, rules)`` on the exact operand values;
    whether that is exact for F16 and for BF16 operands; ``terms(a, b, rules)``: the two
    binary64 terms whose rounded sum it is, for TwoSum's ``lo`` (None: not a sum)."""

    name: str
    operation: Callable
    exact_f16: bool
    exact_bf16: bool
    terms: Callable | None = None


KERNELS = {
    "AddElementwise": PairOp("add", lambda a, b, rules: np.add(a, b), True, False, lambda a, b, rules: (a, b)),
    "SubElementwise": PairOp("sub", lambda a, b, rules: np.subtract(a, b), True, False, lambda a, b, rules: (a, -b)),
    "MulElementwise": PairOp("mul", lambda a, b, rules: np.multiply(a, b), True, True),
    "DivElementwise": PairOp("div", lambda a, b, rules: np.divide(a, b), False, False),
    "MaximumElementwise": PairOp("maximum", _extremum(True), True, True),
    "MinimumElementwise": PairOp("minimum", _extremum(False), True, True),
    "RemElementwise": PairOp("rem", _remainder, True, False, _remainder_terms),
}
FORMATS = ("F16", "BF16")
CROSS_CHECK = 64  # pairs per chunk re-evaluated by the pure oracle


def covered(op_kind: str) -> bool:
    return op_kind in KERNELS


@cache
def values_of(fmt_name: str) -> np.ndarray:
    """The exact binary64 value of every bit pattern of a 16-bit format (a conversion, exact).
    Every NaN pattern becomes the quiet NaN of its sign: whether the host's conversion quiets a
    signaling NaN depends on the instruction set numpy dispatched to (F16 0x7C01 stays signaling
    on an AVX2 host), and libm gives pow(1, sNaN) = NaN where pow(1, qNaN) = 1."""
    from numerics.formats import get_format

    fmt = get_format(fmt_name)
    with np.errstate(invalid="ignore"):
        table = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(fmt.numpy_dtype).astype(np.float64)
    nan = np.isnan(table)
    bits = table.view(np.uint64)  # the quiet NaN of each NaN's sign, set in its encoding
    bits[nan] = (bits[nan] & np.uint64(1 << 63)) | np.uint64(0x7FF8000000000000)
    return table


def round_or_flag(y: np.ndarray, s) -> tuple[np.ndarray, np.ndarray]:
    """(bits of binary64 ``y`` rounded to nearest, ties to even, into format ``s``; the ties:
    elements where y lies exactly on a rounding boundary of ``s``). Integer arithmetic on the
    binary64 encoding, as ``oracles.fast.certify.round_bits``, with the tie made explicit."""
    b = np.ascontiguousarray(y, dtype=np.float64).view(np.uint64)
    mag = b & np.uint64((1 << 63) - 1)
    biased = (mag >> np.uint64(52)).astype(np.int64)
    m = mag & np.uint64((1 << 52) - 1)
    m = np.where(biased > 0, m | np.uint64(1 << 52), m)
    e = np.maximum(biased, 1) - 1075  # y = m·2^e
    q = np.maximum(biased - 1023, s.emin) - (s.p - 1)  # the exponent of an ulp of s at y
    shift = np.clip(q - e, 1, 62).astype(np.uint64)  # >= 53 − p >= 1 for a 16-bit format
    big = m >> shift
    rem = m & ((np.uint64(1) << shift) - np.uint64(1))
    half = np.uint64(1) << (shift - np.uint64(1))
    tie = _on_boundary(rem, half)
    up = (rem > half) | (tie & ((big & np.uint64(1)) == 1))
    out = ((q - s.qmin).astype(np.uint64) << np.uint64(s.p - 1)) + big + up.astype(np.uint64)
    out = np.minimum(out, np.uint64(s.inf_mag))
    special = biased == 2047
    out = np.where(special, np.where(m > np.uint64(1 << 52), np.uint64(s.nan_bits), np.uint64(s.inf_mag)), out)
    out = out | ((b >> np.uint64(63)) << np.uint64(s.bits - 1))
    return out.astype(s.bits_dtype), tie & ~special


def _on_boundary(rem, half):
    """The tie test: the bits rounded off are exactly half an ulp of the target."""
    return rem == half


def _two_sum_error(a, b, y):
    """The exact rounding error of y = fl(a + b) (Knuth's TwoSum): a + b = y + error."""
    bb = y - a
    return (a - (y - bb)) + (b - bb)


def reference(op_kind: str, a_bits: np.ndarray, b_bits: np.ndarray, fmt_name: str, rules,
              pure_evaluate, counts: dict | None = None):
    """(bits, hi, lo) of ``op_kind`` on the pairs (a_bits[i], b_bits[i]) of 16-bit format
    ``fmt_name`` into the same format: the correctly rounded bits and the exact value as
    hi + lo. ``pure_evaluate`` (the OpKind's pure oracle) settles the ties the certificate
    leaves open; ``counts["settled"]`` counts them."""
    from numerics.rounding import float_spec

    op = KERNELS[op_kind]
    s = float_spec(fmt_name)
    table = values_of(fmt_name)
    a, b = table[a_bits], table[b_bits]
    with np.errstate(all="ignore"):
        hi = op.operation(a, b, rules)
        known = op.exact_f16 if fmt_name == "F16" else op.exact_bf16
        lo = np.zeros_like(hi)
        if op.terms is not None and not known:
            lo = _two_sum_error(*op.terms(a, b, rules), hi)
            lo = np.where(np.isfinite(lo), lo, 0.0)
    bits, tie = round_or_flag(hi, s)
    regular = np.isfinite(a) & np.isfinite(b) & (a != 0) & (b != 0)
    exact = ~regular | known | ((lo == 0) if op.terms is not None else False)
    open_ties = np.flatnonzero(tie & ~exact)
    if open_ties.size:
        settle(op_kind, a_bits, b_bits, fmt_name, rules, pure_evaluate, open_ties, bits, hi, lo)
    if counts is not None:
        counts["settled"] = counts.get("settled", 0) + int(open_ties.size)
    return bits, hi, lo


def admitted(op_kind: str, a_bits: np.ndarray, b_bits: np.ndarray, fmt_name: str, rules):
    """(bits of a further result the contract admits, where it admits one) on the pairs: the
    other zero of a (+0, −0) pair of an extremum under unordered zeros; None where no pair of
    this OpKind has one."""
    if op_kind not in ("MaximumElementwise", "MinimumElementwise"):
        return None
    if _rule(rules, op_kind, "zeros") != "unordered":
        return None
    from numerics.rounding import float_spec

    sign = np.uint16(float_spec(fmt_name).sign_bit)
    a, b = np.asarray(a_bits, np.uint16), np.asarray(b_bits, np.uint16)
    has = ((a & ~sign) == 0) & ((b & ~sign) == 0) & (a != b)
    # the oracle's result is +0 for maximum, −0 for minimum: the other zero is admitted
    alt = np.full(a.shape, sign if op_kind == "MaximumElementwise" else 0, np.uint16)
    return alt, has


def _pure(op_kind, a_bits, b_bits, fmt_name, rules, pure_evaluate):
    from numerics.formats import get_format

    fmt = get_format(fmt_name)
    a = np.ascontiguousarray(a_bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    b = np.ascontiguousarray(b_bits, dtype=fmt.bits_dtype).view(fmt.numpy_dtype)
    return pure_evaluate([a, b], {}, [fmt_name], rules)[0]


def settle(op_kind, a_bits, b_bits, fmt_name, rules, pure_evaluate, idx, bits, hi, lo) -> None:
    """The pure oracle's bits and exact value (as hi + lo) at ``idx``, written in place."""
    from numerics.formats import get_format

    out = _pure(op_kind, a_bits[idx], b_bits[idx], fmt_name, rules, pure_evaluate)
    bits[idx] = np.asarray(out.expected).view(get_format(fmt_name).bits_dtype).reshape(-1)
    for k, v in zip(idx.tolist(), np.asarray(out.exact, dtype=object).reshape(-1).tolist(), strict=True):
        if v is not None:
            x = Fraction(v)
            hi[k] = float(x)
            lo[k] = float(x - Fraction(hi[k]))


def cross_check(op_kind, a_bits, b_bits, bits, fmt_name, rules, pure_evaluate, rng, counts=None) -> None:
    """Re-evaluate a random sample of the chunk's pairs with the pure oracle: every bit must
    agree (a NaN with any NaN)."""
    from numerics.formats import get_format

    fmt = get_format(fmt_name)
    specials = np.flatnonzero(~np.isfinite(values_of(fmt_name)[a_bits]) | (values_of(fmt_name)[b_bits] == 0))
    idx = np.unique(np.concatenate([rng.integers(0, a_bits.size, CROSS_CHECK),
                                    rng.choice(specials, min(specials.size, CROSS_CHECK // 4), replace=False)
                                    if specials.size else np.zeros(0, np.int64)]))
    out = _pure(op_kind, a_bits[idx], b_bits[idx], fmt_name, rules, pure_evaluate)
    want = np.asarray(out.expected).view(fmt.bits_dtype).reshape(-1)
    got = bits[idx]
    table = values_of(fmt_name)
    same = (want == got) | (np.isnan(table[want]) & np.isnan(table[got]))
    if not same.all():
        k = int(np.flatnonzero(~same)[0])
        raise FastPathMismatch(
            f"pair reference of {op_kind} ({fmt_name}) at (0x{int(a_bits[idx[k]]):04X}, "
            f"0x{int(b_bits[idx[k]]):04X}): 0x{int(got[k]):04X}, the pure oracle says 0x{int(want[k]):04X}")
    if counts is not None:
        counts["cross_checked"] = counts.get("cross_checked", 0) + int(idx.size)
