"""The oracle against MPFR: zero disagreements on edge values, random inputs and, for the 16-bit
formats, every input.

Each test prints how many inputs it compared (visible with ``pytest -s``).
"""

from __future__ import annotations

import math
import zlib

import numpy as np
import pytest
from oracle_mpfr import COMPOSITE, reference_bits, remainder_bits

import oracles
from numerics.formats import get_format
from numerics.rounding import array_to_bits

UNARY = [
    "ExpElementwise", "LogElementwise", "SinElementwise", "CosElementwise", "TanhElementwise",
    "ErfElementwise", "SqrtElementwise", "SqrElementwise", "RecipElementwise", "RsqrtElementwise",
    *sorted(COMPOSITE),
]
BINARY = ["AddElementwise", "SubElementwise", "MulElementwise", "DivElementwise", "PowElementwise"]
# MPFR takes the limit-free IEEE view at ±inf for these (silu(−inf) = −inf·0 = NaN); the oracle
# uses the mathematical limit, asserted in test_semantics instead
INF_LIMIT_OPS = {"SiluElementwise", "GeluElementwise", "GeluErfElementwise"}


def _seed(*parts) -> int:
    return zlib.crc32(repr(parts).encode())


def _random_inputs(fmt: str, n: int, seed: int) -> np.ndarray:
    """A third random bit patterns (all of the format: NaN, inf, subnormals), a third moderate
    values, a third small ones; plus the OpKind-independent edge values."""
    f = get_format(fmt)
    rng = np.random.default_rng(seed)
    k = n // 3
    raw = rng.integers(0, 1 << f.bits, size=k, dtype=np.uint64).astype(f.bits_dtype).view(f.numpy_dtype)
    moderate = (rng.standard_normal(k) * 30).astype(f.numpy_dtype)
    small = (rng.standard_normal(n - 2 * k) * 2.0 ** rng.integers(-30, 3, size=n - 2 * k)).astype(f.numpy_dtype)
    return np.concatenate([raw, moderate, small])


def _edge_inputs(op_kind: str, fmt: str) -> np.ndarray:
    f = get_format(fmt)
    hints = oracles.get(op_kind).hints(fmt)
    common = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 0.5, 2.0]
    return np.array(hints + common, dtype=np.float64).astype(f.numpy_dtype)


def _widen(x: np.ndarray) -> list[float]:
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten as they widen
        return x.astype(np.float64).tolist()


def _compare(op_kind: str, fmt: str, inputs: list[np.ndarray]) -> tuple[int, list[str]]:
    f = get_format(fmt)
    out = oracles.evaluate(op_kind, inputs, {}, [fmt], {})[0].expected
    got = array_to_bits(out, fmt).reshape(-1)
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten as they widen
        cols = [np.broadcast_to(a, out.shape).astype(np.float64).reshape(-1) for a in inputs]
    bad = []
    compared = 0
    for i in range(got.size):
        args = tuple(float(c[i]) for c in cols)
        if op_kind in INF_LIMIT_OPS and math.isinf(args[0]):
            continue
        compared += 1
        want = reference_bits(op_kind, args, fmt)
        g = int(got[i])
        both_nan = math.isnan(float(out.reshape(-1)[i])) and _is_nan_bits(want, f)
        if g != want and not both_nan:
            bad.append(f"{op_kind}{args} in {fmt}: oracle {g:#x}, MPFR {want:#x}")
    return compared, bad


def _is_nan_bits(bits: int, f) -> bool:
    mag = bits & ((1 << (f.bits - 1)) - 1)
    return mag > ((1 << f.exponent_bits) - 1) << f.mantissa_bits


