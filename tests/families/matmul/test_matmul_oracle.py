"""The MatMul and CumSum oracle against an independent route: MPFR (gmpy2) sums of products at a
precision that holds them exactly, IEEE specials from MPFR's own arithmetic, one rounding into
the format by ``tests/oracle/oracle_mpfr.py``; the GQA batch mapping written out by index."""

from __future__ import annotations

import importlib.util
import math
from fractions import Fraction
from pathlib import Path

import gmpy2
import ml_dtypes
import numpy as np
import pytest

import oracles
from numerics.formats import get_format
from numerics.rounding import array_to_bits

FORMATS = ["F32", "F64", "F16", "BF16"]
WIDE = 4800  # F64 products span 2^-2148 .. 2^2048: their sums are exact at this width


def _mpfr_module():
    path = Path(__file__).resolve().parents[2] / "oracle" / "oracle_mpfr.py"
    spec = importlib.util.spec_from_file_location("matmul_oracle_mpfr", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _values(rng, fmt: str, shape, specials: bool) -> np.ndarray:
    f = get_format(fmt)
    x = rng.standard_normal(shape) * 2.0 ** rng.integers(-6, 6, shape)
    if specials:
        pool = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, float(ml_dtypes.finfo(f.numpy_dtype).max), 2.0 ** (f.emin - 1)])
        pick = rng.random(shape) < 0.15
        x = np.where(pick, rng.choice(pool, shape), x)
    return x.astype(f.numpy_dtype)


def _mpfr_sum(values) -> gmpy2.mpfr:
    """x1 + x2 + ... in MPFR (IEEE specials; a sum of -0s is -0, an empty sum +0)."""
    with gmpy2.context(precision=WIDE):
        total = gmpy2.mpfr(values[0]) if len(values) else gmpy2.mpfr(0)
        for v in values[1:]:
            total = total + v
        return total


