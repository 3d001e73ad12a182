"""Vectorised correct rounding from binary64 into F32/F16/BF16, and the certification test.

``round_bits(y, s)`` rounds binary64 values to nearest even into the format ``s`` (subnormals,
overflow to ±inf) and returns the bit patterns. F32 uses the IEEE 754 convertFormat operation
(numpy's float64 -> float32 cast, which the standard requires to be correctly rounded under the
default rounding mode); F16 and BF16 use integer arithmetic on the binary64 encoding, the same
formula as ``numerics.rounding.round_dyadic``.

``certify(y, bound, s)``: for approximations y with |v − y| <= bound·|y| (v the exact value), the
bits of v rounded into ``s`` where they are decided, and a mask of the decided elements. Only
bounds up to 2^-40 are certified, so that the ``exact`` value reported for a certified element
(y itself) is always within 2^-40 of the true one, whatever the output format.
Rounding is monotone, so if the two ends of an interval containing v round to the same bits,
every point between (v included, ties included) rounds to them too. The ends are computed in
binary64 and widened by 2^-50·|y| (``_WIDEN``) so that the rounding of their own computation can
only enlarge the interval: with w = fl(|y|·(E + 2^-50)) >= |y|·(E + 2^-50)(1 − u) and
|fl(y ± w) − (y ± w)| <= u·|y|·(1 + E + 2^-50), each end lies at least |y|·(2^-50 − 3u) > 0 beyond
y ∓ E·|y| (for E <= 1). That needs |y|·2^-50 to be a normal binary64 number: y must lie within
[2^-960, 2^960] in magnitude, or the element is not certified.
"""

from __future__ import annotations

import numpy as np

_WIDEN = 2.0**-50
_LOOSEST = np.float64(2.0**-40).view(np.uint64)  # the largest bound certified
_TINY = np.float64(2.0**-960).view(np.uint64)  # magnitude bits: ordered like the values
_HUGE = np.float64(2.0**960).view(np.uint64)
_MANT = np.uint64((1 << 52) - 1)
_HIDDEN = np.uint64(1 << 52)
_ABS = np.uint64((1 << 63) - 1)


def round_bits(y: np.ndarray, s) -> np.ndarray:
    """Bits (``s.bits_dtype``) of the binary64 array ``y`` rounded to nearest even into ``s``."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    if s.name == "F32":
        with np.errstate(over="ignore"):  # overflow to ±inf is the rounding asked for
            return y.astype(np.float32).view(np.uint32)
    b = y.view(np.uint64)
    mag = b & _ABS
    biased = (mag >> np.uint64(52)).astype(np.int64)  # integer arithmetic from here on
    m = mag & _MANT
    m = np.where(biased > 0, m | _HIDDEN, m)
    e = np.maximum(biased, 1) - 1075  # value = m·2^e
    top = np.maximum(biased - 1023, s.emin)  # floor(log2|y|) for normal y, clamped at emin
    q = top - (s.p - 1)
    shift = np.minimum(q - e, 62).astype(np.uint64)  # >= 53 − p; beyond 62 the value rounds to 0
    big = m >> shift
    rem = m & ((np.uint64(1) << shift) - np.uint64(1))
    half = np.uint64(1) << (shift - np.uint64(1))
    big = big + ((rem > half) | ((rem == half) & ((big & np.uint64(1)) == 1))).astype(np.uint64)
    out = ((q - s.qmin).astype(np.uint64) << np.uint64(s.p - 1)) + big
    out = np.minimum(out, np.uint64(s.inf_mag))
    special = biased == 2047
    if special.any():
        out = np.where(special, np.where(m > _HIDDEN, np.uint64(s.nan_bits), np.uint64(s.inf_mag)), out)
    out = out | ((b >> np.uint64(63)) << np.uint64(s.bits - 1))
    return out.astype(s.bits_dtype)


def certify(y: np.ndarray, bound, s) -> tuple[np.ndarray, np.ndarray]:
    """(bits, decided) for approximations ``y`` with relative error at most ``bound`` (a scalar or
    an array; 0 means y is exact). Elements with y outside [2^-960, 2^960] (or not finite) are
    never decided unless exact."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    bound = np.asarray(bound, dtype=np.float64)
    mag = y.view(np.uint64) & _ABS
    w = mag.view(np.float64) * (bound + _WIDEN)
    lo = round_bits(y - w, s)
    hi = round_bits(y + w, s)
    in_range = (mag >= _TINY) & (mag <= _HUGE)
    tight = np.ascontiguousarray(bound).view(np.uint64) <= _LOOSEST  # keeps ``exact`` within 2^-40
    decided = (lo == hi) & in_range & tight
    exact = np.ascontiguousarray(bound).view(np.uint64) == 0  # +0.0: y is the exact value
    if exact.any():
        exact = np.broadcast_to(exact, y.shape)
        bits = np.where(exact, round_bits(y, s), lo)
        return bits, decided | (exact & (mag <= _HUGE))
    return lo, decided