@pytest.mark.parametrize("fmt", ["F32", "F64", "F16", "BF16"])
@pytest.mark.parametrize("op_kind", UNARY)
def test_unary_random_and_edges(op_kind, fmt):
    n = 3000 if fmt in ("F32", "F64") else 600
    x = np.concatenate([_random_inputs(fmt, n, seed=_seed(op_kind, fmt)), _edge_inputs(op_kind, fmt)])
    count, bad = _compare(op_kind, fmt, [x])
    print(f"{op_kind} {fmt}: {count} inputs, {len(bad)} disagreements with MPFR")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("fmt", ["F32", "F64", "F16", "BF16"])
@pytest.mark.parametrize("op_kind", BINARY)
def test_binary_random_and_edges(op_kind, fmt):
    n = 3000
    a = _random_inputs(fmt, n, seed=_seed(op_kind, fmt, 1))
    b = _random_inputs(fmt, n, seed=_seed(op_kind, fmt, 2))
    edges = _edge_inputs(op_kind, fmt)
    ea, eb = np.meshgrid(edges, edges)
    a = np.concatenate([a, ea.reshape(-1)])
    b = np.concatenate([b, eb.reshape(-1)])
    count, bad = _compare(op_kind, fmt, [a, b])
    print(f"{op_kind} {fmt}: {count} input pairs, {len(bad)} disagreements with MPFR")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("floored", [True, False], ids=["floored", "truncated"])
@pytest.mark.parametrize("fmt", ["F32", "F64", "F16", "BF16"])
def test_remainder_random_and_edges(fmt, floored):
    f = get_format(fmt)
    a = _random_inputs(fmt, 3000, seed=11)
    b = _random_inputs(fmt, 3000, seed=12)
    edges = _edge_inputs("RemElementwise", fmt)
    ea, eb = np.meshgrid(edges, edges)
    a = np.concatenate([a, ea.reshape(-1)])
    b = np.concatenate([b, eb.reshape(-1)])
    rule = "floored" if floored else "truncated"
    out = oracles.evaluate("RemElementwise", [a, b], {}, [fmt], {"remainder": rule})[0].expected
    got = array_to_bits(out, fmt)
    bad = []
    for i in range(a.size):
        want = remainder_bits(float(a[i]), float(b[i]), fmt, floored)
        if int(got[i]) != want and not (_is_nan_bits(want, f) and _is_nan_bits(int(got[i]), f)):
            bad.append(f"rem({float(a[i])}, {float(b[i])}) {rule} {fmt}: oracle {int(got[i]):#x}, MPFR {want:#x}")
    print(f"RemElementwise {rule} {fmt}: {a.size} input pairs, {len(bad)} disagreements with MPFR")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["F16", "BF16"])
@pytest.mark.parametrize("op_kind", UNARY)
def test_unary_exhaustive_16bit(op_kind, fmt):
    f = get_format(fmt)
    x = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(f.numpy_dtype)
    count, bad = _compare(op_kind, fmt, [x])
    skipped = 2 if op_kind in INF_LIMIT_OPS else 0  # ±inf, asserted in test_semantics
    print(f"{op_kind} {fmt}: {count} of all 65536 inputs, {len(bad)} disagreements with MPFR")
    assert count == (1 << 16) - skipped
    assert not bad, "\n".join(bad[:10])


def test_crosscheck_reports_a_one_ulp_error(monkeypatch):
    """The comparison itself can fail: an oracle that is one ulp off is caught."""
    real = oracles.evaluate

    def off_by_one(op_kind, inputs, params, out_dtypes, rules):
        out = real(op_kind, inputs, params, out_dtypes, rules)[0]
        bits = array_to_bits(out.expected, out_dtypes[0]).copy()
        bits[0] += 1
        return [type(out)(expected=bits.view(out.expected.dtype), exact=out.exact)]

    monkeypatch.setattr(oracles, "evaluate", off_by_one)
    count, bad = _compare("ExpElementwise", "F32", [np.array([0.5, 1.5], dtype=np.float32)])
    assert count == 2 and len(bad) == 1 and "ExpElementwise(0.5,)" in bad[0]