def _matmul_reference(a, b, lb, rb, fmt, to_format):
    """Bits and Σ|a·b| per output element, with lhs batch index i reading rhs index i // ratio."""
    m, k = a.shape[-2:]
    n = b.shape[-1]
    bits, abs_sums = [], []
    with gmpy2.context(precision=WIDE):
        for bi in np.ndindex(*lb):
            ri = tuple(i // (ld // r) for i, ld, r in zip(bi, lb, rb, strict=True))
            for i in range(m):
                for j in range(n):
                    prods = [gmpy2.mpfr(float(a[bi + (i, t)]), 64) * gmpy2.mpfr(float(b[ri + (t, j)]), 64)
                             for t in range(k)]
                    bits.append(to_format(_mpfr_sum(prods), fmt)[0])
                    finite = [abs(p) for p in prods if gmpy2.is_finite(p)]
                    abs_sums.append(Fraction(*_mpfr_sum(finite).as_integer_ratio()))
    return bits, abs_sums


def _same(got: int, want: int, fmt: str) -> bool:
    f = get_format(fmt)
    nan = f.numpy_dtype
    both_nan = all(math.isnan(float(np.array([v], f.bits_dtype).view(nan)[0])) for v in (got, want))
    return got == want or both_nan


@pytest.mark.parametrize("fmt", FORMATS)
def test_matmul_matches_mpfr(fmt):
    mpfr = _mpfr_module()
    rng = np.random.default_rng(sum(map(ord, fmt)))
    compared = bad = 0
    for trial in range(24):
        rank = trial % 3
        rb = [int(rng.integers(1, 3)) for _ in range(rank)]
        lb = [r * int(rng.choice([1, 2, 3])) for r in rb]
        m, n, k = (int(v) for v in rng.integers(0, 5, 3))
        a = _values(rng, fmt, (*lb, m, k), specials=trial % 2 == 1)
        b = _values(rng, fmt, (*rb, k, n), specials=trial % 2 == 1)
        params = {"lhs_batch_dims": lb, "rhs_batch_dims": rb, "m": m, "n": n, "k": k}
        out = oracles.evaluate("MatMul", [a, b], params, [fmt], {})[0]
        got = array_to_bits(out.expected, fmt).reshape(-1).tolist()
        want, abs_sums = _matmul_reference(a, b, lb, rb, fmt, mpfr._to_format)
        terms = out.terms.reshape(-1).tolist()
        for g, w, t, s in zip(got, want, terms, abs_sums, strict=True):
            compared += 1
            bad += not _same(g, w, fmt) or t[0] != k + 1 or t[1] != s + (
                Fraction(2) ** get_format("F32" if fmt in ("F16", "BF16") else fmt).emin if k else 0)
    print(f"MatMul {fmt}: {compared} elements compared with MPFR, {bad} mismatches")
    assert compared > 150 and bad == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_cumsum_matches_mpfr(fmt):
    mpfr = _mpfr_module()
    rng = np.random.default_rng(7 + sum(map(ord, fmt)))
    compared = bad = 0
    for trial in range(24):
        shape = tuple(int(v) for v in rng.integers(1, 6, int(rng.integers(1, 4))))
        axis = int(rng.integers(0, len(shape)))
        x = _values(rng, fmt, shape, specials=trial % 2 == 1)
        params = {"outer_count": math.prod(shape[:axis]), "dim_size": shape[axis],
                  "inner_count": math.prod(shape[axis + 1:]), "axis": axis}
        out = oracles.evaluate("CumSum", [x], params, [fmt], {})[0]
        got = array_to_bits(out.expected, fmt)
        moved = np.moveaxis(x.astype(np.float64), axis, -1)
        for idx in np.ndindex(*moved.shape[:-1]):
            for i in range(moved.shape[-1]):
                want = mpfr._to_format(_mpfr_sum([gmpy2.mpfr(v, 64) for v in moved[idx][: i + 1]]), fmt)[0]
                g = int(np.moveaxis(got, axis, -1)[idx + (i,)])
                t = np.moveaxis(out.terms, axis, -1)[idx + (i,)]
                compared += 1
                bad += not _same(g, want, fmt) or t[0] != i + 1
    print(f"CumSum {fmt}: {compared} elements compared with MPFR, {bad} mismatches")
    assert compared > 150 and bad == 0


def test_matmul_specials_and_shapes():
    inf, nan = math.inf, math.nan
    a = np.array([[inf, 1.0], [1.0, 0.0], [nan, 0.0]], np.float32)
    b = np.array([[0.0, 1.0], [1.0, -inf]], np.float32)
    params = {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": 3, "n": 2, "k": 2}
    out = oracles.evaluate("MatMul", [a, b], params, ["F32"], {})[0].expected
    assert np.isnan(out[0, 0]) and np.isnan(out[0, 1])  # inf·0; inf + (-inf)
    assert out[1, 0] == 0.0 and np.isnan(out[1, 1]) and np.isnan(out[2]).all()  # 0·(-inf)
    assert oracles.output_shape("matmul", [(6, 2, 3), (2, 3, 4)], {"m": 2, "n": 4}) == (6, 2, 4)
    empty = oracles.evaluate("MatMul", [np.zeros((2, 0), np.float32), np.zeros((0, 3), np.float32)],
                             {**params, "m": 2, "n": 3, "k": 0}, ["F32"], {})[0]
    assert (empty.expected == 0).all() and not np.signbit(empty.expected).any()


def test_params_must_match_the_operands():
    a = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="do not match"):
        oracles.evaluate("MatMul", [a, np.ones((3, 2), np.float32)],
                         {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": 2, "n": 2, "k": 2}, ["F32"], {})
    with pytest.raises(ValueError, match="neither equals nor divides"):
        oracles.evaluate("MatMul", [np.ones((3, 1, 1), np.float32), np.ones((2, 1, 1), np.float32)],
                         {"lhs_batch_dims": [3], "rhs_batch_dims": [2], "m": 1, "n": 1, "k": 1}, ["F32"], {})
    with pytest.raises(ValueError, match="do not match"):
        oracles.evaluate("CumSum", [a], {"outer_count": 1, "dim_size": 2, "inner_count": 3, "axis": 1},
                         ["F32"], {})


MIXED_KEYS = [("F32", "BF16", "F32"), ("BF16", "F32", "F32"), ("BF16", "BF16", "F32"), ("BF16", "BF16", "BF16"),
              ("F16", "F16", "F16"), ("F16", "F16", "F32")]


@pytest.mark.parametrize("key", MIXED_KEYS, ids=["-".join(k) for k in MIXED_KEYS])
def test_mixed_key_matmul_matches_mpfr(key):
    """Operands of different formats (the Vulkan keys, and the mirror of [F32, BF16]): the
    exact sum rounded once into the output format; the bound's accumulator is F32 and its
    underflow term F32's, whichever operand is the half."""
    mpfr = _mpfr_module()
    lhs_fmt, rhs_fmt, out_fmt = key
    rng = np.random.default_rng(sum(map(ord, "".join(key))))
    compared = bad = 0
    for trial in range(16):
        m, n, k = (int(v) for v in rng.integers(1, 5, 3))
        a = _values(rng, lhs_fmt, (m, k), specials=trial % 2 == 1)
        b = _values(rng, rhs_fmt, (k, n), specials=trial % 2 == 1)
        if trial % 4 == 2:  # the finer operand's smallest subnormals, where a coarse scale would lose them
            a.reshape(-1)[0] = 2.0 ** (get_format(lhs_fmt).emin - get_format(lhs_fmt).precision + 1)
            b.reshape(-1)[-1] = 2.0 ** (get_format(rhs_fmt).emin - get_format(rhs_fmt).precision + 1)
        params = {"lhs_batch_dims": [], "rhs_batch_dims": [], "m": m, "n": n, "k": k}
        out = oracles.evaluate("MatMul", [a, b], params, [out_fmt], {})[0]
        got = array_to_bits(out.expected, out_fmt).reshape(-1).tolist()
        want, abs_sums = _matmul_reference(a, b, [], [], out_fmt, mpfr._to_format)
        for g, w, t, s in zip(got, want, out.terms.reshape(-1).tolist(), abs_sums, strict=True):
            compared += 1
            bad += not _same(g, w, out_fmt) or t != (k + 1, s + Fraction(2) ** get_format("F32").emin)
    assert compared > 40 and bad == 0
