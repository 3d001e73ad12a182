"""The Cast oracle against an independent route: MPFR (gmpy2) rounding with each target's
precision and exponent range, over every bit pattern of the 16- and 8-bit sources and a
random sample of F32 and F64 ones.

The route shares no code with ``numerics.rounding``: the source value comes from numpy's exact
widening to float64, MPFR rounds it once to nearest-even with the target's precision, gradual
underflow (``subnormalize``) and overflow; F8E4M3 (no infinity) rounds with an unbounded
exponent and becomes NaN beyond 448, as OCP OFP8's non-saturating conversion says.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracles
from numerics.formats import get_format

gmpy2 = pytest.importorskip("gmpy2")


def _mpfr_cast(values: list[float], dst: str) -> list[float]:
    """Each float64 value rounded into ``dst`` by MPFR, as a float64 (NaN for F8E4M3 overflow)."""
    f = get_format(dst)
    p, emin = f.precision, f.emin
    emax = f.emax + 1 if f.has_inf else 10**6  # MPFR's exponent of 2^emax is emax + 1
    biggest = (2 - 2.0 ** (2 - p)) * 2.0**f.emax if not f.has_inf else math.inf
    ctx = gmpy2.context(precision=p, emin=emin - p + 2, emax=emax, subnormalize=True,
                        round=gmpy2.RoundToNearest)
    out = []
    with ctx:
        for v in values:
            if math.isnan(v):
                out.append(math.nan)
                continue
            r = float(gmpy2.mpfr(v))
            out.append(math.nan if abs(r) > biggest else r)
    return out


def _mismatches(src_values: np.ndarray, dst: str) -> tuple[int, int]:
    """(elements compared, mismatches) of the oracle against MPFR for one source array."""
    with np.errstate(all="ignore"):
        wide = src_values.astype(np.float64).tolist()
    want = _mpfr_cast(wide, dst)
    got_arr = oracles.evaluate("Cast", [src_values], {}, [dst], {"nan": "propagate"})[0].expected
    with np.errstate(all="ignore"):
        got = got_arr.astype(np.float64).tolist()
    bad = 0
    for g, w in zip(got, want, strict=True):
        same = (math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
        bad += not same
    return len(got), bad


SMALL = {"F16": np.uint16, "BF16": np.uint16, "F8E4M3": np.uint8}
PAIRS = [(s, d) for s in SMALL for d in ("F64", "F32", "F16", "BF16", "F8E4M3") if s != d]


@pytest.mark.parametrize("src, dst", PAIRS, ids=[f"{s}->{d}" for s, d in PAIRS])
def test_every_source_pattern(src, dst, record_property):
    bits = np.arange(1 << (8 * np.dtype(SMALL[src]).itemsize), dtype=SMALL[src])
    n, bad = _mismatches(bits.view(get_format(src).numpy_dtype), dst)
    record_property("compared", n)
    print(f"{src}->{dst}: {n} elements compared, {bad} mismatches")
    assert (n, bad) == (bits.size, 0)


@pytest.mark.parametrize("src, dst", [("F32", "F16"), ("F32", "BF16"), ("F32", "F8E4M3"),
                                      ("F64", "F32"), ("F64", "F16"), ("F64", "BF16")])
def test_random_wide_sources(src, dst):
    """Random bit patterns (all exponents, NaNs and infinities included) plus values near the
    target's overflow and underflow thresholds."""
    f = get_format(src)
    rng = np.random.default_rng(20240)
    bits = rng.integers(0, 1 << 63, 20000, dtype=np.uint64) >> np.uint64(64 - f.bits)
    near = np.array([448, 464, 465, 480, 65504, 65519, 65520, 2.0**-10, 3 * 2.0**-10, 2.0**-24,
                     2.0**-25, 3 * 2.0**-25, 2.0**-133, 2.0**-150, 3.3895313892515355e38])
    x = np.concatenate([bits.astype(f.bits_dtype).view(f.numpy_dtype), near.astype(f.numpy_dtype)])
    x = np.concatenate([x, -x])
    n, bad = _mismatches(x, dst)
    print(f"{src}->{dst}: {n} elements compared, {bad} mismatches")
    assert (n, bad) == (x.size, 0)


def test_integer_sources_and_targets():
    """Integers into floats round once (I64 extremes, U32 into F16 overflow); floats into
    integers truncate toward zero; both against Python's own int and MPFR."""
    ints = np.array([0, 1, -1, 2**24 + 1, 2**53 + 1, -(2**63), 2**63 - 1, 65519, 65520, 2**31 - 1],
                    dtype=np.int64)
    for dst in ("F32", "F16", "BF16", "F64"):
        want = _mpfr_cast_ints(ints.tolist(), dst)
        got = oracles.evaluate("Cast", [ints], {}, [dst], {})[0].expected.astype(np.float64).tolist()
        assert got == want, dst
    floats = np.array([2.5, -2.5, -0.75, 0.99, -(2.0**31), 2.0**31 - 1.5], dtype=np.float64)
    got = oracles.evaluate("Cast", [floats], {}, ["I32"], {})[0].expected.tolist()
    assert got == [2, -2, 0, 0, -(2**31), 2**31 - 2]
    with pytest.raises(ValueError, match="undefined"):
        oracles.evaluate("Cast", [np.array([2.0**31])], {}, ["I32"], {})


def _mpfr_cast_ints(values: list[int], dst: str) -> list[float]:
    f = get_format(dst)
    ctx = gmpy2.context(precision=f.precision, emin=f.emin - f.precision + 2, emax=f.emax + 1,
                        subnormalize=True, round=gmpy2.RoundToNearest)
    with ctx:
        return [float(gmpy2.mpfr(v)) for v in values]
