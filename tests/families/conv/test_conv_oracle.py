"""The Conv2D, ConvTranspose2D and CausalConv1d oracle against MPFR sums arranged as a scatter
(``conv_mpfr``), on the cases the Judge draws from the suite's contracts: every element's bits,
its bound terms (count = real products + bias + 2, grown by the narrowing of a half output;
Σ|products| + |bias| + 2^emin(acc)) and the
NaN admitted where a padded or hole tap meets a non-finite weight."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import oracles
from judge.strategies import case_strategy
from numerics.formats import get_format
from numerics.rounding import array_to_bits
from oracles.family import Budget

conv_mpfr = pytest.importorskip("conv_mpfr")  # tests/families/conv/conv_mpfr.py, beside this file

KERNELS = ["conv2d_cpu", "conv2d_bias_cpu", "conv_transpose2d_cpu", "conv_transpose2d_bias_cpu",
           "causal_conv1d_cpu"]
COUNTS: dict[str, list[int]] = {}


def _same(got: int, want: int, fmt: str) -> bool:
    f = get_format(fmt)
    as_float = lambda b: float(np.array([b], f.bits_dtype).view(f.numpy_dtype)[0])  # noqa: E731
    return got == want or (math.isnan(as_float(got)) and math.isnan(as_float(want)))


def _acc_tiny(fmt: str) -> Fraction:
    return Fraction(2) ** get_format("F32" if fmt in ("F16", "BF16") else fmt).emin


def _abs_sum(terms) -> Fraction:
    import gmpy2

    with gmpy2.context(precision=conv_mpfr.WIDE):  # abs() rounds to the context's precision
        finite = [abs(t) for t in terms if gmpy2.is_finite(t)]
    return Fraction(*conv_mpfr.mpfr_sum(finite).as_integer_ratio()) if finite else Fraction(0)


def _check_conv(case, fmt: str, transposed: bool) -> int:
    x, w = case.values[0], case.values[1]
    bias = case.values[2] if len(case.values) > 2 else None
    out = oracles.evaluate("ConvTranspose2D" if transposed else "Conv2D", list(case.values), case.params, [fmt], {})[0]
    terms, real, shape = conv_mpfr.conv_scatter(x, w, bias, case.params, transposed)
    assert out.expected.shape == shape
    got = array_to_bits(out.expected, fmt)
    to_format = conv_mpfr.helper()._to_format
    for idx, ts in terms.items():
        want = to_format(conv_mpfr.mpfr_sum(ts), fmt)[0]
        assert _same(int(got[idx]), want, fmt), (idx, case.params)
        products = len(ts) - (bias is not None)
        count, abs_sum = out.terms[idx]
        assert count == conv_mpfr.bound_count(len(ts), products > 0, fmt), (idx, count, len(ts))
        assert abs_sum == _abs_sum(ts) + (_acc_tiny(fmt) if products else 0), idx
        admitted = out.admitted[idx] if out.admitted is not None else ()
        phantom = conv_mpfr.phantom_nan(w, case.params, real, idx, transposed)
        if phantom and not math.isnan(float(out.expected[idx])):
            assert any(a != a for a in admitted), (idx, "a padded tap met a non-finite weight")
    return got.size


def _check_causal(case, fmt: str) -> int:
    import gmpy2

    x, w, bias = case.values
    p = case.params
    out = oracles.evaluate("CausalConv1d", list(case.values), p, [fmt], {})[0]
    got = array_to_bits(out.expected, fmt)
    to_format = conv_mpfr.helper()._to_format
    skipped = 0
    for b, c, t in np.ndindex(*got.shape):
        ts = [conv_mpfr.product(float(x[b, c, t + j]), float(w[c, j])) for j in range(p["kernel"])]
        ts.append(gmpy2.mpfr(float(bias[c]), 64))
        z = conv_mpfr.mpfr_sum(ts)
        want = conv_mpfr.silu(z, fmt) if p["use_silu"] else to_format(z, fmt)[0]
        if want is None:
            skipped += 1
            continue
        assert _same(int(got[b, c, t]), want, fmt), ((b, c, t), p, float(z))
        assert out.terms[b, c, t][0] == conv_mpfr.bound_count(p["kernel"] + 1, p["kernel"] > 0, fmt)
    assert skipped <= 1
    return got.size


@pytest.mark.parametrize("dtype", ["F32", "F64", "BF16", "F16"])
@pytest.mark.parametrize("kernel", KERNELS)
def test_oracle_matches_mpfr_scatter(conv_contract, kernel, dtype):
    contract = conv_contract(kernel)
    tally = COUNTS.setdefault(f"{kernel} {dtype}", [0, 0])

    @settings(max_examples=25, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(case_strategy(contract, dtype, Budget(long_row=0)))
    def check(case):
        if contract.op_kind == "CausalConv1d":
            tally[1] += _check_causal(case, dtype)
        else:
            tally[1] += _check_conv(case, dtype, contract.op_kind == "ConvTranspose2D")
        tally[0] += 1

    check()
    assert tally[0] > 0


def test_a_long_window_matches_mpfr():
    """One 300-term Conv2D window of cancelling random values, in every format."""
    rng = np.random.default_rng(5)
    for fmt in ("F32", "F64", "BF16", "F16"):
        t = get_format(fmt).numpy_dtype
        x = (rng.standard_normal((1, 12, 5, 5)) * 8).astype(t)
        w = rng.standard_normal((2, 12, 5, 5)).astype(t)
        p = {"x_shape": [1, 12, 5, 5], "w_shape": [2, 12, 5, 5], "out_shape": [1, 2, 1, 1],
             "stride": [1, 1], "padding": [0, 0, 0, 0], "dilation": [1, 1], "groups": 1}
        case = type("Case", (), {"values": (x, w), "params": p})
        assert _check_conv(case, fmt, False) == 2


def test_silu_far_out_and_specials():
    """Beyond z = 5000 the result is z rounded as from just below it (a tie of the format
    rounds down); below -1000 it is -0; silu(-inf) is -0 (the limit), silu(+inf) +inf."""
    inf = math.inf
    x = np.array([[[2.0**13 + 1, 1.0, -2000.0, -inf, inf]]], np.float32)  # 8193: a BF16 tie
    w, b = np.ones((1, 1), np.float32), np.zeros(1, np.float32)
    p = {"batch": 1, "channels": 1, "seq_in": 5, "seq_out": 5, "kernel": 1, "use_silu": True}
    out = oracles.evaluate("CausalConv1d", [x, w, b], p, ["BF16"], {})[0]
    got = out.expected.astype(np.float64).ravel().tolist()
    assert got[0] == 8192.0  # 8193 is halfway between 8192 and 8224 in BF16: just below it rounds down
    assert abs(got[1] - 0.73046875) < 1e-9
    assert got[2] == 0.0 and math.copysign(1, got[2]) < 0
    assert got[3] == 0.0 and math.copysign(1, got[3]) < 0 and got[4] == inf


def test_crosscheck_counts(capsys):
    """Prints the cases and elements compared (run after the parametrised test)."""
    with capsys.disabled():
        for key, (cases, elements) in sorted(COUNTS.items()):
            print(f"\ncross-check {key}: {cases} cases, {elements} elements, 0 mismatches", end="")