def test_reference_rounds_ties_to_even_and_subnormals_once():
    # 1 + 2^-24 is an exact tie in F32 -> 1.0; 2^-150·(1 + 2^-60) is above half the smallest
    # subnormal -> 2^-149 (a double-rounding reference would give 0)
    assert reference_bits("AddElementwise", (1.0, 2.0**-24), "F32") == 0x3F800000
    assert reference_bits("MulElementwise", (2.0**-150, 1.0 + 2.0**-52), "F32") == 0x1


@pytest.mark.parametrize("fmt", ["F32", "F64", "F16", "BF16"])
def test_affine_and_powi_random(fmt):
    from oracle_mpfr import fma_bits

    f = get_format(fmt)
    x = _random_inputs(fmt, 1500, seed=_seed("affine", fmt))
    rng = np.random.default_rng(_seed("params", fmt))
    bad, compared = [], 0
    for _ in range(30):
        mul, add = (float(v) for v in _random_inputs(fmt, 3, seed=int(rng.integers(1 << 30)))[1:3])
        xs = x[rng.integers(0, x.size, size=50)]
        got = array_to_bits(oracles.evaluate("Affine", [xs], {"mul": mul, "add": add}, [fmt], {})[0].expected, fmt)
        for xi, g in zip(_widen(xs), got.tolist(), strict=True):
            want = fma_bits(xi, mul, add, fmt)
            compared += 1
            if g != want and not (_is_nan_bits(g, f) and _is_nan_bits(want, f)):
                bad.append(f"Affine({xi}, mul={mul}, add={add}) {fmt}: oracle {g:#x}, MPFR {want:#x}")
    for k in (-7, -2, -1, 0, 1, 2, 3, 5, 17, 100, 1 << 20):
        got = array_to_bits(oracles.evaluate("PowIElementwise", [x], {"exp": k}, [fmt], {})[0].expected, fmt)
        for xi, g in zip(_widen(x), got.tolist(), strict=True):
            want = reference_bits("PowElementwise", (xi, float(k)), fmt)
            compared += 1
            if g != want and not (_is_nan_bits(g, f) and _is_nan_bits(want, f)):
                bad.append(f"PowI({xi}, {k}) {fmt}: oracle {g:#x}, MPFR {want:#x}")
    print(f"Affine + PowI {fmt}: {compared} inputs, {len(bad)} disagreements with MPFR")
    assert not bad, "\n".join(bad[:10])


@pytest.mark.parametrize("fmt", ["F32", "F64", "F16", "BF16"])
@pytest.mark.parametrize("op_kind", ["SumReduce", "MeanReduce"])
def test_sum_and_mean_random(op_kind, fmt):
    from oracle_mpfr import sum_bits

    f = get_format(fmt)
    rng = np.random.default_rng(_seed(op_kind, fmt))
    bad, compared = [], 0
    for trial in range(40):
        n = int(rng.integers(1, 64))
        if trial % 2:  # wide dynamic range: cancellation and absorption
            x = _random_inputs(fmt, n + 3, seed=trial)[:n]
            x = x[np.isfinite(x.astype(np.float64))] if trial % 4 == 1 else x
        else:
            with np.errstate(over="ignore"):  # a wide draw overflows F16 to inf, which is kept
                x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 20)).astype(f.numpy_dtype)
        x = x.reshape(1, -1)
        out = oracles.evaluate(op_kind, [x], {"dims": [1], "keepdim": False}, [fmt], {})[0]
        g = int(array_to_bits(out.expected, fmt)[0])
        want = sum_bits(x.astype(np.float64).reshape(-1).tolist(), fmt, mean=op_kind == "MeanReduce")
        compared += 1
        if g != want and not (_is_nan_bits(g, f) and _is_nan_bits(want, f)):
            bad.append(f"{op_kind}({x.astype(np.float64).tolist()}) {fmt}: oracle {g:#x}, MPFR {want:#x}")
    print(f"{op_kind} {fmt}: {compared} rows, {len(bad)} disagreements with MPFR")
    assert not bad, "\n".join(bad[:5])
